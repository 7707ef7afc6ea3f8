/*
 * memory/drain.c: draining the memory store's node (store.h's drain_*
 * ops; include/chime.h: chime_scheduler_drain).  A memory store belongs
 * to one scheduler, so its cluster is that one node: the instance id it
 * was opened with (or NULL, "this node").  A drain means what it means on
 * a clustered store: the node claims nothing more, its runs finish, it
 * says it is DRAINED, and undraining it lets it claim again.  What the
 * memory store cannot do, it does not pretend to: no other process can
 * ask (the request comes through this process's API), nothing is
 * audited (there is no audit table), the request goes with the process,
 * and a fire its timeout hands over runs nowhere else, so it is recorded
 * CANCELLED (never run again, even for a job that requests recovery).
 *
 * Terms: the *request* is drain_asked with its time and timeout; the
 * *state* is DRAINING until drain_report says the node runs nothing.
 *
 * Locks: each operation takes the store's lock (memory.h) once; the
 * hand-over tells each ended fire after unlocking.
 */
#include "jobstore/memory/memory.h"
#include "model/records.h"

#include <stdlib.h>
#include <string.h>

/* Whether node (NULL: this one) names this store's node. */
static bool is_this_node(const mem_store *s, const char *node) {
  return !node || (s->node && strcmp(node, s->node) == 0);
}

int chime__mem_drain_set(chime_store *store, const char *node, bool drain,
                         int64_t timeout_ms, const char *who,
                         const char *origin) {
  mem_store *s = (mem_store *)store;
  (void)who; /* no audit table to record them in */
  (void)origin;
  if (!is_this_node(s, node))
    return CHIME_ENOTFOUND; /* the only node of this store's cluster */
  int64_t now = s->base.ops->now(&s->base);
  int r = 0;
  chime__mem_lock(s);
  if (drain) {
    /* Asked again: a new timeout from now, the state as it is. */
    if (!s->drain_asked)
      s->drain_state = CHIME_NODE_DRAINING;
    s->drain_asked = true;
    s->drain_requested_ms = now;
    s->drain_timeout_ms = timeout_ms < 0 ? 0 : timeout_ms;
  } else if (!s->drain_asked) {
    r = CHIME_ENOTFOUND;
  } else {
    s->drain_asked = false;
    s->drain_state = CHIME_NODE_ACTIVE;
  }
  chime__mem_unlock(s);
  return r;
}

int chime__mem_drain_get(chime_store *store, const char *node, int *ret_state) {
  mem_store *s = (mem_store *)store;
  if (!ret_state)
    return CHIME_EINVAL;
  chime__mem_lock(s);
  /* Another node is never drained here (as MySQL: no request, ACTIVE). */
  *ret_state = is_this_node(s, node) ? s->drain_state : CHIME_NODE_ACTIVE;
  chime__mem_unlock(s);
  return 0;
}

int chime__mem_checkin_drain(chime_store *store, bool *ret_overdue) {
  mem_store *s = (mem_store *)store;
  int64_t now = s->base.ops->now(&s->base);
  chime__mem_lock(s);
  int state = s->drain_state;
  bool overdue = s->drain_asked && s->drain_timeout_ms > 0 &&
                 s->drain_requested_ms + s->drain_timeout_ms <= now;
  chime__mem_unlock(s);
  if (ret_overdue)
    *ret_overdue = overdue;
  return state;
}

int chime__mem_drain_report(chime_store *store, size_t handed) {
  mem_store *s = (mem_store *)store;
  (void)handed;
  chime__mem_lock(s);
  if (s->drain_asked) /* undrained meanwhile: stays ACTIVE */
    s->drain_state = CHIME_NODE_DRAINED;
  chime__mem_unlock(s);
  return 0;
}

/* A fire the hand-over ended, told after unlocking. */
typedef struct ended_fire {
  int64_t fire_id;
  char *key, *job_key; /* "group\0name" bytes */
} ended_fire;

/* Ends rec (handed over): a claim goes back to its trigger; an executing
 * fire is recorded CANCELLED and forgotten (its completion is refused).
 * Returns whether rec was ended. */
static bool hand_one(mem_store *s, mem_fire *rec, int64_t now,
                     ended_fire *out) {
  MEM_ASSERT_LOCKED(s);
  if (rec->phase == CHIME_FIRE_ACQUIRED) {
    if (rec->trig)
      (void)chime__mem_set_state(s, rec->trig, CHIME_STATE_WAITING);
    chime__mem_fire_delete(s, rec);
    return true;
  }
  /* A sharded fire waits for its shards, which are no node's; a shard is
   * not ended either: its sharded fire would wait for it for ever (no
   * other node runs it again), so it completes here. */
  if (rec->whole || rec->shard)
    return false;
  mem_job *mj = chime__mem_map_get(&s->jobs, rec->job_key, rec->job_key_len);
  if (mj && chime__history_wanted(mj->j, false))
    chime__mem_history_lost(s, rec, now, "CANCELLED",
                            "the node was draining and its drain timeout "
                            "passed before the run ended");
  out->fire_id = rec->id;
  out->key = malloc(rec->key_len);
  out->job_key = malloc(rec->job_key_len);
  if (out->key)
    memcpy(out->key, rec->key, rec->key_len);
  if (out->job_key)
    memcpy(out->job_key, rec->job_key, rec->job_key_len);
  chime__mem_fire_end(s, rec);
  chime__mem_fire_delete(s, rec);
  return true;
}

int chime__mem_drain_hand_over(chime_store *store, int64_t budget_ms,
                               chime_recovery_fn each, void *user_data,
                               size_t *ret_handed) {
  mem_store *s = (mem_store *)store;
  (void)budget_ms; /* nothing here waits */
  int64_t now = s->base.ops->now(&s->base);
  bool ok = true;
  size_t handed = 0, nended = 0;
  chime__mem_lock(s);
  void **recs = chime__mem_map_values(&s->fires, &ok);
  size_t n = ok ? s->fires.count : 0;
  ended_fire *ended = n ? calloc(n, sizeof *ended) : NULL;
  if (!ok || (n && !ended)) {
    chime__mem_unlock(s);
    free(recs);
    return CHIME_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    ended_fire e = {0};
    if (!hand_one(s, recs[i], now, &e))
      continue;
    handed++;
    if (e.fire_id)
      ended[nended++] = e;
  }
  chime__mem_unlock(s);
  free(recs);
  for (size_t i = 0; i < nended; i++) {
    ended_fire *e = &ended[i];
    if (each && e->key && e->job_key) {
      chime_recovery rec = {
          .node = s->node,
          .fire_id = e->fire_id,
          .trigger_group = e->key,
          .trigger_name = e->key + strlen(e->key) + 1,
          .job_group = e->job_key,
          .job_name = e->job_key + strlen(e->job_key) + 1,
          .requeued = false,
      };
      each(user_data, &rec);
    }
    free(e->key);
    free(e->job_key);
  }
  free(ended);
  if (ret_handed)
    *ret_handed = handed;
  return 0;
}
