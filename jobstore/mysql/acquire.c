/*
 * mysql/acquire.c: claiming fires in the MySQL store (store.h):
 *   - acquire claims due WAITING triggers in one transaction with
 *     SELECT ... FOR UPDATE SKIP LOCKED (no global lock row: nodes never
 *     wait for each other), inserts their fired rows, whose AUTO_INCREMENT
 *     ids are the fire ids, and marks the triggers ACQUIRED by this node
 *     for that fire id (mysql/fire.c fires them later);
 *   - acquire_due does the same for triggers due now and fires them in the
 *     same transaction: the fired rows are inserted EXECUTING and the
 *     triggers get their next fire time at once, so the common case costs
 *     one transaction instead of two and never passes through ACQUIRED;
 *   - release returns unfired claims.
 * A FORBID job: its row is locked, and none of its triggers is claimed
 * while it has a fired row (claimed or executing) or a claim in the batch.
 */
#include "jobstore/mysql/mysql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- acquire */

typedef struct acq_job {
  chime_job *job;
  bool claimed; /* a FORBID job claimed in this batch */
  bool skip;    /* a FORBID job with fires elsewhere */
} acq_job;

typedef struct acq_op {
  int64_t now, nlt;
  size_t max;
  const chime_type_set *types;
  bool fire_now; /* acquire_due */
  chime_fire **out;
  size_t n;
  acq_job *jobs;
  size_t njobs;
  /* The claims of an attempt that failed: a lost connection may have lost
   * the reply to a COMMIT that happened.  A retry of acquire releases
   * them; a retry of acquire_due finds them fired and hands them out. */
  chime_fire **prev;
  size_t nprev;
} acq_op;

/* Locks up to op->max due WAITING triggers of the types, oldest first
 * (then by priority), passing over those other nodes hold.  A text
 * statement: it changes with the type list, so a prepared one would be
 * prepared anew each time. */
static int select_due(my_tx *tx, const acq_op *op, my_rows *rows) {
  my_buf b;
  chime__my_buf_init(&b, tx);
  chime__my_buf_sql(&b, "SELECT " MY_TRIGGER_COLS " FROM {P}triggers WHERE "
                        "sched_name = ");
  chime__my_buf_str(&b, tx->s->sched);
  chime__my_buf_sql(&b, " AND state = 'WAITING' AND next_fire_ms <= ");
  chime__my_buf_int(&b, op->nlt);
  /* Misfired ones wait for the misfire scan, unless they ignore misfires. */
  chime__my_buf_sql(&b, " AND (next_fire_ms > ");
  chime__my_buf_int(&b, op->now - tx->s->threshold_ms);
  chime__my_buf_sql(&b, " OR misfire = 1)");
  chime__my_buf_types(&b, op->types);
  chime__my_buf_sql(&b, " ORDER BY next_fire_ms, priority DESC, "
                        "trigger_group, trigger_name LIMIT ");
  chime__my_buf_int(&b, (int64_t)op->max);
  chime__my_buf_sql(&b, " FOR UPDATE SKIP LOCKED");
  int r = chime__my_buf_run(&b, rows, NULL);
  chime__my_buf_free(&b);
  return r;
}

static void free_fires(chime_fire **fires, size_t n) {
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
}

/* Before a retry: the failed attempt's claims join those of earlier
 * failed attempts (op->prev), which the retry settles first. */
static void acq_reset(void *arg) {
  acq_op *op = arg;
  chime_fire **all = op->n ? realloc(op->prev, (op->nprev + op->n) *
                                                   sizeof *all)
                           : op->prev;
  if (all) {
    op->prev = all;
    memcpy(op->prev + op->nprev, op->out, op->n * sizeof *op->out);
    op->nprev += op->n;
  } else {
    /* No memory to remember them: they can only be dropped (a claim
     * left behind is released by the dead-node path at the latest). */
    for (size_t i = 0; i < op->n; i++)
      chime__fire_free(op->out[i]);
  }
  free(op->out);
  op->out = NULL;
  op->n = 0;
  for (size_t i = 0; i < op->njobs; i++)
    chime_job_free(op->jobs[i].job);
  op->njobs = 0;
}

