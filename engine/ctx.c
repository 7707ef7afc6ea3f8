/*
 * ctx.c: chime_ctx, what a job function (and the listeners of its run) see
 * of one run: the fire's keys, times and data, and the two calls back into
 * the scheduler (set the job's data, ask whether the fire is still ours).
 * A context also describes a misfired trigger to TRIGGER_MISFIRED
 * listeners; it then has no job record and no fire id.
 *
 * Threads: a context belongs to the thread running its job (a worker) or
 * its listener call, and lives on that thread's stack; nothing here takes
 * a lock.  chime_ctx_check_owned calls the store (without s->mu).
 */
#include "core/utf8.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* What every context holds: its scheduler and a fire with a trigger. */
#define CTX_VALID(ctx) ((ctx)->sched && (ctx)->fire && (ctx)->fire->trigger)

void chime__ctx_clear(chime_ctx *ctx) {
  assert(CTX_VALID(ctx));
  assert(ctx->set_data || (!ctx->data && ctx->data_len == 0));
  assert(!ctx->tx || ctx->tx_over);
  free(ctx->tx);
  ctx->tx = NULL;
  free(ctx->data);
  free(ctx->fail_message);
  free(ctx->checkpoint);
  ctx->checkpoint = NULL;
  chime__run_writes_free(ctx->writes);
  ctx->writes = NULL;
  ctx->writes_tail = NULL;
  ctx->data = NULL;
  ctx->fail_message = NULL;
}

chime_scheduler *chime_ctx_get_scheduler(const chime_ctx *ctx) {
  assert(!ctx || CTX_VALID(ctx));
  return ctx ? ctx->sched : NULL;
}

const char *chime_ctx_get_job_group(const chime_ctx *ctx) {
  if (!ctx)
    return NULL;
  assert(CTX_VALID(ctx));
  return ctx->fire->job ? ctx->fire->job->group : ctx->fire->trigger->job_group;
}

const char *chime_ctx_get_job_name(const chime_ctx *ctx) {
  if (!ctx)
    return NULL;
  assert(CTX_VALID(ctx));
  return ctx->fire->job ? ctx->fire->job->name : ctx->fire->trigger->job_name;
}

const char *chime_ctx_get_job_type(const chime_ctx *ctx) {
  return ctx && ctx->fire->job ? ctx->fire->job->type : NULL;
}

const char *chime_ctx_get_trigger_group(const chime_ctx *ctx) {
  return ctx ? ctx->fire->trigger->group : NULL;
}

const char *chime_ctx_get_trigger_name(const chime_ctx *ctx) {
  return ctx ? ctx->fire->trigger->name : NULL;
}

int64_t chime_ctx_get_scheduled_ms(const chime_ctx *ctx) {
  return ctx ? chime__fire_original_ms(ctx->fire) : CHIME_NO_FIRE_MS;
}

int chime_ctx_get_attempt(const chime_ctx *ctx) {
  return ctx ? chime__run_attempt(ctx->fire->trigger) : 0;
}

int64_t chime_ctx_get_fire_ms(const chime_ctx *ctx) {
  return ctx ? ctx->fire_ms : CHIME_NO_FIRE_MS;
}

int64_t chime_ctx_get_prev_fire_ms(const chime_ctx *ctx) {
  return ctx ? ctx->fire->trigger->state.prev_fire_ms : CHIME_NO_FIRE_MS;
}

int64_t chime_ctx_get_next_fire_ms(const chime_ctx *ctx) {
  return ctx ? ctx->fire->trigger->state.next_fire_ms : CHIME_NO_FIRE_MS;
}

int64_t chime_ctx_get_fire_id(const chime_ctx *ctx) {
  return ctx ? ctx->fire->fire_id : 0;
}

bool chime_ctx_is_recovering(const chime_ctx *ctx) {
  return ctx && ctx->fire->recovering;
}

/* A backfill fire's trigger lives in CHIME_BACKFILL_GROUP (backfill.c). */
bool chime_ctx_is_backfill(const chime_ctx *ctx) {
  return ctx && strcmp(ctx->fire->trigger->group, CHIME_BACKFILL_GROUP) == 0;
}

int64_t chime_ctx_get_times_triggered(const chime_ctx *ctx) {
  return ctx ? ctx->fire->trigger->state.times_triggered : 0;
}

