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

static int by_key(chime_store *store, const char *group, const char *name,
                  void (*fn)(mem_store *, mem_trigger *)) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  mem_trigger *mt = chime__mem_trigger_find(s, group, name);
  if (mt)
    fn(s, mt);
  chime__mem_unlock(s);
  return mt ? 0 : CHIME_ENOTFOUND;
}

int chime__mem_pause_trigger(chime_store *store, const char *group,
                             const char *name) {
  return by_key(store, group, name, pause_one);
}

int chime__mem_resume_trigger(chime_store *store, const char *group,
                              const char *name) {
  return by_key(store, group, name, resume_one);
}

static int by_job(chime_store *store, const char *group, const char *name,
                  bool pause) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, group, name);
  if (mj) {
    chime__mem_job_check(mj);
    mj->paused = pause;
    for (mem_trigger *mt = mj->triggers; mt; mt = mt->next_of_job) {
      assert(mt->job == mj);
      (pause ? pause_one : resume_one)(s, mt);
    }
  }
  chime__mem_unlock(s);
  return mj ? 0 : CHIME_ENOTFOUND;
}

int chime__mem_pause_job(chime_store *store, const char *group,
                         const char *name) {
  return by_job(store, group, name, true);
}

int chime__mem_resume_job(chime_store *store, const char *group,
                          const char *name) {
  return by_job(store, group, name, false);
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

int chime__mem_pause_group(chime_store *store, chime_match match,
                           const char *pattern) {
  mem_store *s = (mem_store *)store;
  int r = chime__mem_match_check(match, pattern);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  r = remember(s, match, pattern);
  if (r == 0)
    each_trigger(s, pause_one, false, match, pattern);
  chime__mem_unlock(s);
  return r;
}

int chime__mem_resume_group(chime_store *store, chime_match match,
                            const char *pattern) {
  mem_store *s = (mem_store *)store;
  int r = chime__mem_match_check(match, pattern);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  forget(s, match, pattern);
  if (match == CHIME_MATCH_ANY)
    s->all_paused = false;
  each_trigger(s, resume_one, false, match, pattern);
  chime__mem_unlock(s);
  return 0;
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