/* Returns claim id to WAITING when it is an ACQUIRED fire of this node. */
static int release_id(my_tx *tx, int64_t id) {
  my_rows fr;
  int r = chime__my_fired_get(tx, id, &fr);
  if (r < 0)
    return r;
  if (fr.nrows && strcmp(chime__my_s(&fr, 0, FC_STATE), "ACQUIRED") == 0 &&
      strcmp(chime__my_s(&fr, 0, FC_NODE), tx->s->node) == 0) {
    my_arg a[] = {chime__my_text(tx->s->sched),
                  chime__my_text(chime__my_s(&fr, 0, FC_TG)),
                  chime__my_text(chime__my_s(&fr, 0, FC_TN)),
                  chime__my_int(id)};
    r = chime__my_exec(tx, Q_TRIG_UNCLAIM, NULL, a, 4, NULL, NULL);
    if (r == 0)
      r = chime__my_exec(tx, Q_FIRED_DELETE, NULL, &a[3], 1, NULL, NULL);
  }
  chime__my_rows_free(&fr);
  return r;
}

/* Whether fire id is EXECUTING by this node: acquire_due committed it. */
static int fired_here(my_tx *tx, int64_t id, bool *ret) {
  my_rows fr;
  int r = chime__my_fired_get(tx, id, &fr);
  *ret = r == 0 && fr.nrows > 0 &&
         strcmp(chime__my_s(&fr, 0, FC_NODE), tx->s->node) == 0 &&
         strcmp(chime__my_s(&fr, 0, FC_STATE), "EXECUTING") == 0;
  chime__my_rows_free(&fr);
  return r;
}

/* A retry settles the claims of the failed attempts first: acquire
 * releases those that were committed after all (a COMMIT whose reply was
 * lost); acquire_due hands out those it fired (*ret_done: they are this
 * attempt's result).  An attempt that failed before its INSERT left fire
 * id 0. */
static int settle_prev(my_tx *tx, acq_op *op, bool *ret_done) {
  int r = 0;
  *ret_done = false;
  for (size_t i = 0; r == 0 && i < op->nprev; i++) {
    chime_fire *f = op->prev[i];
    bool fired = false;
    if (!f || f->fire_id == 0)
      continue;
    if (!op->fire_now) {
      r = release_id(tx, f->fire_id);
    } else if ((r = fired_here(tx, f->fire_id, &fired)) == 0 && fired &&
               op->n == op->max) {
      /* Two lost COMMIT replies in a row, more fires than workers: this
       * one stays EXECUTING until this node's row goes away. */
      chime__my_log(tx->s, CHIME_LOG_ERROR,
                    "fire %lld was fired by an attempt whose reply was lost "
                    "and cannot be run now", (long long)f->fire_id);
    } else if (r == 0 && fired) {
      chime_fire **out = realloc(op->out, (op->n + 1) * sizeof *out);
      if (!out)
        return CHIME_ENOMEM;
      op->out = out;
      op->out[op->n++] = f;
      op->prev[i] = NULL;
    }
  }
  if (r < 0)
    return r;
  for (size_t i = 0; i < op->nprev; i++)
    chime__fire_free(op->prev[i]);
  op->nprev = 0;
  *ret_done = op->n > 0;
  return 0;
}

