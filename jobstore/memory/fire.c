/*
 * fire.c: firing in the memory store (store.h's protocol): acquire
 * claims due WAITING triggers from the heaps of the node's job types, fire
 * runs their bookkeeping and makes the fire EXECUTING, complete ends it,
 * release returns claims; still_owned and next_due answer the engine.
 * FORBID jobs: while a fire of one executes, the job's other triggers are
 * BLOCKED (PAUSED_BLOCKED when paused), and acquire claims no trigger of a
 * job that has a claim or an executing fire.
 *
 * Terms: a *fire record* (mem_fire) is the store's side of a chime_fire,
 * found by fire id.  Acquire walks the due triggers in order across the
 * node's heaps and *holds* (index.c) the ones it passes over, a blocked or
 * misfired one, putting them back before it unlocks.
 *
 * Locks: each operation takes the store's lock (memory.h) once and
 * releases it before it returns; every other function here expects it
 * held.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Claims mt: a fire record and the engine's chime_fire.  Returns NULL on
 * ENOMEM (nothing changed). */
static chime_fire *claim(mem_store *s, mem_trigger *mt) {
  MEM_ASSERT_LOCKED(s);
  chime__mem_trigger_check(mt);
  assert(mt->t->store_state == CHIME_STATE_WAITING);
  chime_fire *f = calloc(1, sizeof *f);
  mem_fire *rec = calloc(1, sizeof *rec);
  char key[MEM_KEY_MAX], job_key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, mt->t->group, mt->t->name);
  size_t job_len = chime__mem_key(job_key, sizeof job_key, mt->job->j->group,
                                  mt->job->j->name);
  if (!f || !rec || !(rec->key = malloc(len)) ||
      !(rec->job_key = malloc(job_len)) ||
      !(f->job = chime__job_copy(mt->job->j)) ||
      !(f->trigger = chime__mem_trigger_out(mt)) ||
      !(rec->type = strdup(mt->job->j->type)) ||
      (mt->t->partition_key &&
       !(rec->partition = strdup(mt->t->partition_key))))
    goto fail;
  rec->shard = mt->t->shard_parent > 0;
  memcpy(rec->key, key, len);
  rec->key_len = len;
  memcpy(rec->job_key, job_key, job_len);
  rec->job_key_len = job_len;
  rec->id = s->last_fire_id + 1;
  if (chime__mem_map_put(&s->fires, &rec->id, sizeof rec->id, rec) < 0)
    goto fail;
  s->last_fire_id = rec->id;
  rec->phase = CHIME_FIRE_ACQUIRED;
  rec->trig = mt;
  chime__mem_heap_remove(mt);
  mt->t->store_state = CHIME_STATE_ACQUIRED;
  mt->claim = rec;
  mt->job->nclaims++;
  f->fire_id = rec->id;
  f->scheduled_ms = mt->t->state.next_fire_ms;
  rec->scheduled_ms = f->scheduled_ms;
  f->phase = CHIME_FIRE_ACQUIRED;
  f->trigger->store_state = CHIME_STATE_ACQUIRED;
  chime__mem_trigger_check(mt);
  chime__mem_fire_check(rec);
  return f;
fail:
  chime__mem_fire_record_free(rec, NULL);
  chime__fire_free(f);
  return NULL;
}

/* Whether acquire must pass mt over for now; when not, mt took its
 * limit's room (limits.c). */
static bool passed_over(mem_store *s, const mem_trigger *mt, int64_t now_ms) {
  MEM_ASSERT_LOCKED(s);
  const mem_job *mj = mt->job;
  if (!chime__tags_cover(s->tags, mj->j->required_tags))
    return true;
  /* A shard runs beside its siblings: its sharded fire blocks the job. */
  if (mt->t->shard_parent == 0 &&
      chime__concurrency_exclusive(mj->j->concurrency) &&
      (mj->nclaims > 0 || mj->nexecuting > 0))
    return true;
  return chime__mem_misfired(s, mt, now_ms) ||
         !chime__mem_limit_admit(s, mt, now_ms);
}

