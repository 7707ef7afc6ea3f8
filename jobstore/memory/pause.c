/*
 * pause.c: pausing and resuming in the memory store, by trigger, by
 * job, by group matcher and all at once.  As in Quartz's RAMJobStore, a
 * paused group is remembered (here as the matcher it was paused with), so
 * that triggers added later to a matching group start PAUSED; pause_all
 * remembers that everything is paused.  A paused job is remembered too, so
 * its new triggers start PAUSED.  Resuming makes a trigger WAITING again
 * (BLOCKED while its FORBID job runs); a fire time missed meanwhile is left
 * to the misfire scan.
 *
 * The remembered matchers are read where a trigger is added (group_paused
 * in triggers.c, their one reader), so that triggers.c does not call up
 * into this file, which pauses triggers through it.
 *
 * Locks: each operation takes the store's lock (memory.h) once; every
 * other function here expects it held.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Pauses one trigger (Quartz's pauseTrigger). */
static void pause_one(mem_store *s, mem_trigger *mt) {
  MEM_ASSERT_LOCKED(s);
  chime__mem_trigger_check(mt);
  switch (mt->t->store_state) {
  case CHIME_STATE_WAITING:
  case CHIME_STATE_ACQUIRED:
  case CHIME_STATE_EXECUTING:
    (void)chime__mem_set_state(s, mt, CHIME_STATE_PAUSED);
    break;
  case CHIME_STATE_BLOCKED:
    (void)chime__mem_set_state(s, mt, CHIME_STATE_PAUSED_BLOCKED);
    break;
  case CHIME_STATE_PAUSED:
  case CHIME_STATE_PAUSED_BLOCKED:
  case CHIME_STATE_COMPLETE:
  case CHIME_STATE_ERROR:
    break;
  }
}

/* Resumes one trigger (Quartz's resumeTrigger, without the misfire). */
static void resume_one(mem_store *s, mem_trigger *mt) {
  MEM_ASSERT_LOCKED(s);
  chime__mem_trigger_check(mt);
  chime_store_state st = mt->t->store_state;
  if (st != CHIME_STATE_PAUSED && st != CHIME_STATE_PAUSED_BLOCKED)
    return;
  (void)chime__mem_set_state(s, mt,
                             mt->job->nexecuting > 0 && mt->t->shard_parent == 0
                                 ? CHIME_STATE_BLOCKED
                                 : CHIME_STATE_WAITING);
}

/* Applies fn to every trigger whose group matches (all when match is
 * NULL).  fn may change states but not add or remove triggers. */
typedef struct each_arg {
  mem_store *s;
  void (*fn)(mem_store *, mem_trigger *);
  chime_match match;
  const char *pattern;
  bool all;
} each_arg;

static void each_one(void *value, void *arg) {
  mem_trigger *mt = value;
  each_arg *a = arg;
  if (a->all || chime__group_matches(a->match, a->pattern, mt->t->group))
    a->fn(a->s, mt);
}

static void each_trigger(mem_store *s, void (*fn)(mem_store *, mem_trigger *),
                         bool all, chime_match match, const char *pattern) {
  MEM_ASSERT_LOCKED(s);
  each_arg a = {s, fn, match, pattern, all};
  chime__mem_map_each(&s->triggers, each_one, &a);
}

/* Pauses (*pause true) or resumes a trigger entry. */
static int pause_trigger(mem_store *s, void *entry, void *pause) {
  (*(const bool *)pause ? pause_one : resume_one)(s, entry);
  return 0;
}

int chime__mem_pause_trigger(chime_store *store, const char *group,
                             const char *name) {
  bool pause = true;
  return chime__mem_on_key(store, MEM_TRIGGER, group, name, pause_trigger,
                           &pause);
}

int chime__mem_resume_trigger(chime_store *store, const char *group,
                              const char *name) {
  bool pause = false;
  return chime__mem_on_key(store, MEM_TRIGGER, group, name, pause_trigger,
                           &pause);
}

/* Pauses (*pause true) or resumes a job entry, remembered for its
 * triggers to come, and its triggers. */
static int pause_job(mem_store *s, void *entry, void *pause) {
  mem_job *mj = entry;
  bool p = *(const bool *)pause;
  chime__mem_job_check(mj);
  mj->paused = p;
  for (mem_trigger *mt = mj->triggers; mt; mt = mt->next_of_job) {
    assert(mt->job == mj);
    (p ? pause_one : resume_one)(s, mt);
  }
  return 0;
}

