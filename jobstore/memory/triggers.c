/*
 * triggers.c: the memory store's trigger entries (mem_trigger) and the
 * trigger operations: add (with its job in the same step), replace, get
 * and status (remove is remove.c's).  Deleting an entry takes a
 * non-durable job with its last trigger.
 *
 * A trigger is stored as a prepared copy whose calendar pointer is the
 * store's calendar; its initial state follows the remembered pauses and
 * its job's blocking.  Every change of a trigger's state goes through
 * chime__mem_set_state, which keeps the heaps and the claims in step with
 * the state (the invariants at the top of memory.h).
 *
 * Locks: the operations take the store's lock (memory.h) once, after
 * checking and copying their arguments, and make the copies they hand out
 * before releasing it; every other function here expects it held.
 */
#include "jobstore/memory/memory.h"

#include "triggers/misfire.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Held triggers go back through chime__mem_set_state, as every change of
 * a trigger's state does: so this lives here rather than in index.c beside
 * chime__mem_hold, which keeps index.c below the trigger entries. */
void chime__mem_unhold(mem_store *s, mem_held *h) {
  MEM_ASSERT_LOCKED(s);
  for (size_t i = 0; i < h->count; i++) {
    mem_trigger *mt = h->items[i];
    assert(mt->heap == NULL && mt->claim == NULL);
    if (mt->t->store_state == CHIME_STATE_WAITING)
      (void)chime__mem_set_state(s, mt, CHIME_STATE_WAITING);
    chime__mem_trigger_check(mt);
  }
  free(h->items);
}

void chime__mem_trigger_check(const mem_trigger *mt) {
#ifndef NDEBUG
  assert(mt && mt->t && mt->job && mt->t->group && mt->t->name);
  chime_store_state state = mt->t->store_state;
  assert(chime__mem_state_valid(state));
  /* Fired triggers are WAITING, BLOCKED or COMPLETE at once: the fire
   * record, not the trigger, is EXECUTING here. */
  assert(state != CHIME_STATE_EXECUTING);
  /* In a heap, the one of its job's type, exactly when WAITING. */
  assert((mt->heap != NULL) == (state == CHIME_STATE_WAITING));
  if (mt->heap) {
    assert(mt->heap_index < mt->heap->count);
    assert(mt->heap->items[mt->heap_index] == mt);
    assert(strcmp(mt->heap->type, mt->job->j->type) == 0);
  }
  /* A claim exactly when ACQUIRED, pointing back. */
  assert((mt->claim != NULL) == (state == CHIME_STATE_ACQUIRED));
  if (mt->claim) {
    assert(mt->claim->trig == mt);
    assert(mt->claim->phase == CHIME_FIRE_ACQUIRED);
    assert(mt->job->nclaims > 0);
  }
  /* Linked into its job's list. */
  assert(mt->prev_of_job ? mt->prev_of_job->next_of_job == mt
                         : mt->job->triggers == mt);
  assert(!mt->next_of_job || mt->next_of_job->prev_of_job == mt);
  assert(mt->job->ntriggers > 0);
  assert(strcmp(mt->t->job_group, mt->job->j->group) == 0 &&
         strcmp(mt->t->job_name, mt->job->j->name) == 0);
  /* A user of the calendar it names, with its current definition. */
  if (mt->calendar) {
    assert(mt->calendar->nusers > 0);
    assert(mt->t->schedule.calendar == mt->calendar->cal);
  }
#else
  (void)mt;
#endif
}

mem_trigger *chime__mem_trigger_find(mem_store *s, const char *group,
                                     const char *name) {
  MEM_ASSERT_LOCKED(s);
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, group, name);
  mem_trigger *mt = len ? chime__mem_map_get(&s->triggers, key, len) : NULL;
  assert(!mt ||
         (strcmp(mt->t->group, group) == 0 && strcmp(mt->t->name, name) == 0));
  return mt;
}

void chime__mem_drop_claim(mem_trigger *mt) {
  if (!mt->claim)
    return;
  assert(mt->claim->trig == mt && mt->claim->phase == CHIME_FIRE_ACQUIRED);
  assert(mt->job->nclaims > 0);
  mt->claim->trig = NULL;
  mt->claim = NULL;
  mt->job->nclaims--;
}

