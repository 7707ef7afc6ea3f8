/*
 * memory/shards.c: sharded fires and checkpoints in the memory store
 * (store.h's shard_split, checkpoint_set, checkpoint_get; docs/batch.md).
 *
 * A split turns an EXECUTING fire record into the record of the sharded
 * fire as a whole (mem_fire.whole set): it stays, blocking a FORBID job,
 * until its last shard ends (chime__mem_shard_end, from complete), then
 * gets its history row and is ended like a completed fire.  One process
 * is one node: a broadcast has one shard.  Checkpoints are a map from run
 * id to bytes.
 *
 * Locks: the store's lock (memory.h), taken once per operation.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mem_checkpoint {
  int64_t run_id;
  void *data;
  size_t len;
} mem_checkpoint;

static void checkpoint_free(void *value, void *unused) {
  mem_checkpoint *c = value;
  (void)unused;
  if (c)
    free(c->data);
  free(c);
}

void chime__mem_checkpoint_drop(mem_store *s, int64_t run_id) {
  MEM_ASSERT_LOCKED(s);
  checkpoint_free(chime__mem_map_del(&s->checkpoints, &run_id, sizeof run_id),
                  NULL);
}

const void *chime__mem_checkpoint_peek(const mem_store *s, int64_t run_id,
                                       size_t *ret_len) {
  const mem_checkpoint *c =
      chime__mem_map_get(&s->checkpoints, &run_id, sizeof run_id);
  *ret_len = c ? c->len : 0;
  return c ? c->data : NULL;
}

void chime__mem_checkpoints_free(mem_store *s) {
  MEM_ASSERT_LOCKED(s);
  chime__mem_map_each(&s->checkpoints, checkpoint_free, NULL);
  chime__mem_map_clear(&s->checkpoints);
}

/* The record of fire when it is EXECUTING here and not split. */
static mem_fire *running(mem_store *s, const chime_fire *fire) {
  mem_fire *rec = chime__mem_fire_find(s, fire->fire_id);
  return rec && rec->phase == CHIME_FIRE_EXECUTING && !rec->whole ? rec : NULL;
}

int chime__mem_checkpoint_set(chime_store *store, const chime_fire *fire,
                              const void *data, size_t len) {
  mem_store *s = (mem_store *)store;
  if (!fire || (!data && len > 0))
    return CHIME_EINVAL;
  if (len > CHIME_MAX_DATA_LEN)
    return CHIME_ELIMIT;
  void *copy = len ? malloc(len) : NULL;
  if (len && !copy)
    return CHIME_ENOMEM;
  if (len)
    memcpy(copy, data, len);
  int64_t id = chime__fire_run_id(fire);
  int r = 0;
  chime__mem_lock(s);
  mem_checkpoint *c = chime__mem_map_get(&s->checkpoints, &id, sizeof id);
  if (!running(s, fire)) {
    r = CHIME_ENOTOWNER;
  } else if (c) {
    free(c->data);
    c->data = copy;
    c->len = len;
    copy = NULL;
  } else if (!(c = calloc(1, sizeof *c))) {
    r = CHIME_ENOMEM;
  } else {
    c->run_id = id;
    c->data = copy;
    c->len = len;
    copy = NULL;
    if ((r = chime__mem_map_put(&s->checkpoints, &c->run_id, sizeof id, c)) <
        0) {
      copy = c->data;
      free(c);
    }
  }
  chime__mem_unlock(s);
  free(copy);
  return r;
}

int chime__mem_checkpoint_get(chime_store *store, const chime_fire *fire,
                              void **ret_data, size_t *ret_len) {
  mem_store *s = (mem_store *)store;
  if (!fire || !ret_data || !ret_len)
    return CHIME_EINVAL;
  int64_t id = chime__fire_run_id(fire);
  int r = 0;
  chime__mem_lock(s);
  mem_checkpoint *c = chime__mem_map_get(&s->checkpoints, &id, sizeof id);
  void *copy = NULL;
  if (!c)
    r = CHIME_ENOTFOUND;
  else if (c->len && !(copy = malloc(c->len)))
    r = CHIME_ENOMEM;
  else if (c->len)
    memcpy(copy, c->data, c->len);
  size_t len = c ? c->len : 0;
  chime__mem_unlock(s);
  if (r == 0) {
    *ret_data = copy;
    *ret_len = len;
  }
  return r;
}

int chime__mem_shard_split(chime_store *store, const chime_fire *fire,
                           int *ret_total) {
  mem_store *s = (mem_store *)store;
  if (!fire || !chime__fire_splits(fire))
    return CHIME_EINVAL;
  /* One process is one node: a broadcast has one shard. */
  int total = fire->job->shard_count == CHIME_SHARDS_BROADCAST
                  ? 1
                  : fire->job->shard_count;
  int64_t now = store->ops->now(store);
  chime_trigger **ts = NULL;
  int r = chime__shard_triggers(fire, total, now, &ts);
  if (r < 0)
    return r;
  chime_fire *whole = calloc(1, sizeof *whole);
  if (whole && (!(whole->job = chime__job_copy(fire->job)) ||
                !(whole->trigger = chime__trigger_copy(fire->trigger)))) {
    chime__fire_free(whole);
    whole = NULL;
  }
  if (!whole) {
    chime__shard_triggers_free(ts, total);
    return CHIME_ENOMEM;
  }
  whole->fire_id = fire->fire_id;
  whole->scheduled_ms = fire->scheduled_ms;
  whole->recovering = fire->recovering;
  chime__mem_lock(s);
  mem_fire *rec = running(s, fire);
  if (!rec)
    r = CHIME_ENOTOWNER;
  for (int i = 0; r == 0 && i < total; i++) {
    r = chime__mem_retry_insert(s, ts[i]); /* takes it */
    ts[i] = NULL;
  }
  if (r == 0) {
    rec->whole = whole;
    rec->split_ms = now;
    rec->shards_total = rec->shards_left = total;
    whole = NULL;
  }
  chime__mem_unlock(s);
  chime__shard_triggers_free(ts, total);
  chime__fire_free(whole);
  if (r == 0 && ret_total)
    *ret_total = total;
  return r;
}