/* The batch's entry for the trigger's job (loaded and checked once). */
static int acq_job_for(my_tx *tx, acq_op *op, const chime_trigger *t,
                       acq_job **ret) {
  for (size_t i = 0; i < op->njobs; i++) {
    chime_job *j = op->jobs[i].job;
    if (strcmp(j->group, t->job_group) == 0 &&
        strcmp(j->name, t->job_name) == 0) {
      *ret = &op->jobs[i];
      return 0;
    }
  }
  acq_job *e = &op->jobs[op->njobs];
  memset(e, 0, sizeof *e);
  int r = chime__my_job_load(tx, t->job_group, t->job_name, false, &e->job,
                             NULL);
  if (r == 0 && e->job->concurrency == CHIME_CONCURRENCY_FORBID) {
    /* Lock the job row, then look for its fires: one claim at a time. */
    chime_job_free(e->job);
    e->job = NULL;
    r = chime__my_job_load(tx, t->job_group, t->job_name, true, &e->job, NULL);
    my_arg a[] = {chime__my_text(tx->s->sched), chime__my_text(t->job_group),
                  chime__my_text(t->job_name)};
    my_rows rows;
    if (r == 0 && (r = chime__my_query(tx, Q_JOB_HAS_FIRES, NULL, a, 3,
                                       &rows)) == 0) {
      e->skip = rows.nrows > 0;
      chime__my_rows_free(&rows);
    }
  }
  if (r < 0) {
    chime_job_free(e->job);
    return r;
  }
  op->njobs++;
  *ret = e;
  return 0;
}

/* Claims the trigger of row i.  *ret_fire is NULL when it is passed over. */
static int claim(my_tx *tx, acq_op *op, const my_rows *rows, size_t i,
                 chime_fire **ret_fire) {
  chime_trigger *t;
  acq_job *aj = NULL;
  *ret_fire = NULL;
  int r = chime__my_row_trigger(rows, i, &t);
  if (r == 0 && (r = acq_job_for(tx, op, t, &aj)) == 0 &&
      (aj->skip || aj->claimed)) {
    chime_trigger_free(t);
    return 0;
  }
  if (r < 0) {
    chime_trigger_free(t);
    return r;
  }
  const chime_job *j = aj->job;
  bool recovering = chime__my_i(rows, i, MY_TC_RECOVERING) != 0;
  /* The fired rows are inserted together (insert_fired). */
  chime_fire *f = calloc(1, sizeof *f);
  if (!f || !(f->job = chime__job_copy(j))) {
    chime__fire_free(f);
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  f->scheduled_ms = recovering && chime__my_s(rows, i, MY_TC_RECOVER_MS)
                        ? chime__my_i(rows, i, MY_TC_RECOVER_MS)
                        : t->state.next_fire_ms;
  t->store_state = CHIME_STATE_ACQUIRED;
  f->trigger = t;
  f->phase = CHIME_FIRE_ACQUIRED;
  f->recovering = recovering;
  aj->claimed = j->concurrency == CHIME_CONCURRENCY_FORBID;
  *ret_fire = f;
  return 0;
}

/* Marks the triggers of fires[0 .. n) ACQUIRED by their fired rows. */
static int mark_claimed(my_tx *tx, chime_fire **fires, size_t n) {
  my_buf b;
  chime__my_buf_init(&b, tx);
  chime__my_buf_sql(&b,
      "UPDATE {P}triggers t JOIN {P}fired f FORCE INDEX (PRIMARY) ON "
      "f.sched_name = t.sched_name "
      "AND f.trigger_group = t.trigger_group AND f.trigger_name = "
      "t.trigger_name SET t.state = 'ACQUIRED', t.owner = f.node, "
      "t.claim_fire_id = f.fire_id WHERE f.fire_id IN ");
  chime__my_buf_ids(&b, fires, n);
  int r = chime__my_buf_run(&b, NULL, NULL);
  chime__my_buf_free(&b);
  return r;
}

/* acquire_due: the bookkeeping of each claim's fire, then the batch's
 * writes: fired rows EXECUTING, FORBID jobs blocked, triggers advanced. */
static int fire_claims(my_tx *tx, acq_op *op) {
  my_cache cache = {0};
  chime_trigger **ts = calloc(op->n, sizeof *ts);
  const chime_job **js = calloc(op->n, sizeof *js);
  int r = ts && js ? 0 : CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < op->n; i++) {
    chime_fire *f = op->out[i];
    ts[i] = f->trigger;
    js[i] = f->job;
    r = chime__my_fire_bookkeeping(tx, &cache, f->trigger, f->job);
    f->phase = CHIME_FIRE_EXECUTING;
  }
  if (r == 0)
    r = chime__my_fired_insert(tx, op->out, op->n, op->now, true);
  if (r == 0)
    r = chime__my_block_jobs(tx, js, op->n);
  if (r == 0)
    r = chime__my_triggers_write(tx, ts, js, op->n);
  chime__my_cache_clear(&cache);
  free(ts);
  free(js);
  return r;
}

