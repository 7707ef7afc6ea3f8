/*
 * mysql/admin_repair.c: chime-admin.h's CHIME_ADMIN_STUCK on the MySQL
 * store: the stuck states a cluster can be left in by a process that went
 * away (or a bug), one SELECT per kind (queries/stuck_*.sql), all in one
 * transaction, in the order blocked, lost, error, orphan, lease.  Their
 * fixes are repair.c's (chime__mysql_repair).
 *
 * A "lost" row is a suspect only: a fire committed EXECUTING a moment
 * before its node's last report of the fires it holds is missing from that
 * report too.  The row gives the node's report time (held_at_ms) and the
 * database's now_ms, so a reader that lists again after the node's next
 * check-in knows a fire still missing is lost (chimectl_repair.c).
 *
 * Threads: the operator's store's one thread.
 */
#include "jobstore/admin.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"

#include <stdlib.h>

/* The rows of the five statements. */
typedef struct stuck_op {
  chime__mysql_rows blocked, lost, error, orphan, lease;
} stuck_op;

static void stuck_reset(void *arg) {
  stuck_op *op = arg;
  chime__mysql_rows_free(&op->blocked);
  chime__mysql_rows_free(&op->lost);
  chime__mysql_rows_free(&op->error);
  chime__mysql_rows_free(&op->orphan);
  chime__mysql_rows_free(&op->lease);
}

static int stuck_fn(chime__mysql_tx *tx, void *arg) {
  stuck_op *op = arg;
  chime__mysql_arg args[] = {chime__mysql_arg_text(tx->s->sched),
                             chime__mysql_arg_text(NULL),
                             chime__mysql_arg_text(NULL)};
  chime__mysql_arg scheds[] = {args[0], args[0]};
  int r = chime__mysql_query(tx, CHIME__Q_STUCK_BLOCKED, args, 1, &op->blocked);
  if (r == 0)
    r = chime__mysql_query(tx, CHIME__Q_STUCK_LOST, scheds, 2, &op->lost);
  if (r == 0)
    r = chime__mysql_query(tx, CHIME__Q_STUCK_ERROR, args, 1, &op->error);
  if (r == 0)
    r = chime__mysql_query(tx, CHIME__Q_STUCK_ORPHAN, args, 1, &op->orphan);
  if (r == 0)
    r = chime__mysql_query(tx, CHIME__Q_STUCK_LEASE, args, 3, &op->lease);
  return r;
}

/* Cell col of rows' row i into column to, by the column's type (an SQL
 * NULL leaves it null). */
static void put(chime_admin_table *t, size_t to, const chime__mysql_rows *rows,
                size_t i, size_t col) {
  if (chime__mysql_rows_is_null(rows, i, col))
    return;
  if (chime_admin_table_get_column_type(t, to) == CHIME_ADMIN_INT64)
    chime__admin_set_int(t, to, chime__mysql_rows_int64(rows, i, col));
  else
    chime__admin_set_text(t, to, chime__mysql_rows_text(rows, i, col));
}

/* A row of kind per row of rows, whose columns go to the table's columns
 * cols (n of them), in order. */
static void add_rows(chime_admin_table *t, const char *kind,
                     const chime__mysql_rows *rows, const size_t *cols,
                     size_t n) {
  for (size_t i = 0; i < rows->nrows; i++)
    if (chime__admin_row_add(t) == 0) {
      chime__admin_set_text(t, CHIME__AC_STUCK_KIND, kind);
      for (size_t k = 0; k < n; k++)
        put(t, cols[k], rows, i, k);
    }
}

#define ADD(kind, rows, ...)                                                   \
  do {                                                                         \
    static const size_t cols[] = {__VA_ARGS__};                                \
    add_rows(t, kind, rows, cols, sizeof cols / sizeof cols[0]);               \
  } while (0)

/* The rows of each statement (queries/stuck_*.sql), by kind. */
static void fill(const stuck_op *op, chime_admin_table *t) {
  ADD("blocked", &op->blocked, CHIME__AC_STUCK_GROUP, CHIME__AC_STUCK_NAME,
      CHIME__AC_STUCK_TRIGGERS);
  ADD("lost", &op->lost, CHIME__AC_STUCK_FIRE_ID, CHIME__AC_STUCK_NODE,
      CHIME__AC_STUCK_GROUP, CHIME__AC_STUCK_NAME, CHIME__AC_STUCK_HELD_AT_MS,
      CHIME__AC_STUCK_CHECKIN_INTERVAL_MS, CHIME__AC_STUCK_NOW_MS);
  ADD("error", &op->error, CHIME__AC_STUCK_GROUP, CHIME__AC_STUCK_NAME,
      CHIME__AC_STUCK_JOB_GROUP, CHIME__AC_STUCK_JOB_NAME);
  ADD("orphan", &op->orphan, CHIME__AC_STUCK_GROUP, CHIME__AC_STUCK_NAME,
      CHIME__AC_STUCK_REASON);
  ADD("lease", &op->lease, CHIME__AC_STUCK_NAME, CHIME__AC_STUCK_NODE,
      CHIME__AC_STUCK_HOST, CHIME__AC_STUCK_PID, CHIME__AC_STUCK_REASON);
}
#undef ADD

int chime__mysql_admin_stuck(chime_store *store, const chime_admin_query *q,
                             chime_admin_table *t, char *errbuf,
                             size_t errbuf_len) {
  stuck_op op = {0};
  int r = chime__mysql_tx_run(chime__mysql_store_of(store), stuck_fn,
                              stuck_reset, &op, errbuf, errbuf_len);
  if (r == 0)
    fill(&op, t);
  stuck_reset(&op);
  if (r == 0)
    chime__admin_table_page(t, q->offset, q->limit);
  return r;
}
