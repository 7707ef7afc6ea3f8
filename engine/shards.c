/*
 * shards.c: the engine's side of sharded fires and checkpoints
 * (docs/batch.md): a worker that gets a sharded fire asks the store to
 * split it instead of running the job (the shards are fires of their own,
 * claimed by every capable node), the listener event when a sharded fire
 * as a whole is done, and the context calls a run uses to see its shard
 * and to keep and read its checkpoint.
 *
 * Threads: chime__shards_split runs on a worker; chime__on_shards_done on
 * the thread whose completion ended the last shard; the ctx calls on the
 * worker running the job.  None holds s->mu but chime__loop_wake's own.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chime__shards_split(chime_scheduler *s, chime_fire *fire) {
  assert(chime__fire_splits(fire) && !chime__mu_held(s));
  chime_store *st = s->store;
  int total = 0;
  int r = st->ops->shard_split ? st->ops->shard_split(st, fire, &total)
                               : CHIME_EUNSUPPORTED;
  for (long pause_ms = CHIME__RETRY_FIRST_MS;
       chime__store_transient(r) && pause_ms <= CHIME__RETRY_LAST_MS;
       pause_ms *= 2) {
    chime__sleep_ms(pause_ms);
    r = st->ops->shard_split(st, fire, &total);
  }
  if (r == 0) {
    chime__log(s, CHIME_LOG_DEBUG, "fire %lld of %s.%s split into %d shard(s)",
               (long long)fire->fire_id, fire->job->group, fire->job->name,
               total);
    chime__loop_wake(s); /* claim them now */
  } else if (r == CHIME_ENOTOWNER) {
    chime__fencing_refused(s, fire);
  } else {
    /* Not split: the fire is completed as failed, so it does not stay
     * EXECUTING (and block a FORBID job) for good. */
    char msg[160];
    snprintf(msg, sizeof msg, "could not split the fire into shards: %s",
             chime_strerror(r));
    chime__report_error(s, r, "splitting a sharded fire");
    int64_t now = st->ops->now(st);
    chime_run_result out = {
        .error = r, .message = msg, .started_ms = now, .finished_ms = now};
    (void)st->ops->complete(st, fire, &out);
  }
  chime__fire_free(fire);
}

void chime__on_shards_done(void *user_data, const chime_shards_done *done) {
  chime_scheduler *s = user_data;
  chime__alert a = {.trigger_group = done->trigger_group,
                    .trigger_name = done->trigger_name,
                    .job_group = done->job_group,
                    .job_name = done->job_name,
                    .fire_id = done->fire_id,
                    .misfire_policy = -1};
  char msg[256];
  snprintf(msg, sizeof msg, "sharded fire %lld of job %s.%s done: %s",
           (long long)done->fire_id, done->job_group, done->job_name,
           done->message ? done->message : "");
  chime__emit_alert(s, CHIME_EVENT_SHARDED_FIRE_DONE,
                    done->error ? CHIME_LOG_WARN : CHIME_LOG_INFO, NULL, &a,
                    done->error, msg);
  /* Its end may have unblocked a FORBID job's due triggers. */
  chime__loop_wake(s);
}

int chime_ctx_get_shard(const chime_ctx *ctx, int *ret_index, int *ret_total) {
  if (!ctx)
    return CHIME_EINVAL;
  const chime_trigger *t = ctx->fire->trigger;
  bool shard = t && t->shard_parent > 0;
  if (ret_index)
    *ret_index = shard ? t->shard_index : 0;
  if (ret_total)
    *ret_total = shard ? t->shard_total : 1;
  return shard ? 1 : 0;
}

const char *chime_ctx_get_shard_param(const chime_ctx *ctx) {
  return ctx && ctx->fire->trigger ? ctx->fire->trigger->shard_param : NULL;
}

int64_t chime_ctx_get_shard_fire_id(const chime_ctx *ctx) {
  if (!ctx)
    return 0;
  const chime_trigger *t = ctx->fire->trigger;
  return t && t->shard_parent > 0 ? t->shard_parent : ctx->fire->fire_id;
}

int chime_ctx_checkpoint(chime_ctx *ctx, const void *data, size_t len) {
  if (!ctx || !ctx->run || (!data && len > 0))
    return CHIME_EINVAL;
  if (len > CHIME_MAX_DATA_LEN)
    return CHIME_ELIMIT;
  chime_store *st = ctx->sched->store;
  if (!st->ops->checkpoint_set)
    return CHIME_EUNSUPPORTED;
  void *copy = len ? malloc(len) : NULL;
  if (len && !copy)
    return CHIME_ENOMEM;
  if (len)
    memcpy(copy, data, len);
  int r = st->ops->checkpoint_set(st, ctx->fire, data, len);
  if (r < 0) {
    free(copy);
    return r;
  }
  ctx->checkpointed = true;
  free(ctx->checkpoint);
  ctx->checkpoint = copy;
  ctx->checkpoint_len = len;
  ctx->checkpoint_loaded = true;
  ctx->checkpoint_exists = true;
  return 0;
}

int chime_ctx_checkpoint_get(chime_ctx *ctx, const void **ret_data,
                             size_t *ret_len) {
  if (!ctx || !ctx->run || !ret_data || !ret_len)
    return CHIME_EINVAL;
  if (!ctx->checkpoint_loaded) {
    chime_store *st = ctx->sched->store;
    void *data = NULL;
    size_t len = 0;
    int r = st->ops->checkpoint_get
                ? st->ops->checkpoint_get(st, ctx->fire, &data, &len)
                : CHIME_ENOTFOUND;
    if (r < 0 && r != CHIME_ENOTFOUND)
      return r;
    ctx->checkpoint = r == 0 ? data : NULL;
    ctx->checkpoint_len = r == 0 ? len : 0;
    ctx->checkpoint_loaded = true;
    ctx->checkpoint_exists = r == 0;
    /* A checkpoint read is this run's to delete when it completes. */
    ctx->checkpointed = ctx->checkpointed || r == 0;
  }
  *ret_data = ctx->checkpoint;
  *ret_len = ctx->checkpoint_len;
  /* A checkpoint may be empty (len 0): it is there all the same. */
  return ctx->checkpoint_exists ? 1 : 0;
}