static int acquire_fn(my_tx *tx, void *arg) {
  acq_op *op = arg;
  bool done = false;
  int r = op->nprev ? settle_prev(tx, op, &done) : 0;
  if (r < 0 || done)
    return r;
  my_rows rows = {0};
  r = select_due(tx, op, &rows);
  if (r == 0 && rows.nrows > 0) {
    op->out = calloc(rows.nrows, sizeof *op->out);
    op->jobs = realloc(op->jobs, rows.nrows * sizeof *op->jobs);
    if (!op->out || !op->jobs)
      r = CHIME_ENOMEM;
  }
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    chime_fire *f;
    r = claim(tx, op, &rows, i, &f);
    if (r == 0 && f)
      op->out[op->n++] = f;
  }
  if (r == 0 && op->n > 0 && op->fire_now) {
    r = fire_claims(tx, op);
  } else if (r == 0 && op->n > 0) {
    r = chime__my_fired_insert(tx, op->out, op->n, op->now, false);
    if (r == 0)
      r = mark_claimed(tx, op->out, op->n);
  }
  chime__my_rows_free(&rows);
  return r;
}

static int run_acquire(chime_store *store, acq_op *op,
                       chime_fire ***ret_fires, size_t *ret_count) {
  if (!ret_fires || !ret_count)
    return CHIME_EINVAL;
  int r = 0;
  if (op->max > 0 && (!op->types || op->types->count > 0))
    r = chime__my_run((my_store *)store, acquire_fn, acq_reset, op, NULL, 0);
  for (size_t i = 0; i < op->njobs; i++)
    chime_job_free(op->jobs[i].job);
  free(op->jobs);
  free_fires(op->prev, op->nprev);
  if (r < 0) {
    free_fires(op->out, op->n);
    return r;
  }
  *ret_fires = op->out;
  *ret_count = op->n;
  return 0;
}

int chime__my_acquire(chime_store *store, int64_t now_ms,
                      int64_t no_later_than_ms, size_t max,
                      const chime_type_set *types, chime_fire ***ret_fires,
                      size_t *ret_count) {
  acq_op op = {.now = now_ms, .nlt = no_later_than_ms, .max = max,
               .types = types};
  return run_acquire(store, &op, ret_fires, ret_count);
}

int chime__my_acquire_due(chime_store *store, int64_t now_ms, size_t max,
                          const chime_type_set *types,
                          chime_fire ***ret_fires, size_t *ret_count) {
  acq_op op = {.now = now_ms, .nlt = now_ms, .max = max, .types = types,
               .fire_now = true};
  return run_acquire(store, &op, ret_fires, ret_count);
}

/* -------------------------------------------------------------- release */

typedef struct release_op {
  chime_fire **fires;
  size_t count;
} release_op;

static int release_fn(my_tx *tx, void *arg) {
  release_op *op = arg;
  int r = 0;
  for (size_t i = 0; r == 0 && i < op->count; i++)
    if (op->fires[i])
      r = release_id(tx, op->fires[i]->fire_id);
  return r;
}

int chime__my_release(chime_store *store, chime_fire **fires, size_t count) {
  if (!fires && count > 0)
    return CHIME_EINVAL;
  if (count == 0)
    return 0;
  release_op op = {.fires = fires, .count = count};
  return chime__my_run((my_store *)store, release_fn, NULL, &op, NULL, 0);
}