int chime__mem_set_state(mem_store *s, mem_trigger *mt,
                         chime_store_state state) {
  MEM_ASSERT_LOCKED(s);
  assert(chime__mem_state_valid(state));
  /* ACQUIRED comes only with a claim (fire.c's claim()). */
  assert(state != CHIME_STATE_ACQUIRED && state != CHIME_STATE_EXECUTING);
  chime__mem_drop_claim(mt);
  chime__mem_heap_remove(mt);
  if (state == CHIME_STATE_WAITING &&
      !chime__trigger_may_fire_again(&mt->t->state))
    state = CHIME_STATE_COMPLETE;
  mt->t->store_state = state;
  int r = 0;
  if (state == CHIME_STATE_WAITING) {
    mem_heap *h = chime__mem_heap_for(s, mt->job->j->type);
    if (!h || chime__mem_heap_push(h, mt) < 0) {
      mt->t->store_state = CHIME_STATE_ERROR;
      r = CHIME_ENOMEM;
    }
  }
  chime__mem_trigger_check(mt);
  return r;
}

chime_trigger *chime__mem_trigger_out(const mem_trigger *mt) {
  chime_trigger *c = chime__trigger_copy(mt->t);
  /* The store may drop its calendar while the copy lives. */
  if (c)
    c->schedule.calendar = NULL;
  return c;
}

bool chime__mem_misfired(const mem_store *s, const mem_trigger *mt,
                         int64_t now_ms) {
  /* A limited type's fire waits for room: late, never misfired. */
  if (chime__mem_limited(s, mt->job->j->type))
    return false;
  return chime__trigger_is_misfired(&mt->t->schedule, &mt->t->state, now_ms,
                                    s->misfire_threshold_ms);
}

void chime__mem_trigger_delete(mem_store *s, mem_trigger *mt, bool cascade) {
  MEM_ASSERT_LOCKED(s);
  mem_job *mj = mt->job;
  chime__mem_drop_claim(mt);
  chime__mem_heap_remove(mt);
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, mt->t->group, mt->t->name);
  void *gone = chime__mem_map_del(&s->triggers, key, len);
  assert(gone == mt);
  (void)gone;
  if (mt->prev_of_job)
    mt->prev_of_job->next_of_job = mt->next_of_job;
  else
    mj->triggers = mt->next_of_job;
  if (mt->next_of_job)
    mt->next_of_job->prev_of_job = mt->prev_of_job;
  assert(mj->ntriggers > 0);
  mj->ntriggers--;
  if (mt->calendar) {
    assert(mt->calendar->nusers > 0);
    mt->calendar->nusers--;
  }
  chime_trigger_free(mt->t);
  free(mt);
  chime__mem_job_check(mj);
  if (cascade && mj->ntriggers == 0 && !mj->j->durable)
    chime__mem_job_delete(s, mj);
}

/* Whether a trigger added to group now starts paused: its group matches a
 * matcher pause.c remembered, or everything is paused. */
static bool group_paused(const mem_store *s, const char *group) {
  MEM_ASSERT_LOCKED(s);
  assert(s->npaused <= s->paused_cap);
  if (s->all_paused)
    return true;
  for (size_t i = 0; i < s->npaused; i++)
    if (chime__group_matches(s->paused[i].match, s->paused[i].pattern, group))
      return true;
  return false;
}

/* ------------------------------------------------------------ operations */

/* Adds an entry owning t (prepared) for job mj with calendar mc; its state
 * follows pauses and its job's blocking.  Returns: 0; CHIME_ENOMEM (t is
 * then freed). */
static int trigger_insert(mem_store *s, mem_job *mj, chime_trigger *t,
                          mem_calendar *mc) {
  MEM_ASSERT_LOCKED(s);
  assert(!chime__mem_trigger_find(s, t->group, t->name));
  assert(!mc || t->schedule.calendar == mc->cal);
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, t->group, t->name);
  assert(len > 0); /* the trigger was checked */
  mem_trigger *mt = calloc(1, sizeof *mt);
  if (!mt || chime__mem_map_put(&s->triggers, key, len, mt) < 0) {
    free(mt);
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  mt->t = t;
  mt->job = mj;
  mt->calendar = mc;
  if (mc)
    mc->nusers++;
  mt->next_of_job = mj->triggers;
  if (mj->triggers)
    mj->triggers->prev_of_job = mt;
  mj->triggers = mt;
  mj->ntriggers++;
  bool paused = mj->paused || group_paused(s, t->group);
  /* A shard's trigger is never blocked: its sharded fire blocks the job. */
  bool blocked = mj->nexecuting > 0 && t->shard_parent == 0;
  chime_store_state state =
      paused ? (blocked ? CHIME_STATE_PAUSED_BLOCKED : CHIME_STATE_PAUSED)
             : (blocked ? CHIME_STATE_BLOCKED : CHIME_STATE_WAITING);
  if (chime__mem_set_state(s, mt, state) < 0) {
    chime__mem_trigger_delete(s, mt, false);
    return CHIME_ENOMEM;
  }
  return 0;
}