/* Appends index to rec's list of failed shards while it stays short. */
static void note_failed(mem_fire *rec, int index) {
  size_t have = rec->failed_list ? strlen(rec->failed_list) : 0;
  if (have > 100)
    return;
  char *l = realloc(rec->failed_list, have + 16);
  if (!l)
    return;
  snprintf(l + have, 16, "%s%d", have ? "," : "", index);
  rec->failed_list = l;
}

void chime__mem_shard_end(mem_store *s, const chime_fire *fire,
                          const chime_run_result *outcome,
                          mem_shards_done *done) {
  MEM_ASSERT_LOCKED(s);
  memset(done, 0, sizeof *done);
  assert(fire->trigger && fire->trigger->shard_parent > 0);
  mem_fire *rec = chime__mem_fire_find(s, fire->trigger->shard_parent);
  if (!rec || !rec->whole || rec->shards_left <= 0)
    return; /* the sharded fire is gone (its trigger was removed) */
  if (outcome && outcome->error) {
    rec->shards_failed++;
    note_failed(rec, fire->trigger->shard_index);
  }
  if (--rec->shards_left > 0)
    return;
  char msg[sizeof done->message];
  chime__shards_message(msg, sizeof msg, rec->shards_total, rec->shards_failed,
                        rec->failed_list);
  int64_t now = s->base.ops->now(&s->base);
  chime_run_result whole = {.error = rec->shards_failed ? CHIME_EJOBFAILED : 0,
                            .message = msg,
                            .started_ms = rec->split_ms,
                            .finished_ms =
                                now < rec->split_ms ? rec->split_ms : now};
  chime__mem_history_record(s, rec->whole, &whole, false);
  /* The step after the batch (chime_job_set_shards_then), in the same
   * step as this completion; a then-job that is gone is skipped. */
  chime_trigger *then = NULL;
  if (chime__shards_then_trigger(rec->whole->job, rec->whole->fire_id, msg,
                                 &then) == 0 &&
      then)
    (void)chime__mem_retry_insert(s, then);
  done->whole = rec->whole;
  rec->whole = NULL;
  memcpy(done->message, msg, sizeof msg);
  done->info =
      (chime_shards_done){.fire_id = done->whole->fire_id,
                          .scheduled_ms = chime__fire_original_ms(done->whole),
                          .trigger_group = done->whole->trigger->group,
                          .trigger_name = done->whole->trigger->name,
                          .job_group = done->whole->job->group,
                          .job_name = done->whole->job->name,
                          .total = rec->shards_total,
                          .failed = rec->shards_failed,
                          .error = whole.error,
                          .message = done->message};
  free(rec->failed_list);
  rec->failed_list = NULL;
  chime__mem_fire_end(s, rec);
  chime__mem_fire_delete(s, rec);
}

/* Collects the waiting sharded fires whose job's (by_job) or trigger's key
 * is the one sought. */
typedef struct removed_scan {
  const char *key;
  size_t key_len;
  bool by_job;
  mem_fire **found;
  size_t n, cap;
  bool nomem;
} removed_scan;

static void scan_removed(void *value, void *arg) {
  mem_fire *rec = value;
  removed_scan *sc = arg;
  const char *k = sc->by_job ? rec->job_key : rec->key;
  size_t len = sc->by_job ? rec->job_key_len : rec->key_len;
  if (!rec->whole || len != sc->key_len || memcmp(k, sc->key, len) != 0)
    return;
  if (sc->n == sc->cap) {
    size_t cap = sc->cap ? sc->cap * 2 : 4;
    mem_fire **f = realloc(sc->found, cap * sizeof *f);
    if (!f) {
      sc->nomem = true;
      return;
    }
    sc->found = f;
    sc->cap = cap;
  }
  sc->found[sc->n++] = rec;
}

void chime__mem_shards_end_removed(mem_store *s, const char *key,
                                   size_t key_len, bool by_job) {
  MEM_ASSERT_LOCKED(s);
  removed_scan sc = {.key = key, .key_len = key_len, .by_job = by_job};
  chime__mem_map_each(&s->fires, scan_removed, &sc);
  const char *msg = by_job ? "job removed" : "trigger removed";
  int64_t now = s->base.ops->now(&s->base);
  for (size_t i = 0; i < sc.n; i++) {
    mem_fire *rec = sc.found[i];
    chime_run_result out = {.error = CHIME_ECANCELLED,
                            .status = "CANCELLED",
                            .message = msg,
                            .started_ms = rec->split_ms,
                            .finished_ms =
                                now < rec->split_ms ? rec->split_ms : now};
    chime__mem_history_record(s, rec->whole, &out, false);
    chime__fire_free(rec->whole);
    rec->whole = NULL;
    free(rec->failed_list);
    rec->failed_list = NULL;
    chime__mem_fire_end(s, rec);
    chime__mem_fire_delete(s, rec);
  }
  free(sc.found);
}

void chime__mem_shards_tell(mem_store *s, mem_shards_done *done) {
  assert(!chime__mem_locked(s));
  if (done->whole && s->on_shards_done)
    s->on_shards_done(s->shards_user_data, &done->info);
  chime__fire_free(done->whole);
  done->whole = NULL;
}
