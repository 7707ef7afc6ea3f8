/*
 * mysql/retain.c: keeping the MySQL store's growing tables bounded at any
 * rate (DESIGN.md promise 11).
 *
 * Terms: a step is one call of chime__mysql_retain_step: at most one
 * batch of history deletions (TRIM_BATCH rows: those finished more than
 * history_retention_ms ago, oldest first, then those more than
 * history_max_rows ids below the newest), each batch a short transaction
 * of its own (READ COMMITTED: only the deleted rows are locked), and, at
 * most once every SWEEP_EVERY_MS, a sweep of the other tables (at most
 * SWEEP_BATCH rows of each): sessions of nodes long gone, leases free for
 * a long time, checkpoints of runs that ended, one-shot triggers of
 * chime's own groups that ended, keyed runs' triggers whose unique period
 * ended, and audit rows older than
 * audit_retention_ms or more than audit_max_rows ids below the newest.
 * docs/schema.md lists the bounds.  They count rows: a history row carries
 * its run's own data (migration 015, at most CHIME_MAX_DATA_LEN), so its
 * bytes are the operator's to size (docs/schema.md, "Run data"); deleting
 * one frees its data with it.
 *
 * Who steps, and when: history is trimmed as fast as it is written, off
 * the loop's hot path.  The thread that writes a batch of completions
 * (complete.c) steps after it handed the answers out, when the last step
 * is TRIM_EVERY_MS old or the last batch of deletions was full (a
 * backlog): a node deletes up to TRIM_BATCH rows per completion batch
 * (at most 256 rows written) while a backlog lasts, so the nodes that
 * write trim, each in proportion to what it writes.  The check-in (the
 * engine's loop thread) steps only when no completion did for
 * IDLE_EVERY_MS, or for two TRIM_EVERY_MS while a backlog lasts: an idle
 * node, whose loop has nothing to fire.  A backlog left by a busy cluster
 * is deleted by whichever nodes run.
 *
 * Threads: any thread that completes or checks in; retain_busy (an
 * atomic flag) lets one step run at a time per store, and a thread that
 * finds it taken skips its step rather than waiting.  The other fields
 * (retained_mono_ms, swept_mono_ms, history_backlog) are atomics.
 */
#include "jobstore/mysql/ops.h"

#include "core/clock.h"
#include "jobstore/mysql/tx.h"
#include "model/records.h"

#include <assert.h>

/* History rows deleted per transaction at most. */
#define TRIM_BATCH 1000
/* A completing node trims at least this often while it completes. */
#define TRIM_EVERY_MS 1000
/* An idle node steps this often, or after 2 * TRIM_EVERY_MS without a
 * completion's step while a backlog lasts. */
#define IDLE_EVERY_MS 10000
/* The other tables are swept this often per node, SWEEP_BATCH rows of
 * each at most. */
#define SWEEP_EVERY_MS 60000
#define SWEEP_BATCH 500
/* A node's sessions are kept this long after its row is gone (a node
 * registers its first connection before it claims its row). */
#define SESSION_KEEP_MS INT64_C(600000)
/* A lease name is kept this long after its lease ran out: its next token
 * then starts from the clock (queries/lease_take.sql), far above any earlier
 * token, so dropping the row never lets a token go back. */
#define LEASE_KEEP_MS INT64_C(86400000)
/* A checkpoint whose run has ended (no fire and no recovery trigger of the
 * run left) is kept this long. */
#define CHECKPOINT_KEEP_MS INT64_C(3600000)

typedef struct trim_op {
  int64_t cutoff_ms; /* rows finished before it are past retention */
  int64_t max_rows;  /* 0: no bound by count */
  uint64_t deleted;
} trim_op;

/* The newest history id less history_max_rows ids (ids grow by
 * auto_increment_increment: a Galera cluster spaces them by its size), in
 * *ret_cut; 0 when the table holds fewer ids than that. */
static int count_cut(chime__mysql_tx *tx, int64_t max_rows, int64_t *ret_cut) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_HISTORY_IDS);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  assert(rows.nrows == 1 && rows.ncols == 2); /* an aggregate */
  *ret_cut = 0;
  if (!chime__mysql_rows_is_null(&rows, 0, 0)) {
    int64_t top = chime__mysql_rows_int64(&rows, 0, 0);
    int64_t step = chime__mysql_rows_int64(&rows, 0, 1);
    if (step < 1)
      step = 1;
    if (max_rows <= (top - 1) / step)
      *ret_cut = top - max_rows * step;
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

/* One batch: rows past retention first, oldest first, by the (scheduler,
 * finished_ms) index; then, with room left, the rows past the count, by
 * the primary key from its start (no sort: a backlog of any size costs
 * a batch's rows; another scheduler's rows below the cut are passed
 * over). */
static int trim_fn(chime__mysql_tx *tx, void *arg) {
  trim_op *op = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_HISTORY_TRIM_AGE);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "cutoff");
  chime__mysql_sqlbuf_int(&b, op->cutoff_ms);
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, TRIM_BATCH);
  uint64_t n = 0;
  int r = chime__mysql_sqlbuf_run(&b, NULL, &n);
  if (r < 0)
    return r;
  op->deleted = n;
  if (op->max_rows <= 0 || n >= TRIM_BATCH)
    return 0;
  int64_t cut = 0;
  if ((r = count_cut(tx, op->max_rows, &cut)) < 0 || cut <= 0)
    return r;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_HISTORY_TRIM_COUNT);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "cut");
  chime__mysql_sqlbuf_int(&b, cut);
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, (int64_t)(TRIM_BATCH - n));
  uint64_t m = 0;
  r = chime__mysql_sqlbuf_run(&b, NULL, &m);
  if (r == 0)
    op->deleted += m;
  return r;
}

