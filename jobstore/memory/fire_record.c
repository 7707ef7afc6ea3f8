/*
 * fire_record.c: the memory store's fire records (mem_fire), a claimed or
 * executing fire's side in the store, found by fire id: their invariants,
 * their deletion, and the end of an executing one (its FORBID job's
 * triggers unblocked, with the fire times a FORBID_SKIP, REPLACE or capped
 * FORBID_QUEUE job drops; its trigger deleted when COMPLETE).  Below the
 * firing protocol (fire.c) and the shards (shards.c), which both end
 * fires: it calls only the trigger entries (triggers.c) and the indexes.
 *
 * Locks: every function here expects the store's lock (memory.h) held.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>

void chime__mem_fire_check(const mem_fire *f) {
#ifndef NDEBUG
  assert(f && f->id > 0 && f->key && f->key_len > 0 && f->job_key &&
         f->job_key_len > 0);
  if (f->phase == CHIME_FIRE_ACQUIRED) {
    /* A claim, unless it was lost (then trig is NULL). */
    assert(!f->forbid);
    assert(!f->trig || (f->trig->claim == f &&
                        f->trig->t->store_state == CHIME_STATE_ACQUIRED));
  } else {
    assert(f->phase == CHIME_FIRE_EXECUTING && f->trig == NULL);
  }
#else
  (void)f;
#endif
}

void chime__mem_fire_record_free(void *fire, void *unused) {
  mem_fire *f = fire;
  (void)unused;
  if (!f)
    return;
  free(f->key);
  free(f->job_key);
  chime__fire_free(f->whole);
  free(f->failed_list);
  free(f->type);
  free(f->partition);
  free(f);
}

mem_fire *chime__mem_fire_find(mem_store *s, int64_t id) {
  MEM_ASSERT_LOCKED(s);
  mem_fire *f = chime__mem_map_get(&s->fires, &id, sizeof id);
  assert(!f || f->id == id);
  if (f)
    chime__mem_fire_check(f);
  return f;
}

/* Deletes a fire record that holds no claim. */
void chime__mem_fire_delete(mem_store *s, mem_fire *f) {
  MEM_ASSERT_LOCKED(s);
  assert(f->trig == NULL);
  void *gone = chime__mem_map_del(&s->fires, &f->id, sizeof f->id);
  assert(gone == f);
  (void)gone;
  chime__mem_fire_record_free(f, NULL);
}

/* A FORBID_SKIP job drops the fire times its triggers missed while it ran,
 * a REPLACE job all of them but the newest, a FORBID_QUEUE job with a cap
 * those beyond the cap (the memory store
 * keeps no history to record them in), at most this many per trigger and
 * completion.  A paused trigger keeps its missed time for its misfire
 * instruction, as under FORBID. */
#define MEM_SKIP_MAX INT64_C(1000000)
static void unblock_job(mem_store *s, mem_job *mj) {
  MEM_ASSERT_LOCKED(s);
  assert(mj->nexecuting == 0);
  int64_t keep = chime__queue_keep(mj->j);
  int64_t now = keep >= 0 ? s->base.ops->now(&s->base) : 0;
  for (mem_trigger *mt = mj->triggers; mt; mt = mt->next_of_job) {
    int64_t drop = 0;
    if (keep >= 0 && mt->t->store_state == CHIME_STATE_BLOCKED)
      drop = chime__trigger_queue_excess(&mt->t->schedule, &mt->t->state, now,
                                         keep, MEM_SKIP_MAX);
    if (drop > 0)
      chime__trigger_skip_before(&mt->t->schedule, &mt->t->state, now, drop,
                                 NULL, NULL);
    if (mt->t->store_state == CHIME_STATE_BLOCKED)
      (void)chime__mem_set_state(s, mt, CHIME_STATE_WAITING);
    else if (mt->t->store_state == CHIME_STATE_PAUSED_BLOCKED)
      (void)chime__mem_set_state(s, mt, CHIME_STATE_PAUSED);
  }
}

void chime__mem_fire_end(mem_store *s, mem_fire *rec) {
  MEM_ASSERT_LOCKED(s);
  assert(rec->phase == CHIME_FIRE_EXECUTING);
  mem_job *mj = chime__mem_map_get(&s->jobs, rec->job_key, rec->job_key_len);
  /* mj may be a new job under the same key (the old one was removed
   * while this fire ran): its count does not include this fire. */
  if (mj && rec->forbid && mj->nexecuting > 0 && --mj->nexecuting == 0)
    unblock_job(s, mj);
  mem_trigger *mt = chime__mem_map_get(&s->triggers, rec->key, rec->key_len);
  if (!mt || mt->t->store_state != CHIME_STATE_COMPLETE)
    return;
  /* A keyed run with a unique period keeps its key that long: its row
   * stays, and an enqueue after the period takes it over. */
  if (chime__trigger_keyed(mt->t) && mt->t->unique_for_ms > 0 &&
      mt->t->held_until_ms == 0)
    mt->t->held_until_ms = s->base.ops->now(&s->base) + mt->t->unique_for_ms;
  else
    chime__mem_trigger_delete(s, mt, true);
}
