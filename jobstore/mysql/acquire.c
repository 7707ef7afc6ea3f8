/*
 * mysql/acquire.c: claiming fires in the MySQL store (store.h):
 *   - acquire claims due WAITING triggers in one transaction with
 *     SELECT ... FOR UPDATE SKIP LOCKED (no global lock row: nodes never
 *     wait for each other), inserts their fired rows, whose AUTO_INCREMENT
 *     ids are the fire ids, and marks the triggers ACQUIRED by this node
 *     for that fire id (mysql/fire.c fires them later);
 *   - acquire_due does the same and fires them in the same transaction
 *     (those due a little later too: the engine starts them on time): the
 *     fired rows are inserted EXECUTING and the triggers get their next
 *     fire time at once, so the common case costs one transaction instead
 *     of two and never passes through ACQUIRED;
 *   - release returns unfired claims.
 * A FORBID job: its row is locked (SKIP LOCKED: a row another session
 * holds passes the job over this time), and none of its triggers is
 * claimed while it has a fired row (claimed or executing) or a claim in
 * the batch.
 * A limited job type (limit.c): its limit row is locked after the trigger
 * and job rows (SKIP LOCKED too), and a fire over the limit is passed
 * over and stays WAITING; when a whole type was passed over, a second
 * look fills the batch past that type's fires, so that a long queue of a
 * limited type never holds up the fires of other types.  A limited
 * type's fires are selected however late they are: the misfire scan
 * passes them over (late, not misfired).
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/batch.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/limit.h"
#include "jobstore/mysql/runs.h"
#include "jobstore/mysql/shards.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- acquire */

typedef struct acq_job {
  chime_job *job;
  bool claimed; /* a FORBID job claimed in this batch */
  bool skip;    /* a FORBID job with fires elsewhere */
} acq_job;

/* The sharded fires whose shards this batch claims, with how many more
 * this node may take (chime__mysql_shard_room). */
typedef struct acq_parent {
  int64_t fire_id;
  int room;
} acq_parent;

typedef struct acq_op {
  int64_t now, nlt;
  size_t max;
  const chime_type_set *types;
  bool fire_now; /* acquire_due */
  chime_fire **out;
  size_t n, out_cap; /* out has its own capacity: a retry starts it anew */
  acq_job *jobs;
  size_t njobs, jobs_cap;
  acq_parent *parents; /* one per row at most, like jobs */
  size_t nparents;
  /* The claims of an attempt that failed: a lost connection may have lost
   * the reply to a COMMIT that happened.  A retry of acquire releases
   * them; a retry of acquire_due finds them fired and hands them out. */
  chime_fire **prev;
  size_t nprev;
  chime__mysql_limits limits; /* the limited types met by this attempt */
} acq_op;

/* Locks up to op->max due WAITING triggers of the types, oldest first
 * (then by priority), passing over those other nodes hold.  A text
 * statement: it changes with the type list, so a prepared one would be
 * prepared anew each time. */