int chime__mem_acquire(chime_store *store, int64_t now_ms,
                       int64_t no_later_than_ms, size_t max,
                       const chime_type_set *types, chime_fire ***ret_fires,
                       size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  if (!ret_fires || !ret_count)
    return CHIME_EINVAL;
  chime_fire **out = NULL;
  size_t n = 0, cap = 0, nheaps;
  mem_held skipped = {0};
  bool ok;
  int r = 0;
  chime__mem_lock(s);
  mem_heap **hs = chime__mem_heaps_of(s, types, &nheaps, &ok);
  if (!ok || chime__mem_limits_count(s) < 0)
    r = CHIME_ENOMEM;
  while (r == 0 && n < max) {
    mem_trigger *mt = chime__mem_first_due(hs, nheaps);
    if (!mt || mt->t->state.next_fire_ms > no_later_than_ms)
      break;
    if (passed_over(s, mt, now_ms)) {
      if (!chime__mem_hold(&skipped, mt))
        r = CHIME_ENOMEM;
      continue;
    }
    if (n == cap) {
      size_t c = cap ? cap * 2 : (max < 16 ? max : 16);
      chime_fire **o = realloc(out, c * sizeof *o);
      if (!o) {
        r = CHIME_ENOMEM;
        break;
      }
      out = o;
      cap = c;
    }
    if (!(out[n] = claim(s, mt)))
      r = CHIME_ENOMEM;
    else
      n++;
  }
  chime__mem_unhold(s, &skipped);
  assert(n <= max && n <= cap);
  chime__mem_unlock(s);
  free(hs);
  /* A partial batch is still a good batch. */
  if (r < 0 && n == 0) {
    free(out);
    return r;
  }
  *ret_fires = out;
  *ret_count = n;
  return 0;
}

/* Moves the job's other triggers to BLOCKED (PAUSED_BLOCKED).  A claim
 * of another trigger (possible only when the job became FORBID after it
 * was claimed) is lost, as in Quartz. */
static void block_job(mem_store *s, mem_job *mj) {
  MEM_ASSERT_LOCKED(s);
  assert(mj->nexecuting > 0);
  for (mem_trigger *mt = mj->triggers; mt; mt = mt->next_of_job) {
    if (mt->t->shard_parent > 0)
      continue; /* shards run beside their sharded fire */
    if (mt->t->store_state == CHIME_STATE_WAITING ||
        mt->t->store_state == CHIME_STATE_ACQUIRED)
      (void)chime__mem_set_state(s, mt, CHIME_STATE_BLOCKED);
    else if (mt->t->store_state == CHIME_STATE_PAUSED)
      (void)chime__mem_set_state(s, mt, CHIME_STATE_PAUSED_BLOCKED);
  }
}

/* Fires one claim.  Returns the fire's result. */
static int fire_one(mem_store *s, chime_fire *f) {
  MEM_ASSERT_LOCKED(s);
  mem_fire *rec = chime__mem_fire_find(s, f->fire_id);
  if (!rec || rec->phase != CHIME_FIRE_ACQUIRED)
    return CHIME_ENOTOWNER;
  mem_trigger *mt = rec->trig;
  if (!mt) {
    /* The claim was lost: the trigger was removed, paused or replaced. */
    chime__mem_fire_delete(s, rec);
    return CHIME_ENOTOWNER;
  }
  chime__mem_trigger_check(mt);
  assert(mt->claim == rec && mt->t->store_state == CHIME_STATE_ACQUIRED);
  assert(f->scheduled_ms == mt->t->state.next_fire_ms);
  mem_job *mj = mt->job;
  chime_job *job = chime__job_copy(mj->j);
  if (!job) {
    (void)chime__mem_set_state(s, mt, CHIME_STATE_WAITING);
    chime__mem_fire_delete(s, rec);
    return CHIME_ENOMEM;
  }
  chime_job_free(f->job);
  f->job = job;
  if (mt->t->shard_parent > 0)
    chime__shard_job(job);
  chime__mem_drop_claim(mt);
  chime__trigger_triggered(&mt->t->schedule, &mt->t->state);
  rec->phase = CHIME_FIRE_EXECUTING;
  rec->forbid = chime__concurrency_exclusive(mj->j->concurrency) &&
                mt->t->shard_parent == 0;
  if (rec->forbid) {
    mj->nexecuting++;
    block_job(s, mj);
  }
  chime_store_state next = !chime__trigger_may_fire_again(&mt->t->state)
                               ? CHIME_STATE_COMPLETE
                           : rec->forbid ? CHIME_STATE_BLOCKED
                                         : CHIME_STATE_WAITING;
  (void)chime__mem_set_state(s, mt, next);
  chime__mem_fire_check(rec);
  f->trigger->state = mt->t->state;
  f->trigger->store_state = mt->t->store_state;
  f->phase = CHIME_FIRE_EXECUTING;
  return 0;
}

int chime__mem_fire(chime_store *store, chime_fire **fires, size_t count,
                    int64_t now_ms) {
  mem_store *s = (mem_store *)store;
  (void)now_ms;
  if (!fires && count > 0)
    return CHIME_EINVAL;
  chime__mem_lock(s);
  for (size_t i = 0; i < count; i++)
    if (fires[i])
      fires[i]->result = fire_one(s, fires[i]);
  chime__mem_unlock(s);
  return 0;
}