int chime__mem_pause_job(chime_store *store, const char *group,
                         const char *name) {
  bool pause = true;
  return chime__mem_on_key(store, MEM_JOB, group, name, pause_job, &pause);
}

int chime__mem_resume_job(chime_store *store, const char *group,
                          const char *name) {
  bool pause = false;
  return chime__mem_on_key(store, MEM_JOB, group, name, pause_job, &pause);
}

static bool same_matcher(const mem_paused_group *p, chime_match match,
                         const char *pattern) {
  if (p->match != match)
    return false;
  return match == CHIME_MATCH_ANY || strcmp(p->pattern, pattern) == 0;
}

/* Remembers a paused matcher.  Returns: 0; CHIME_ENOMEM. */
static int remember(mem_store *s, chime_match match, const char *pattern) {
  MEM_ASSERT_LOCKED(s);
  assert(match == CHIME_MATCH_ANY || pattern);
  for (size_t i = 0; i < s->npaused; i++)
    if (same_matcher(&s->paused[i], match, pattern))
      return 0;
  if (s->npaused == s->paused_cap) {
    size_t cap = s->paused_cap ? s->paused_cap * 2 : 8;
    mem_paused_group *p = realloc(s->paused, cap * sizeof *p);
    if (!p)
      return CHIME_ENOMEM;
    s->paused = p;
    s->paused_cap = cap;
  }
  char *copy = NULL;
  if (match != CHIME_MATCH_ANY && !(copy = strdup(pattern)))
    return CHIME_ENOMEM;
  s->paused[s->npaused].match = match;
  s->paused[s->npaused].pattern = copy;
  s->npaused++;
  return 0;
}

/* Forgets the matchers a resume with (match, pattern) lifts: the same
 * matcher, and every EQUALS group that it matches. */
static void forget(mem_store *s, chime_match match, const char *pattern) {
  MEM_ASSERT_LOCKED(s);
  size_t kept = 0;
  for (size_t i = 0; i < s->npaused; i++) {
    mem_paused_group *p = &s->paused[i];
    assert((p->pattern == NULL) == (p->match == CHIME_MATCH_ANY));
    bool lift = match == CHIME_MATCH_ANY || same_matcher(p, match, pattern) ||
                (p->match == CHIME_MATCH_EQUALS &&
                 chime__group_matches(match, pattern, p->pattern));
    if (lift)
      free(p->pattern);
    else
      s->paused[kept++] = *p;
  }
  s->npaused = kept;
}

/* Pauses (pause) or resumes the triggers of the groups (match, pattern)
 * matches, the matcher remembered or forgotten for the triggers to come. */
static int by_group(chime_store *store, chime_match match, const char *pattern,
                    bool pause) {
  mem_store *s = (mem_store *)store;
  int r = chime__mem_match_check(match, pattern);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  if (pause) {
    r = remember(s, match, pattern);
    if (r == 0)
      each_trigger(s, pause_one, false, match, pattern);
  } else {
    forget(s, match, pattern);
    if (match == CHIME_MATCH_ANY)
      s->all_paused = false;
    each_trigger(s, resume_one, false, match, pattern);
  }
  chime__mem_unlock(s);
  return r;
}

int chime__mem_pause_group(chime_store *store, chime_match match,
                           const char *pattern) {
  return by_group(store, match, pattern, true);
}

int chime__mem_resume_group(chime_store *store, chime_match match,
                            const char *pattern) {
  return by_group(store, match, pattern, false);
}

int chime__mem_pause_all(chime_store *store) {
  mem_store *s = (mem_store *)store;
  chime__mem_lock(s);
  s->all_paused = true;
  each_trigger(s, pause_one, true, CHIME_MATCH_ANY, NULL);
  chime__mem_unlock(s);
  return 0;
}

static void unpause_job(void *value, void *unused) {
  mem_job *mj = value;
  (void)unused;
  chime__mem_job_check(mj);
  mj->paused = false;
}

int chime__mem_resume_all(chime_store *store) {
  mem_store *s = (mem_store *)store;
  chime__mem_lock(s);
  s->all_paused = false;
  forget(s, CHIME_MATCH_ANY, NULL);
  chime__mem_map_each(&s->jobs, unpause_job, NULL);
  each_trigger(s, resume_one, true, CHIME_MATCH_ANY, NULL);
  chime__mem_unlock(s);
  return 0;
}

void chime__mem_paused_free(mem_store *s) {
  MEM_ASSERT_LOCKED(s);
  forget(s, CHIME_MATCH_ANY, NULL);
  free(s->paused);
  s->paused = NULL;
  s->paused_cap = 0;
}