static int select_due(chime__mysql_tx *tx, const acq_op *op,
                      const chime__mysql_rows *first, size_t max,
                      chime__mysql_rows *rows) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_CLAIM_DUE);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "due_by");
  chime__mysql_sqlbuf_int(&b, op->nlt);
  /* Misfired ones wait for the misfire scan, unless they ignore misfires. */
  chime__mysql_sqlbuf_at(&b, "misfired_before");
  chime__mysql_sqlbuf_int(&b, op->now - tx->s->threshold_ms);
  /* limited: late, never misfired */
  chime__mysql_sqlbuf_part(&b, "limited", tx->s->nlimited > 0);
  if (tx->s->nlimited > 0)
    chime__mysql_sqlbuf_limited(&b);
  chime__mysql_sqlbuf_types(&b, op->types);
  chime__mysql_sqlbuf_tags(&b, tx->s->tags);
  chime__mysql_sqlbuf_part(&b, "second_look", first != NULL);
  if (first) {
    /* The second look: past the types found full and the first look's
     * rows (this transaction holds them: they would come again). */
    chime__mysql_sqlbuf_full(&b, &op->limits);
    assert(first->nrows > 0);
    for (size_t i = 0; i < first->nrows; i++) {
      chime__mysql_sqlbuf_row(&b, "held");
      chime__mysql_sqlbuf_at(&b, "group");
      chime__mysql_sqlbuf_text(
          &b, chime__mysql_rows_text(first, i, CHIME__TRIG_COL_GROUP));
      chime__mysql_sqlbuf_at(&b, "name");
      chime__mysql_sqlbuf_text(
          &b, chime__mysql_rows_text(first, i, CHIME__TRIG_COL_NAME));
    }
  }
  chime__mysql_sqlbuf_at(&b, "max");
  chime__mysql_sqlbuf_int(&b, (int64_t)max);
  return chime__mysql_sqlbuf_run(&b, rows, NULL);
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
  chime_fire **all =
      op->n ? realloc(op->prev, (op->nprev + op->n) * sizeof *all) : op->prev;
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
  op->out_cap = 0;
  for (size_t i = 0; i < op->njobs; i++)
    chime_job_free(op->jobs[i].job);
  op->njobs = 0;
  op->nparents = 0;
  chime__mysql_limits_clear(&op->limits);
}

/* Returns claim id to WAITING when it is an ACQUIRED fire of this node. */
static int release_id(chime__mysql_tx *tx, int64_t id) {
  chime__mysql_rows fr;
  int r = chime__mysql_fired_get(tx, id, &fr);
  if (r < 0)
    return r;
#define TEXT(id) chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_##id)
  if (fr.nrows && strcmp(TEXT(STATE), "ACQUIRED") == 0 &&
      strcmp(TEXT(NODE), tx->s->node) == 0)
    r = chime__mysql_claim_return(tx, TEXT(TRIGGER_GROUP), TEXT(TRIGGER_NAME),
                                  id);
#undef TEXT
  chime__mysql_rows_free(&fr);
  return r;
}

/* Whether fire id is EXECUTING by this node: acquire_due committed it. */
static int fired_here(chime__mysql_tx *tx, int64_t id, bool *ret) {
  chime__mysql_rows fr;
  int r = chime__mysql_fired_get(tx, id, &fr);
  *ret = r == 0 && fr.nrows > 0 &&
         strcmp(chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_NODE),
                tx->s->node) == 0 &&
         strcmp(chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_STATE),
                "EXECUTING") == 0;
  chime__mysql_rows_free(&fr);
  return r;
}

/* A retry settles the claims of the failed attempts first: acquire
 * releases those that were committed after all (a COMMIT whose reply was
 * lost); acquire_due hands out those it fired (*ret_done: they are this
 * attempt's result).  An attempt that failed before its INSERT left fire
 * id 0. */
static int settle_prev(chime__mysql_tx *tx, acq_op *op, bool *ret_done) {
  assert(op->nprev > 0 && op->n == 0 && !op->out); /* after acq_reset */
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
      chime__mysql_log(tx->s, CHIME_LOG_ERROR,
                       "fire %lld was fired by an attempt whose reply was lost "
                       "and cannot be run now",
                       (long long)f->fire_id);
    } else if (r == 0 && fired) {
      chime_fire **out = realloc(op->out, (op->n + 1) * sizeof *out);
      if (!out)
        return CHIME_ENOMEM;
      op->out = out;
      op->out_cap = op->n + 1;
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

/* Locks the row of FORBID job g.n unless another session holds it
 * (*ret_locked false): a node frozen in a transaction must not stall the
 * claims of every other trigger in the batch (SKIP LOCKED, as for the
 * triggers).  One text round trip. */
static int lock_job_row(chime__mysql_tx *tx, const char *g, const char *n,
                        bool *ret_locked) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_CLAIM_JOB_LOCK);
  chime__mysql_sqlbuf_key(&b, tx->s->sched, g, n);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r == 0)
    *ret_locked = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return r;
}