int chime__mem_complete(chime_store *store, const chime_fire *fire,
                        const chime_run_result *outcome) {
  mem_store *s = (mem_store *)store;
  if (!fire || !chime__outcome_valid(outcome))
    return CHIME_EINVAL;
  int r = 0;
  chime__mem_lock(s);
  mem_fire *rec = chime__mem_fire_find(s, fire->fire_id);
  mem_job *mj =
      rec ? chime__mem_map_get(&s->jobs, rec->job_key, rec->job_key_len) : NULL;
  if (!rec || rec->phase != CHIME_FIRE_EXECUTING || rec->whole)
    r = CHIME_ENOTOWNER;
  else if (mj && outcome && outcome->set_data && mj->j->persist_data)
    r = chime__set_bytes(&mj->j->data, &mj->j->data_len, outcome->data,
                         outcome->data_len);
  mem_shards_done done = {0};
  if (r == 0) {
    /* The retry first: it keeps a non-durable job whose last trigger
     * completed (the job of a one-shot trigger) from being removed by
     * chime__mem_fire_end; a FORBID job's retry starts BLOCKED and is
     * unblocked there with the job's other triggers. */
    chime_trigger *retry = NULL;
    r = chime__retry_for(fire, outcome, s->base.ops->now(&s->base), &retry);
    bool retried = retry != NULL;
    if (retry)
      r = chime__mem_retry_insert(s, retry);
    chime__mem_fire_end(s, rec);
    if (fire->job && fire->trigger)
      chime__mem_history_record(s, fire, outcome, retried && r == 0);
    if ((outcome && outcome->checkpointed) || fire->recovering)
      chime__mem_checkpoint_drop(s, chime__fire_run_id(fire));
    chime__mem_fire_delete(s, rec);
    if (r == 0 && !retried && fire->trigger && fire->trigger->shard_parent > 0)
      chime__mem_shard_end(s, fire, outcome, &done);
  }
  chime__mem_unlock(s);
  chime__mem_shards_tell(s, &done);
  return r;
}

int chime__mem_release(chime_store *store, chime_fire **fires, size_t count) {
  mem_store *s = (mem_store *)store;
  if (!fires && count > 0)
    return CHIME_EINVAL;
  chime__mem_lock(s);
  for (size_t i = 0; i < count; i++) {
    mem_fire *rec =
        fires[i] ? chime__mem_fire_find(s, fires[i]->fire_id) : NULL;
    if (!rec || rec->phase != CHIME_FIRE_ACQUIRED)
      continue;
    mem_trigger *mt = rec->trig;
    if (mt) {
      assert(mt->claim == rec);
      (void)chime__mem_set_state(s, mt, CHIME_STATE_WAITING);
    }
    chime__mem_fire_delete(s, rec);
  }
  chime__mem_unlock(s);
  return 0;
}

int chime__mem_still_owned(chime_store *store, const chime_fire *fire,
                           bool *ret_owned) {
  mem_store *s = (mem_store *)store;
  if (!fire || !ret_owned)
    return CHIME_EINVAL;
  chime__mem_lock(s);
  mem_fire *rec = chime__mem_fire_find(s, fire->fire_id);
  *ret_owned = rec && rec->phase == CHIME_FIRE_EXECUTING && !rec->whole;
  chime__mem_unlock(s);
  return 0;
}

int chime__mem_next_due(chime_store *store, const chime_type_set *types,
                        int64_t after_ms, int64_t *ret_ms) {
  mem_store *s = (mem_store *)store;
  size_t n;
  bool ok;
  if (!ret_ms)
    return CHIME_EINVAL;
  chime__mem_lock(s);
  mem_heap **hs = chime__mem_heaps_of(s, types, &n, &ok);
  mem_trigger *mt = chime__mem_first_due(hs, n);
  /* Those due by after_ms are held out of their heaps for the look past
   * them (few: due triggers are claimed or scanned for misfires). */
  mem_held held = {0};
  while (ok && mt && after_ms != INT64_MIN &&
         mt->t->state.next_fire_ms <= after_ms) {
    if (!chime__mem_hold(&held, mt))
      ok = false;
    else
      mt = chime__mem_first_due(hs, n);
  }
  int64_t due = mt ? mt->t->state.next_fire_ms : 0;
  chime__mem_unhold(s, &held);
  chime__mem_unlock(s);
  free(hs);
  if (!ok)
    return CHIME_ENOMEM;
  if (!mt)
    return CHIME_ENOTFOUND;
  *ret_ms = due;
  return 0;
}
