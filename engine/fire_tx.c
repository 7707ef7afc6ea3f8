/*
 * fire_tx.c: transactional completion, the engine's side of
 * include/chime-mysql.h.  A job begins a transaction on its running fire
 * through the store (store.h's fire_tx_*: the engine writes no SQL), runs
 * its statements in it, and commits it together with the fire's
 * completion; the worker then skips its own completion (ctx->completed).
 * A transaction the job left open is rolled back when it returns
 * (chime__ctx_tx_end).
 *
 * A job may instead give statements to its fire's completion
 * (chime_ctx_complete_with): they are copied into the run's context,
 * handed with its outcome to the store (chime_run_result.writes) and run
 * in whichever transaction completes the fire: the completer's batch
 * (jobstore/mysql/complete.c), or the job's own at its commit.
 *
 * Threads: everything here runs on the worker running the job, on its
 * context; nothing takes a lock (the store's transaction is the worker's
 * alone, and the store takes its pool's lock for the connection).
 */
#include "chime-config.h"
#include "engine/engine.h"

#if CHIME_HAVE_MYSQL
#include "chime-mysql.h"
#endif

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chime_mysql_tx {
  chime_ctx *ctx;
  chime_store_tx *stx; /* NULL: not open */
  bool doomed;         /* a statement failed: commit rolls back */
  bool enqueued;       /* a run was enqueued: wake the loop at commit */
  char errmsg[512];
};

void chime__ctx_tx_end(chime_ctx *ctx) {
  assert(ctx && ctx->sched && chime__on_worker(ctx->sched));
  ctx->tx_over = true;
  struct chime_mysql_tx *tx = ctx->tx;
  if (!tx || !tx->stx)
    return;
  chime_store *st = ctx->sched->store;
  chime__log(ctx->sched, CHIME_LOG_WARN,
             "fire %lld: the job returned with its transaction open; it was "
             "rolled back",
             (long long)ctx->fire->fire_id);
  st->ops->fire_tx_rollback(tx->stx);
  tx->stx = NULL;
}

void chime__run_writes_free(chime_run_write *w) {
  while (w) {
    chime_run_write *next = w->next;
    for (size_t i = 0; i < w->nparams; i++)
      free(w->params[i]);
    free(w->sql);
    free(w);
    w = next;
  }
}

#if CHIME_HAVE_MYSQL

/* The calling thread runs ctx's job now. */
static bool in_run(const chime_ctx *ctx) {
  return ctx && ctx->sched && ctx->fire && ctx->fire->job &&
         ctx->fire->fire_id > 0 && chime__on_worker(ctx->sched) &&
         !ctx->tx_over;
}

/* Calls on tx come from the worker running its job, during the job. */
static bool on_its_worker(const chime_mysql_tx *tx) {
  assert(tx->ctx && tx->ctx->sched);
  return chime__on_worker(tx->ctx->sched) && !tx->ctx->tx_over;
}

/* The checks of a call on an open transaction: 0, or its error (the
 * message in tx->errmsg, emptied otherwise). */
static int open_call(chime_mysql_tx *tx) {
  if (!tx)
    return CHIME_EINVAL;
  if (!on_its_worker(tx))
    return CHIME_ESTATE;
  tx->errmsg[0] = '\0';
  if (!tx->stx) {
    snprintf(tx->errmsg, sizeof tx->errmsg, "the transaction is not open");
    return CHIME_ESTATE;
  }
  return 0;
}

int chime_mysql_tx_begin(chime_ctx *ctx, chime_mysql_tx **ret_tx) {
  if (ret_tx)
    *ret_tx = NULL;
  if (!ret_tx || !in_run(ctx))
    return CHIME_EINVAL;
  if (ctx->completed || (ctx->tx && ctx->tx->stx))
    return CHIME_ESTATE;
  chime_store *st = ctx->sched->store;
  if (!st->ops->fire_tx_begin)
    return CHIME_EUNSUPPORTED;
  if (!ctx->tx) {
    if (!(ctx->tx = calloc(1, sizeof *ctx->tx)))
      return CHIME_ENOMEM;
    ctx->tx->ctx = ctx;
  }
  chime_mysql_tx *tx = ctx->tx;
  tx->doomed = false;
  tx->enqueued = false;
  tx->errmsg[0] = '\0';
  int r = st->ops->fire_tx_begin(st, ctx->fire, &tx->stx, tx->errmsg,
                                 sizeof tx->errmsg);
  assert((r == 0) == (tx->stx != NULL));
  if (r == CHIME_EUNSUPPORTED)
    return r;
  *ret_tx = tx; /* on failure too: its message */
  return r;
}

MYSQL *chime_mysql_tx_get_conn(chime_mysql_tx *tx) {
  if (!tx || !tx->stx)
    return NULL;
  chime_store *st = tx->ctx->sched->store;
  return st->ops->fire_tx_handle(tx->stx);
}

int chime_mysql_tx_execute(chime_mysql_tx *tx, const char *sql,
                           const char *const *params, size_t nparams,
                           uint64_t *ret_affected) {
  int refused = open_call(tx);
  if (refused < 0)
    return refused;
  if (!sql || (!params && nparams > 0)) {
    snprintf(tx->errmsg, sizeof tx->errmsg,
             "no statement, or parameters missing");
    return CHIME_EINVAL;
  }
  chime_store *st = tx->ctx->sched->store;
  int r = st->ops->fire_tx_execute(tx->stx, sql, params, nparams, ret_affected,
                                   tx->errmsg, sizeof tx->errmsg);
  if (r < 0)
    tx->doomed = true;
  return r;
}