/* Whether job g.n has a fire claimed or running: a fired row, or a run
 * kept in a trigger row (runs.c: claimed while the job's runs did not yet
 * exclude each other). */
static int job_has_fires(chime__mysql_tx *tx, const char *g, const char *n,
                         bool *ret) {
  chime__mysql_arg a[6];
  chime__mysql_key_args(tx, g, n, a);
  chime__mysql_key_args(tx, g, n, a + 3);
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_JOB_HAS_FIRES, a, 6, &rows);
  *ret = r == 0 && rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return r;
}

/* The batch's entry for the trigger's job (loaded and checked once). */
static int acq_job_for(chime__mysql_tx *tx, acq_op *op, const chime_trigger *t,
                       acq_job **ret) {
  for (size_t i = 0; i < op->njobs; i++) {
    chime_job *j = op->jobs[i].job;
    if (strcmp(j->group, t->job_group) == 0 &&
        strcmp(j->name, t->job_name) == 0) {
      *ret = &op->jobs[i];
      return 0;
    }
  }
  /* One entry per row of the batch at most. */
  assert(op->njobs < op->jobs_cap);
  acq_job *e = &op->jobs[op->njobs];
  memset(e, 0, sizeof *e);
  int r = chime__mysql_job_load(tx, t->job_group, t->job_name, false, &e->job,
                                NULL);
  if (r == 0 && chime__concurrency_exclusive(e->job->concurrency)) {
    /* Lock the job row, then look for its fires: one claim at a time.  A
     * row another session holds is passed over this time. */
    bool locked = false;
    r = lock_job_row(tx, t->job_group, t->job_name, &locked);
    if (r == 0 && locked) {
      chime_job_free(e->job);
      e->job = NULL;
      r = chime__mysql_job_load(tx, t->job_group, t->job_name, true, &e->job,
                                NULL);
    }
    if (r == 0 && locked)
      r = job_has_fires(tx, t->job_group, t->job_name, &e->skip);
    else if (r == 0)
      e->skip = true;
  }
  if (r < 0) {
    chime_job_free(e->job);
    return r;
  }
  op->njobs++;
  *ret = e;
  return 0;
}

/* A shard waiting this long is claimed past the fair share: its share's
 * node did not come for it (busy, slow, dead, or not polling).  Longer
 * than a node's lease, so that a loaded node keeps its share. */
static int64_t steal_after_ms(const chime__mysql_tx *tx) {
  return 3 * tx->s->checkin_interval_ms;
}

/* Whether this node takes shard trigger t (of job j) now: its sharded
 * fire's fair share has room (shards.c), or it waited long enough. */
static int shard_wanted(chime__mysql_tx *tx, acq_op *op, const chime_job *j,
                        const chime_trigger *t, bool *ret) {
  if (op->now - t->state.next_fire_ms > steal_after_ms(tx)) {
    *ret = true;
    return 0;
  }
  acq_parent *p = NULL;
  for (size_t k = 0; k < op->nparents && !p; k++)
    if (op->parents[k].fire_id == t->shard_parent)
      p = &op->parents[k];
  if (!p) {
    assert(op->nparents < op->jobs_cap);
    p = &op->parents[op->nparents];
    p->fire_id = t->shard_parent;
    int r = chime__mysql_shard_room(tx, j, t->shard_parent, &p->room);
    if (r < 0)
      return r;
    op->nparents++;
  }
  *ret = p->room > 0;
  if (*ret)
    p->room--;
  return 0;
}