/* Fills a sweep's slot keep_ms: its rows older than that by the
 * database's clock go. */
static void older_than(chime__mysql_sqlbuf *b, int64_t keep_ms) {
  chime__mysql_sqlbuf_at(b, "keep_ms");
  chime__mysql_sqlbuf_int(b, keep_ms);
}

/* The sessions of nodes whose row is gone (they left or were recovered),
 * and this node's own sessions the server no longer has (each reconnect
 * registers a new one; with one host only: a Galera member lists only its
 * own sessions). */
static int sweep_sessions(chime__mysql_tx *tx, uint64_t *ret_n) {
  chime__mysql_store *s = tx->s;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_SWEEP_SESSIONS);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, s->sched);
  older_than(&b, SESSION_KEEP_MS);
  chime__mysql_sqlbuf_at(&b, "sched2");
  chime__mysql_sqlbuf_text(&b, s->sched);
  chime__mysql_sqlbuf_part(&b, "own", s->url->nhosts == 1);
  if (s->url->nhosts == 1) {
    chime__mysql_sqlbuf_at(&b, "node");
    chime__mysql_sqlbuf_text(&b, s->node);
  }
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, SWEEP_BATCH);
  return chime__mysql_sqlbuf_run(&b, NULL, ret_n);
}

/* Lease names free for LEASE_KEEP_MS. */
static int sweep_leases(chime__mysql_tx *tx, uint64_t *ret_n) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_SWEEP_LEASES);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  older_than(&b, LEASE_KEEP_MS);
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, SWEEP_BATCH);
  return chime__mysql_sqlbuf_run(&b, NULL, ret_n);
}

/* Checkpoints of runs that ended without deleting them (a run recorded
 * FAILED by a recovery, a run whose job was removed): no fire of the run
 * (the one that wrote it, the first) and no recovery trigger that would
 * continue it are left. */
static int sweep_checkpoints(chime__mysql_tx *tx, uint64_t *ret_n) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_SWEEP_CHECKPOINTS);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  older_than(&b, CHECKPOINT_KEEP_MS);
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, SWEEP_BATCH);
  return chime__mysql_sqlbuf_run(&b, NULL, ret_n);
}

/* One-shot triggers of chime's own groups (retries, shards, recoveries,
 * backfills, fire-now) that ended (COMPLETE) and have no fire left: a
 * completion removes them, but one that ends otherwise (dropped by a
 * FORBID_SKIP job's run, say) stays COMPLETE. */
static int sweep_triggers(chime__mysql_tx *tx, uint64_t *ret_n) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_SWEEP_TRIGGERS);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, SWEEP_BATCH);
  return chime__mysql_sqlbuf_run(&b, NULL, ret_n);
}

/* Keyed runs' triggers kept COMPLETE for their unique period
 * (held_until_ms, migration 016) once the period ended, by the database's
 * clock: an enqueue of the key would take the row over anyway. */
static int sweep_held_keys(chime__mysql_tx *tx, uint64_t *ret_n) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_SWEEP_HELD_KEYS);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "now");
  chime__mysql_sqlbuf_int(&b, chime__mysql_now(&tx->s->base));
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, SWEEP_BATCH);
  return chime__mysql_sqlbuf_run(&b, NULL, ret_n);
}

/* Audit rows (operator actions, admin.c) past audit_retention_ms, then
 * those more than audit_max_rows ids below the scheduler's newest. */