/* Resolves t's calendar and prepares t.  Returns: 0; CHIME_ENOTFOUND;
 * chime__trigger_prepare's errors. */
static int trigger_resolve(mem_store *s, chime_trigger *t, mem_calendar **ret,
                           char *errbuf, size_t errbuf_len) {
  MEM_ASSERT_LOCKED(s);
  mem_calendar *mc = NULL;
  if (t->calendar_name) {
    mc = chime__mem_map_get(&s->calendars, t->calendar_name,
                            strlen(t->calendar_name));
    if (!mc)
      return chime__record_err(errbuf, errbuf_len, CHIME_ENOTFOUND,
                               "no calendar named '%s'", t->calendar_name);
  }
  int r = chime__trigger_prepare(
      t, mc ? mc->cal : NULL, s->base.ops->now(&s->base), errbuf, errbuf_len);
  if (r == 0)
    *ret = mc;
  return r;
}

/* Stores job (owned, may be NULL) and t (owned) once checked; old is the
 * trigger t replaces or NULL. */
static int trigger_store(mem_store *s, chime_job *job, mem_job *mj,
                         chime_trigger *t, mem_calendar *mc, mem_trigger *old) {
  MEM_ASSERT_LOCKED(s);
  assert(job || mj);
  assert(!old || (strcmp(old->t->group, t->group) == 0 &&
                  strcmp(old->t->name, t->name) == 0));
  bool fresh = false;
  if (job && mj) {
    chime__mem_job_replace(s, mj, job);
  } else if (job) {
    if (!(mj = chime__mem_job_insert(s, job))) {
      chime_job_free(job);
      chime_trigger_free(t);
      return CHIME_ENOMEM;
    }
    fresh = true;
  }
  mem_job *old_job = old ? old->job : NULL;
  if (old)
    chime__mem_trigger_delete(s, old, false);
  int r = trigger_insert(s, mj, t, mc);
  if (r < 0 && fresh)
    chime__mem_job_delete(s, mj);
  if (old_job && old_job != mj && old_job->ntriggers == 0 &&
      !old_job->j->durable)
    chime__mem_job_delete(s, old_job);
  return r;
}

int chime__mem_retry_insert(mem_store *s, chime_trigger *t) {
  MEM_ASSERT_LOCKED(s);
  mem_job *mj = chime__mem_job_find(s, t->job_group, t->job_name);
  mem_calendar *mc = NULL;
  /* A keyed run's retry takes over the run's own trigger, COMPLETE with
   * the failed fire (chime__trigger_retry_new): its key is never free. */
  mem_trigger *own = chime__mem_trigger_find(s, t->group, t->name);
  if (mj && own && chime__trigger_keyed(t) &&
      own->t->store_state == CHIME_STATE_COMPLETE)
    chime__mem_trigger_delete(s, own, false);
  /* The job is gone (nothing to retry) or the retry exists (never twice). */
  if (!mj || chime__mem_trigger_find(s, t->group, t->name)) {
    chime_trigger_free(t);
    return 0;
  }
  int r = trigger_resolve(s, t, &mc, NULL, 0);
  if (r < 0) {
    chime_trigger_free(t);
    return r;
  }
  return trigger_insert(s, mj, t, mc);
}

int chime__mem_trigger_add(chime_store *store, const chime_job *job,
                           const chime_trigger *trigger, bool replace,
                           int64_t *ret_first_fire_ms, char *errbuf,
                           size_t errbuf_len) {
  mem_store *s = (mem_store *)store;
  int r = chime__store_check_trigger_add(job, trigger, errbuf, errbuf_len);
  if (r < 0)
    return r;
  chime_trigger *t = chime__trigger_copy(trigger);
  chime_job *j = job ? chime__job_copy(job) : NULL;
  if (!t || (job && !j)) {
    chime_trigger_free(t);
    chime_job_free(j);
    return CHIME_ENOMEM;
  }
  mem_calendar *mc = NULL;
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, t->job_group, t->job_name);
  mem_trigger *old = chime__mem_trigger_find(s, t->group, t->name);
  if (old && !replace &&
      chime__trigger_hold_over(old->t, s->base.ops->now(&s->base))) {
    chime__mem_trigger_delete(s, old, false); /* its unique period ended */
    old = NULL;
  }
  if (job && mj && !replace)
    r = chime__record_err(errbuf, errbuf_len, CHIME_EEXISTS, "job %s.%s exists",
                          job->group, job->name);
  else if (!job && !mj)
    r = chime__record_err(errbuf, errbuf_len, CHIME_ENOTFOUND, "no job %s.%s",
                          t->job_group, t->job_name);
  else if (old && !replace)
    r = chime__record_err(errbuf, errbuf_len, CHIME_EEXISTS,
                          "trigger %s.%s exists", t->group, t->name);
  else
    r = trigger_resolve(s, t, &mc, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mem_limit_partition(s, t, j ? j : mj->j);
  int64_t first = t->state.next_fire_ms;
  if (r == 0) {
    r = trigger_store(s, j, mj, t, mc, old);
    t = NULL;
    j = NULL;
  }
  chime__mem_unlock(s);
  chime_trigger_free(t);
  chime_job_free(j);
  if (r == 0 && ret_first_fire_ms)
    *ret_first_fire_ms = first;
  return r;
}