/* Claims the trigger of row i.  *ret_fire is NULL when it is passed over. */
static int claim(chime__mysql_tx *tx, acq_op *op, const chime__mysql_rows *rows,
                 size_t i, chime_fire **ret_fire) {
  chime_trigger *t;
  acq_job *aj = NULL;
  bool wanted = true;
  *ret_fire = NULL;
  int r = chime__mysql_trigger_from_row(rows, i, &t);
  if (r == 0)
    r = acq_job_for(tx, op, t, &aj);
  /* A shard runs beside its siblings (its sharded fire blocks a FORBID
   * job), but each node takes its share. */
  if (r == 0 && t->shard_parent > 0)
    r = shard_wanted(tx, op, aj->job, t, &wanted);
  else if (r == 0)
    wanted = !aj->skip && !aj->claimed;
  if (r == 0 && wanted)
    r = chime__mysql_limit_admit(tx, &op->limits, aj->job, t, &wanted);
  if (r == 0 && !wanted) {
    chime_trigger_free(t);
    return 0;
  }
  if (r < 0) {
    chime_trigger_free(t);
    return r;
  }
  const chime_job *j = aj->job;
  /* Selected WAITING and locked: nobody changed it since. */
  assert(t->store_state == CHIME_STATE_WAITING);
  assert(strcmp(j->group, t->job_group) == 0 &&
         strcmp(j->name, t->job_name) == 0);
  bool recovering =
      chime__mysql_rows_int64(rows, i, CHIME__TRIG_COL_RECOVERING) != 0;
  /* The fired rows are inserted together (chime__mysql_fired_insert). */
  chime_fire *f = calloc(1, sizeof *f);
  if (!f || !(f->job = chime__job_copy(j))) {
    chime__fire_free(f);
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  f->scheduled_ms =
      recovering && !chime__mysql_rows_is_null(
                        rows, i, CHIME__TRIG_COL_RECOVER_SCHEDULED_MS)
          ? chime__mysql_rows_int64(rows, i,
                                    CHIME__TRIG_COL_RECOVER_SCHEDULED_MS)
          : t->state.next_fire_ms;
  t->store_state = CHIME_STATE_ACQUIRED;
  f->trigger = t;
  f->phase = CHIME_FIRE_ACQUIRED;
  f->recovering = recovering;
  if (t->shard_parent > 0) {
    chime__shard_job(f->job);
  } else {
    aj->claimed = chime__concurrency_exclusive(j->concurrency);
  }
  *ret_fire = f;
  return 0;
}

/*
 * On Galera, a replicated write that needs a row this transaction locked
 * brute-force aborts it; between two statements the abort is silent in
 * some servers, and the next statement starts a new transaction that no
 * longer holds the rows the claim read (the write-set is then certified
 * against that new transaction, and a second claim of the same fire would
 * pass).  A claim changes every trigger row it writes (times_triggered,
 * state), so fewer rows changed than claimed means the claim is no longer
 * this transaction's: it is rolled back and retried like a deadlock.
 */
static int check_claimed(chime__mysql_tx *tx, uint64_t changed,
                         uint64_t expected) {
  if (changed >= expected)
    return 0;
  chime__mysql_log(tx->s, CHIME_LOG_INFO,
                   "a claim lost %llu of its trigger rows to another member's "
                   "commit: retrying it",
                   (unsigned long long)(expected - changed));
  return chime__mysql_fail(tx, ER_LOCK_DEADLOCK,
                           "the claim's rows were changed by another member",
                           "claim");
}

/* Marks the triggers of fires[0 .. n) ACQUIRED by their fired rows. */
static int mark_claimed(chime__mysql_tx *tx, chime_fire **fires, size_t n) {
  assert(n > 0);
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_CLAIM_MARK);
  chime__mysql_sqlbuf_fire_ids(&b, fires, n);
  uint64_t changed = 0;
  int r = chime__mysql_sqlbuf_run(&b, NULL, &changed);
  return r < 0 ? r : check_claimed(tx, changed, n);
}

/* acquire_due: the bookkeeping of each claim's fire, then the batch's
 * writes: fired rows EXECUTING (a one-shot's run kept in its trigger row
 * instead, runs.c, with an id reserved), FORBID jobs blocked, triggers
 * advanced. */