static int sweep_audit(chime__mysql_tx *tx, uint64_t *ret_n) {
  chime__mysql_store *s = tx->s;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_SWEEP_AUDIT_AGE);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, s->sched);
  older_than(&b, s->audit_retention_ms);
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, SWEEP_BATCH);
  int r = chime__mysql_sqlbuf_run(&b, NULL, ret_n);
  if (r < 0 || s->audit_max_rows <= 0 || *ret_n >= SWEEP_BATCH)
    return r;
  /* The id audit_max_rows rows below the newest (one scheduler's rows:
   * an audit table is small, the index on (sched_name, at_ms) finds
   * them). */
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_AUDIT_CUT);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, s->sched);
  chime__mysql_sqlbuf_at(&b, "max_rows");
  chime__mysql_sqlbuf_int(&b, s->audit_max_rows);
  chime__mysql_rows rows;
  if ((r = chime__mysql_sqlbuf_run(&b, &rows, NULL)) < 0)
    return r;
  int64_t cut = rows.nrows ? chime__mysql_rows_int64(&rows, 0, 0) : 0;
  chime__mysql_rows_free(&rows);
  if (cut <= 0)
    return 0;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RETAIN_SWEEP_AUDIT_COUNT);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, s->sched);
  chime__mysql_sqlbuf_at(&b, "cut");
  chime__mysql_sqlbuf_int(&b, cut);
  chime__mysql_sqlbuf_at(&b, "batch");
  chime__mysql_sqlbuf_int(&b, (int64_t)(SWEEP_BATCH - *ret_n));
  uint64_t m = 0;
  r = chime__mysql_sqlbuf_run(&b, NULL, &m);
  *ret_n += m;
  return r;
}

typedef struct sweep_op {
  uint64_t n[5];
} sweep_op;

static int sweep_fn(chime__mysql_tx *tx, void *arg) {
  sweep_op *op = arg;
  int r = sweep_sessions(tx, &op->n[0]);
  if (r == 0)
    r = sweep_leases(tx, &op->n[1]);
  if (r == 0)
    r = sweep_checkpoints(tx, &op->n[2]);
  uint64_t held = 0;
  if (r == 0)
    r = sweep_triggers(tx, &op->n[3]);
  if (r == 0)
    r = sweep_held_keys(tx, &held);
  op->n[3] += held;
  if (r == 0)
    r = sweep_audit(tx, &op->n[4]);
  return r;
}

/* How long a step may wait for a connection and the database: short,
 * whoever steps (a completer, the loop) has other work; a step that cannot
 * run now runs at the next turn. */
static int64_t step_budget_ms(const chime__mysql_store *s) {
  return s->checkin_interval_ms >= 1000 ? s->checkin_interval_ms / 2 : 500;
}

int chime__mysql_retain_step(chime__mysql_store *s, bool sweep,
                             size_t *ret_deleted) {
  bool idle = false;
  if (!atomic_compare_exchange_strong(&s->retain_busy, &idle, true))
    return CHIME_EBUSY;
  int64_t mono = chime__mono_ms();
  atomic_store(&s->retained_mono_ms, mono);
  trim_op op = {.cutoff_ms =
                    chime__mysql_now(&s->base) - s->history_retention_ms,
                .max_rows = s->history_max_rows};
  /* trim_fn and sweep_fn assign their results: re-runnable as they are. */
  int r = chime__mysql_tx_run_within(s, trim_fn, &op, step_budget_ms(s));
  size_t deleted = r == 0 ? (size_t)op.deleted : 0;
  atomic_store(&s->history_backlog, r == 0 && op.deleted >= TRIM_BATCH);
  int64_t swept = atomic_load(&s->swept_mono_ms);
  if (r == 0 && (sweep || swept == 0 || mono - swept >= SWEEP_EVERY_MS)) {
    atomic_store(&s->swept_mono_ms, mono);
    sweep_op so = {{0}};
    r = chime__mysql_tx_run_within(s, sweep_fn, &so, step_budget_ms(s));
    for (size_t i = 0; r == 0 && i < 5; i++)
      deleted += (size_t)so.n[i];
  }
  atomic_store(&s->retain_busy, false);
  if (r == 0 && ret_deleted)
    *ret_deleted = deleted;
  return r;
}

/* Logs a step's failure: at DEBUG when it only found no connection or no
 * database (busy, or an outage the completions and check-ins report). */
static void log_failure(chime__mysql_store *s, int r) {
  if (r < 0)
    chime__mysql_log(s,
                     r == CHIME_EBUSY || r == CHIME_ECONNECT ? CHIME_LOG_DEBUG
                                                             : CHIME_LOG_WARN,
                     "could not trim the tables that grow: %s",
                     chime_strerror(r));
}

void chime__mysql_retain_after_complete(chime__mysql_store *s) {
  int64_t last = atomic_load(&s->retained_mono_ms);
  if (!atomic_load(&s->history_backlog) &&
      chime__mono_ms() - last < TRIM_EVERY_MS)
    return;
  log_failure(s, chime__mysql_retain_step(s, false, NULL));
}

void chime__mysql_retain_checkin(chime__mysql_store *s) {
  int64_t last = atomic_load(&s->retained_mono_ms);
  int64_t wait =
      atomic_load(&s->history_backlog) ? 2 * TRIM_EVERY_MS : IDLE_EVERY_MS;
  if (last != 0 && chime__mono_ms() - last < wait)
    return;
  /* A failure is the trim's, not the check-in's: logged, never fencing. */
  log_failure(s, chime__mysql_retain_step(s, false, NULL));
}