int chime_mysql_tx_commit(chime_mysql_tx *tx) {
  if (!tx)
    return CHIME_EINVAL;
  if (!on_its_worker(tx))
    return CHIME_ESTATE;
  chime_ctx *ctx = tx->ctx;
  tx->errmsg[0] = '\0';
  if (!tx->stx) {
    snprintf(tx->errmsg, sizeof tx->errmsg, "the transaction is not open");
    return CHIME_ESTATE;
  }
  chime_store *st = ctx->sched->store;
  if (tx->doomed) {
    st->ops->fire_tx_rollback(tx->stx);
    tx->stx = NULL;
    snprintf(tx->errmsg, sizeof tx->errmsg,
             "a statement of the transaction failed: it was rolled back");
    return CHIME_ESTATE;
  }
  chime_run_result out = {
      .error = ctx->fail_message ? CHIME_EJOBFAILED : 0,
      .message = ctx->fail_message,
      .started_ms = ctx->fire_ms,
      .finished_ms = st->ops->now(st),
      .set_data = ctx->set_data,
      .data = ctx->data,
      .data_len = ctx->data_len,
      .writes = ctx->writes,
  };
  if (out.finished_ms < out.started_ms)
    out.finished_ms = out.started_ms;
  int r = st->ops->fire_tx_commit(tx->stx, &out, tx->errmsg, sizeof tx->errmsg);
  tx->stx = NULL;
  if (r == 0 && tx->enqueued)
    chime__loop_wake(ctx->sched);
  tx->enqueued = false;
  if (r == 0)
    ctx->completed = true;
  else if (r == CHIME_ENOTOWNER)
    chime__log(ctx->sched, CHIME_LOG_WARN,
               "fire %lld of trigger %s.%s was taken over by another node; "
               "its transaction was rolled back",
               (long long)ctx->fire->fire_id, ctx->fire->trigger->group,
               ctx->fire->trigger->name);
  return r;
}

int chime_mysql_tx_enqueue(chime_mysql_tx *tx, const char *group,
                           const char *name, const chime_enqueue *opts,
                           char *ret_run, size_t run_len) {
  int refused = open_call(tx);
  if (refused < 0)
    return refused;
  if (ret_run && run_len == 0) {
    snprintf(tx->errmsg, sizeof tx->errmsg, "run_len 0");
    return CHIME_EINVAL;
  }
  chime_scheduler *s = tx->ctx->sched;
  chime_trigger *t = NULL;
  int r = chime__key_check(group, name);
  if (r < 0) {
    snprintf(tx->errmsg, sizeof tx->errmsg, "an invalid job key");
    return r;
  }
  r = chime__enqueue_trigger(group, name, opts,
                             atomic_fetch_add(&s->manual_seq, 1), &t,
                             tx->errmsg, sizeof tx->errmsg);
  if (r < 0)
    return r;
  bool existed = false;
  r = s->store->ops->fire_tx_enqueue(tx->stx, &t, 1, &existed, tx->errmsg,
                                     sizeof tx->errmsg);
  if (r == 0 && ret_run &&
      (size_t)snprintf(ret_run, run_len, "%s", t->name) >= run_len)
    r = CHIME_ELIMIT; /* enqueued all the same */
  chime_trigger_free(t);
  if (r < 0 && r != CHIME_ELIMIT)
    tx->doomed = true;
  if (r < 0)
    return r;
  tx->enqueued = true;
  return existed ? CHIME_ENQUEUE_EXISTED : 0;
}

int chime_mysql_tx_rollback(chime_mysql_tx *tx) {
  int refused = open_call(tx);
  if (refused < 0)
    return refused;
  chime_store *st = tx->ctx->sched->store;
  st->ops->fire_tx_rollback(tx->stx);
  tx->stx = NULL;
  tx->enqueued = false;
  return 0;
}

/* A copy of sql and params[0 .. nparams), or NULL (no memory). */
static chime_run_write *
run_write_new(const char *sql, const char *const *params, size_t nparams) {
  chime_run_write *w = calloc(1, sizeof *w + nparams * sizeof w->params[0]);
  if (!w)
    return NULL;
  w->nparams = nparams;
  bool ok = (w->sql = strdup(sql)) != NULL;
  for (size_t i = 0; ok && i < nparams; i++)
    ok = !params[i] || (w->params[i] = strdup(params[i])) != NULL;
  if (!ok) {
    chime__run_writes_free(w);
    return NULL;
  }
  return w;
}

int chime_ctx_complete_with(chime_ctx *ctx, const char *sql,
                            const char *const *params, size_t nparams) {
  if (!sql || (!params && nparams > 0) || !in_run(ctx))
    return CHIME_EINVAL;
  if (!ctx->sched->store->ops->fire_tx_execute) /* no transactions */
    return CHIME_EUNSUPPORTED;
  if (ctx->completed)
    return CHIME_ESTATE;
  chime_run_write *w = run_write_new(sql, params, nparams);
  if (!w)
    return CHIME_ENOMEM;
  if (!ctx->writes_tail)
    ctx->writes_tail = &ctx->writes;
  *ctx->writes_tail = w;
  ctx->writes_tail = &w->next;
  return 0;
}

const char *chime_mysql_tx_errmsg(const chime_mysql_tx *tx) {
  return tx ? tx->errmsg : "";
}

#endif /* CHIME_HAVE_MYSQL */