static int fire_claims(chime__mysql_tx *tx, acq_op *op) {
  assert(op->fire_now && op->n > 0 && op->n <= op->max);
  chime__mysql_cache cache = {0};
  chime_trigger **ts = calloc(op->n, sizeof *ts);
  const chime_job **js = calloc(op->n, sizeof *js);
  /* The fires with fired rows, and those kept in trigger rows. */
  chime_fire **fired = calloc(op->n, sizeof *fired);
  chime_fire **kept = calloc(op->n, sizeof *kept);
  int r = ts && js && fired && kept ? 0 : CHIME_ENOMEM;
  size_t nfired = 0, nkept = 0;
  for (size_t i = 0; r == 0 && i < op->n; i++) {
    chime_fire *f = op->out[i];
    assert(f->phase == CHIME_FIRE_ACQUIRED && f->fire_id == 0);
    ts[i] = f->trigger;
    js[i] = f->job;
    r = chime__mysql_fire_bookkeeping(tx, &cache, f->trigger, f->job);
    f->phase = CHIME_FIRE_EXECUTING;
    f->in_trigger_row = r == 0 && chime__mysql_run_keepable(tx, f);
    if (f->in_trigger_row) {
      f->trigger->store_state = CHIME_STATE_EXECUTING;
      kept[nkept++] = f;
    } else {
      fired[nfired++] = f;
    }
  }
  if (r == 0 && nfired > 0)
    r = chime__mysql_fired_insert(tx, fired, nfired, op->now, true);
  if (r == 0 && nkept > 0)
    r = chime__mysql_runs_reserve(tx, kept, nkept);
  if (r == 0)
    r = chime__mysql_jobs_block(tx, js, op->n);
  if (r == 0)
    r = chime__mysql_triggers_write(tx, ts, js, op->out, op->n, op->now);
  /* An INSERT ... ON DUPLICATE KEY UPDATE counts 2 per row it changed. */
  if (r == 0)
    r = check_claimed(tx, mysql_affected_rows(tx->c->db) / 2, op->n);
  chime__mysql_cache_clear(&cache);
  free(ts);
  free(js);
  free(fired);
  free(kept);
  return r;
}

/* Claims what it can of rows (round: the first or second look). */
static int claim_rows(chime__mysql_tx *tx, acq_op *op,
                      const chime__mysql_rows *rows) {
  assert(rows->nrows == 0 || rows->ncols == CHIME__TRIG_COL_COUNT);
  /* Room for one entry per row (jobs, parents, fires) of both looks. */
  size_t need = op->njobs + op->nparents + op->n + rows->nrows;
  if (need > op->jobs_cap) {
    acq_job *jobs = realloc(op->jobs, need * sizeof *jobs);
    if (jobs)
      op->jobs = jobs;
    acq_parent *ps = realloc(op->parents, need * sizeof *ps);
    if (ps)
      op->parents = ps;
    if (!jobs || !ps)
      return CHIME_ENOMEM;
    op->jobs_cap = need;
  }
  /* out apart: a retry's acq_reset freed it, and settle_prev may have
   * grown it only to the fires it settled, while jobs kept their room. */
  if (need > op->out_cap) {
    chime_fire **out = realloc(op->out, need * sizeof *out);
    if (!out)
      return CHIME_ENOMEM;
    op->out = out;
    op->out_cap = need;
  }
  int r = 0;
  for (size_t i = 0; r == 0 && i < rows->nrows; i++) {
    chime_fire *f;
    r = claim(tx, op, rows, i, &f);
    if (r == 0 && f)
      op->out[op->n++] = f;
  }
  return r;
}

static int acquire_fn(chime__mysql_tx *tx, void *arg) {
  acq_op *op = arg;
  bool done = false;
  int r = op->nprev ? settle_prev(tx, op, &done) : 0;
  if (r < 0 || done)
    return r;
  if ((r = chime__mysql_limits_refresh(tx)) < 0)
    return r;
  chime__mysql_rows rows = {0}, more = {0};
  r = select_due(tx, op, NULL, op->max, &rows);
  assert(r < 0 || rows.nrows <= op->max); /* the LIMIT */
  assert(op->n == 0 && op->njobs == 0);
  if (r == 0)
    r = claim_rows(tx, op, &rows);
  /* A full batch that passed a whole limited type over: one more look,
   * past it, so that its queue does not hold the other types up. */
  if (r == 0 && rows.nrows == op->max && op->n < op->max &&
      chime__mysql_limits_full(&op->limits)) {
    r = select_due(tx, op, &rows, op->max - op->n, &more);
    if (r == 0)
      r = claim_rows(tx, op, &more);
  }
  if (r == 0 && op->n > 0)
    r = chime__mysql_limits_write(tx, &op->limits);
  if (r == 0 && op->n > 0 && op->fire_now) {
    r = fire_claims(tx, op);
  } else if (r == 0 && op->n > 0) {
    r = chime__mysql_fired_insert(tx, op->out, op->n, op->now, false);
    if (r == 0)
      r = mark_claimed(tx, op->out, op->n);
  }
  chime__mysql_rows_free(&rows);
  chime__mysql_rows_free(&more);
  return r;
}

