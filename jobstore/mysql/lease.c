/*
 * mysql/lease.c: named leases in the MySQL/MariaDB store (store.h's
 * lease_* ops), in the leases table (sql/005_leases.sql): one row per
 * (scheduler, lease name) that outlives its holders, so that its token
 * only grows.
 *
 * Every decision is the database's: whether a lease ran out is
 * "expires_ms <= NOW" inside the statement that acts on it
 * (queries/lease_*.sql), so a node whose clock is wrong, or that was
 * paused, judges nothing.  Acquiring is one transaction of two statements
 * (the guarded upsert, CHIME__Q_LEASE_TAKE, and reading the row back: the
 * acquisition is ours when the row carries our random claim);
 * extending and releasing are one guarded UPDATE each, refused when it
 * matches no row.
 *
 * Threads: any; each op runs its own transaction (tx.h).
 */
#include "jobstore/mysql/ops.h"

#include "core/random.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct take_op {
  const char *name;
  int64_t at_most_ms, at_least_ms;
  int64_t claim; /* this acquisition's random mark */
  char host[256];
  bool taken;
  chime_lease_info info;
} take_op;

static int take_fn(chime__mysql_tx *tx, void *arg) {
  take_op *op = arg;
  chime__mysql_store *s = tx->s;
  chime__mysql_arg a[] = {
      chime__mysql_arg_text(s->sched),
      chime__mysql_arg_text(op->name),
      chime__mysql_arg_text(s->node),
      chime__mysql_arg_text(op->host),
      chime__mysql_arg_int((int64_t)getpid()),
      chime__mysql_arg_int(op->claim),
      chime__mysql_arg_int(op->at_most_ms),
      chime__mysql_arg_int(op->at_least_ms),
  };
  int r = chime__mysql_exec(tx, CHIME__Q_LEASE_TAKE, a, 8, NULL, NULL);
  if (r < 0)
    return r;
  chime__mysql_rows rows;
  r = chime__mysql_query(tx, CHIME__Q_LEASE_GET, a, 2, &rows);
  if (r == 0) {
    assert(rows.nrows == 1 && rows.ncols == 4); /* the upsert's row */
    op->info.token = chime__mysql_rows_int64(&rows, 0, 0);
    op->info.acquired_ms = chime__mysql_rows_int64(&rows, 0, 1);
    op->info.expires_ms = chime__mysql_rows_int64(&rows, 0, 2);
    /* Ours when it carries our claim: taken now, or by an earlier attempt
     * whose COMMIT's reply was lost (the retry then finds it held). */
    op->taken = chime__mysql_rows_int64(&rows, 0, 3) == op->claim;
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_lease_acquire(chime_store *store, const char *name,
                               int64_t at_most_ms, int64_t at_least_ms,
                               chime_lease_info *ret) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  assert(name && at_most_ms > 0 && at_least_ms >= 0 && ret);
  take_op op = {
      .name = name, .at_most_ms = at_most_ms, .at_least_ms = at_least_ms};
  uint64_t claim = 0;
  if (chime__random_u64(&claim) < 0)
    return CHIME_EIO;
  op.claim = (int64_t)(claim >> 1); /* a BIGINT, never negative */
  chime__mysql_host_name(op.host, sizeof op.host);
  /* A session frozen with the row locked makes this a busy lease, not a
   * wait (tx_run_hot gives up after half a check-in interval). */
  int r = chime__mysql_tx_run_hot(s, take_fn, NULL, &op);
  if (r < 0)
    return r;
  *ret = op.info;
  return op.taken ? 0 : CHIME_EBUSY;
}

typedef struct change_op {
  chime__mysql_stmt_id id;
  chime__mysql_arg args[4];
  size_t nargs;
  bool matched;
  int64_t expires_ms; /* extend: the new expiry */
} change_op;

static int change_fn(chime__mysql_tx *tx, void *arg) {
  change_op *op = arg;
  uint64_t affected = 0;
  int r = chime__mysql_exec(tx, op->id, op->args, op->nargs, &affected, NULL);
  op->matched = r == 0 && affected == 1;
  if (r < 0 || !op->matched || op->id != CHIME__Q_LEASE_EXTEND)
    return r;
  chime__mysql_rows rows;
  r = chime__mysql_query(tx, CHIME__Q_LEASE_GET, &op->args[1], 2, &rows);
  if (r == 0) {
    assert(rows.nrows == 1 && rows.ncols == 4); /* the row just updated */
    op->expires_ms = chime__mysql_rows_int64(&rows, 0, 2);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

/* Runs a guarded change of (name, token): its key arguments follow the
 * statement's first extra arguments.  Returns: 0; CHIME_ENOTOWNER (no row
 * matched: not held by this token); the transaction's errors. */
static int change(chime__mysql_store *s, change_op *op, const char *name,
                  int64_t token) {
  op->args[op->nargs++] = chime__mysql_arg_text(s->sched);
  op->args[op->nargs++] = chime__mysql_arg_text(name);
  op->args[op->nargs++] = chime__mysql_arg_int(token);
  assert(op->nargs <= sizeof op->args / sizeof op->args[0]);
  int r = chime__mysql_tx_run(s, change_fn, NULL, op, NULL, 0);
  return r < 0 ? r : op->matched ? 0 : CHIME_ENOTOWNER;
}

int chime__mysql_lease_extend(chime_store *store, const char *name,
                              int64_t token, int64_t at_most_ms,
                              int64_t *ret_expires_ms) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  assert(name && token > 0 && at_most_ms > 0);
  change_op op = {.id = CHIME__Q_LEASE_EXTEND};
  op.args[op.nargs++] = chime__mysql_arg_int(at_most_ms);
  int r = change(s, &op, name, token);
  if (r == 0 && ret_expires_ms)
    *ret_expires_ms = op.expires_ms;
  return r;
}

int chime__mysql_lease_release(chime_store *store, const char *name,
                               int64_t token) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  assert(name && token > 0);
  change_op op = {.id = CHIME__Q_LEASE_RELEASE};
  return change(s, &op, name, token);
}

typedef struct held_op {
  const char *name;
  int64_t token;
  bool held;
} held_op;

static int held_fn(chime__mysql_tx *tx, void *arg) {
  held_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->name),
                          chime__mysql_arg_int(op->token)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_LEASE_HELD, a, 3, &rows);
  op->held = r == 0 && rows.nrows == 1;
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_lease_held(chime_store *store, const char *name, int64_t token,
                            bool *ret_held) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  assert(name && token > 0 && ret_held);
  held_op op = {.name = name, .token = token};
  int r = chime__mysql_tx_run(s, held_fn, NULL, &op, NULL, 0);
  if (r == 0)
    *ret_held = op.held;
  return r;
}

int chime__mysql_lease_end(chime_store *store, const char *name) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  assert(name);
  change_op op = {.id = CHIME__Q_LEASE_EXPIRE};
  op.args[op.nargs++] = chime__mysql_arg_text(s->sched);
  op.args[op.nargs++] = chime__mysql_arg_text(name);
  int r = chime__mysql_tx_run(s, change_fn, NULL, &op, NULL, 0);
  return r < 0 ? r : op.matched ? 0 : CHIME_ENOTFOUND;
}