const void *chime_ctx_get_job_data(const chime_ctx *ctx, size_t *ret_len) {
  const chime_job *job = ctx ? ctx->fire->job : NULL;
  if (ret_len)
    *ret_len = job ? job->data_len : 0;
  return job ? job->data : NULL;
}

const void *chime_ctx_get_data(const chime_ctx *ctx, size_t *ret_len) {
  if (ctx && ctx->fire->trigger->data_len > 0) {
    if (ret_len)
      *ret_len = ctx->fire->trigger->data_len;
    return ctx->fire->trigger->data;
  }
  return chime_ctx_get_job_data(ctx, ret_len);
}

int chime_ctx_set_job_data(chime_ctx *ctx, const void *data, size_t len) {
  if (!ctx || !ctx->fire->job || (!data && len > 0))
    return CHIME_EINVAL;
  assert(CTX_VALID(ctx) && chime__on_worker(ctx->sched));
  if (len > CHIME_MAX_DATA_LEN)
    return CHIME_ELIMIT;
  void *copy = NULL;
  if (len > 0) {
    copy = malloc(len);
    if (!copy)
      return CHIME_ENOMEM;
    memcpy(copy, data, len);
  }
  free(ctx->data);
  ctx->data = copy;
  ctx->data_len = len;
  ctx->set_data = true;
  return 0;
}

int chime_ctx_check_owned(chime_ctx *ctx) {
  if (!ctx || !ctx->fire->job)
    return CHIME_EINVAL;
  assert(CTX_VALID(ctx) && ctx->fire->fire_id > 0);
  assert(!chime__mu_held(ctx->sched));
  chime_store *st = ctx->sched->store;
  bool owned = false;
  int r = st->ops->still_owned(st, ctx->fire, &owned);
  if (r < 0) {
    chime__log(ctx->sched, CHIME_LOG_WARN,
               "cannot tell whether fire %lld is still owned: %s",
               (long long)ctx->fire->fire_id, chime_strerror(r));
    /* Every failure to ask is "cannot tell", never "taken over". */
    return r == CHIME_EBUSY ? CHIME_EBUSY : CHIME_ECONNECT;
  }
  return owned ? 1 : 0;
}

bool chime_ctx_is_still_owned(chime_ctx *ctx) {
  if (!ctx || !ctx->fire->job)
    return false;
  /* Conservative: true only when the store said the fire is this node's.
   * "Cannot tell" (an outage) is false, as "taken over" is: a caller about
   * to do something irreversible must not read an outage as "go ahead".
   * chime_ctx_check_owned tells the two apart. */
  return chime_ctx_check_owned(ctx) == 1;
}

int chime_ctx_fail(chime_ctx *ctx, const char *message) {
  if (!ctx || !ctx->fire->job)
    return CHIME_EINVAL;
  assert(CTX_VALID(ctx) && chime__on_worker(ctx->sched));
  if (!message)
    message = "job failed";
  /* Cut on a character boundary, invalid bytes replaced: the message goes
   * to the database, which takes only valid UTF-8. */
  char *copy = chime__utf8_sanitize(message, CHIME_MAX_DESCRIPTION_LEN);
  if (!copy)
    return CHIME_ENOMEM;
  free(ctx->fail_message);
  ctx->fail_message = copy;
  return 0;
}

bool chime_ctx_is_cancelled(const chime_ctx *ctx) {
  assert(!ctx || CTX_VALID(ctx));
  if (!ctx || !ctx->fire || !ctx->fire->job)
    return false;
  if (ctx->run && chime__run_why(ctx->run) != CHIME__CANCEL_NONE)
    return true;
  if (!atomic_load(&ctx->sched->cancelled))
    return false;
  /* The job now knows its node is stopping: if it returns, its run was
   * cut short (workers.c). */
  if (ctx->run)
    atomic_store(&ctx->run->saw_stop, true);
  return true;
}

int chime_ctx_wait_cancelled(chime_ctx *ctx, int64_t timeout_ms) {
  if (!ctx || !ctx->fire->job || !ctx->run || timeout_ms < 0 ||
      timeout_ms > CHIME__MAX_WAIT_MS)
    return CHIME_EINVAL;
  assert(CTX_VALID(ctx) && chime__on_worker(ctx->sched));
  return chime__runs_wait(ctx->sched, ctx->run, timeout_ms) ? 1 : 0;
}