static int run_acquire(chime_store *store, acq_op *op, chime_fire ***ret_fires,
                       size_t *ret_count) {
  if (!ret_fires || !ret_count)
    return CHIME_EINVAL;
  int r = 0;
  chime__mysql_store *s = chime__mysql_store_of(store);
  op->limits.wait_ms = -1;
  if (op->max > 0 && (!op->types || op->types->count > 0))
    r = chime__mysql_tx_run_hot(s, acquire_fn, acq_reset, op);
  atomic_store(&s->limit_wait, r == 0 ? op->limits.wait_ms : -1);
  chime__mysql_limits_clear(&op->limits);
  for (size_t i = 0; i < op->njobs; i++)
    chime_job_free(op->jobs[i].job);
  free(op->jobs);
  free(op->parents);
  free_fires(op->prev, op->nprev);
  if (r < 0) {
    free_fires(op->out, op->n);
    return r;
  }
  *ret_fires = op->out;
  *ret_count = op->n;
  return 0;
}

int chime__mysql_acquire(chime_store *store, int64_t now_ms,
                         int64_t no_later_than_ms, size_t max,
                         const chime_type_set *types, chime_fire ***ret_fires,
                         size_t *ret_count) {
  acq_op op = {
      .now = now_ms, .nlt = no_later_than_ms, .max = max, .types = types};
  return run_acquire(store, &op, ret_fires, ret_count);
}

int chime__mysql_acquire_due(chime_store *store, int64_t now_ms,
                             int64_t no_later_than_ms, size_t max,
                             const chime_type_set *types,
                             chime_fire ***ret_fires, size_t *ret_count) {
  acq_op op = {.now = now_ms,
               .nlt = no_later_than_ms,
               .max = max,
               .types = types,
               .fire_now = true};
  int r = run_acquire(store, &op, ret_fires, ret_count);
  /* Fired in its transaction: held from its commit on (held.c). */
  for (size_t i = 0; r == 0 && i < *ret_count; i++)
    if ((*ret_fires)[i]->result == 0)
      chime__mysql_held_add(chime__mysql_store_of(store),
                            (*ret_fires)[i]->fire_id);
  return r;
}

/* -------------------------------------------------------------- release */

typedef struct release_op {
  chime_fire **fires;
  size_t count;
} release_op;

static int release_fn(chime__mysql_tx *tx, void *arg) {
  release_op *op = arg;
  int r = 0;
  for (size_t i = 0; r == 0 && i < op->count; i++) {
    const chime_fire *f = op->fires[i];
    /* Fires acquire handed out; a fired one is left alone (its fired row
     * is EXECUTING). */
    assert(!f || f->fire_id > 0);
    if (f)
      r = release_id(tx, f->fire_id);
  }
  return r;
}

int chime__mysql_release(chime_store *store, chime_fire **fires, size_t count) {
  if (!fires && count > 0)
    return CHIME_EINVAL;
  if (count == 0)
    return 0;
  release_op op = {.fires = fires, .count = count};
  /* The loop's: it keeps what an outage refuses and gives it back after
   * its next good check-in (engine/loop.c), rather than stall 30 s. */
  return chime__mysql_tx_run_hot(chime__mysql_store_of(store), release_fn, NULL,
                                 &op);
}