/* A copy of trigger under key (group, name), firing job_group.job_name
 * when it names no job.  NULL on ENOMEM. */
static chime_trigger *replacement(const chime_trigger *trigger,
                                  const char *group, const char *name) {
  chime_trigger *t = chime__trigger_copy(trigger);
  if (!t)
    return NULL;
  char *g = strdup(group), *n = strdup(name);
  if (!g || !n) {
    free(g);
    free(n);
    chime_trigger_free(t);
    return NULL;
  }
  free(t->group);
  free(t->name);
  t->group = g;
  t->name = n;
  return t;
}

int chime__mem_trigger_replace(chime_store *store, const char *group,
                               const char *name, const chime_trigger *trigger,
                               int64_t *ret_first_fire_ms, char *errbuf,
                               size_t errbuf_len) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0 || !trigger)
    return r < 0 ? r : CHIME_EINVAL;
  chime_trigger *t = replacement(trigger, group, name);
  if (!t)
    return CHIME_ENOMEM;
  mem_calendar *mc = NULL;
  chime__mem_lock(s);
  mem_trigger *old = chime__mem_trigger_find(s, group, name);
  if (!old) {
    r = chime__record_err(errbuf, errbuf_len, CHIME_ENOTFOUND,
                          "no trigger %s.%s", group, name);
  } else if (!t->job_group) {
    free(t->job_name);
    t->job_group = strdup(old->t->job_group);
    t->job_name = strdup(old->t->job_name);
    if (!t->job_group || !t->job_name)
      r = CHIME_ENOMEM;
  } else if (strcmp(t->job_group, old->t->job_group) != 0 || !t->job_name ||
             strcmp(t->job_name, old->t->job_name) != 0) {
    r = chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                          "the new trigger must fire job %s.%s",
                          old->t->job_group, old->t->job_name);
  }
  if (r == 0)
    r = chime__store_check_trigger_add(NULL, t, errbuf, errbuf_len);
  if (r == 0)
    r = trigger_resolve(s, t, &mc, errbuf, errbuf_len);
  int64_t first = t->state.next_fire_ms;
  if (r == 0) {
    r = trigger_store(s, NULL, old->job, t, mc, old);
    t = NULL;
  }
  chime__mem_unlock(s);
  chime_trigger_free(t);
  if (r == 0 && ret_first_fire_ms)
    *ret_first_fire_ms = first;
  return r;
}

int chime__mem_trigger_get(chime_store *store, const char *group,
                           const char *name, chime_trigger **ret_trigger) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0 || !ret_trigger)
    return r < 0 ? r : CHIME_EINVAL;
  chime_trigger *copy = NULL;
  chime__mem_lock(s);
  mem_trigger *mt = chime__mem_trigger_find(s, group, name);
  if (!mt)
    r = CHIME_ENOTFOUND;
  else if (!(copy = chime__mem_trigger_out(mt)))
    r = CHIME_ENOMEM;
  chime__mem_unlock(s);
  if (r == 0)
    *ret_trigger = copy;
  return r;
}

int chime__mem_trigger_status(chime_store *store, const char *group,
                              const char *name,
                              chime_trigger_status *ret_status) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0 || !ret_status)
    return r < 0 ? r : CHIME_EINVAL;
  chime__mem_lock(s);
  mem_trigger *mt = chime__mem_trigger_find(s, group, name);
  if (mt)
    chime__mem_trigger_check(mt);
  *ret_status =
      mt ? chime__store_state_status(mt->t->store_state) : CHIME_TRIGGER_NONE;
  chime__mem_unlock(s);
  return 0;
}
