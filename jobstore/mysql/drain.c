/*
 * mysql/drain.c: drain requests of nodes (store.h's drain_* ops; sql/014's
 * node_drains table).  A request is a row of its own, not a column of the
 * nodes row: that row goes when the node stops, and a node restarted
 * under the same instance id must stay drained until an operator undrains
 * it (docs/operations.md, "A maintenance window").  The node reads its
 * row with each check-in (in its lease statement, nodes_lease.sql, read by
 * chime__mysql_drain_of_row, on the heartbeat connection) and writes DRAINED
 * into it once it runs nothing (drain_report); the operator's side asks and
 * ends (drain_set, which records the action in the audit table in the same
 * transaction) and reads (drain_get).
 *
 * Threads: drain_set and drain_get on any thread (a transaction of their
 * own); drain_of_row within the check-in (the engine's loop thread), whose
 * results only that thread reads (checkin_drain); drain_report on the
 * loop thread.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* The state named in a node_drains row. */
static int state_of(const char *text) {
  return text && strcmp(text, "DRAINED") == 0 ? CHIME_NODE_DRAINED
                                              : CHIME_NODE_DRAINING;
}

typedef struct set_op {
  const char *node;
  bool drain;
  int64_t timeout_ms;
  const char *who, *origin;
} set_op;

static int set_fn(chime__mysql_tx *tx, void *arg) {
  set_op *op = arg;
  chime__mysql_store *s = tx->s;
  chime__mysql_sqlbuf b;
  uint64_t n = 0;
  int r;
  if (op->drain) {
    /* A node of the cluster (live or not: a dead node's row goes at its
     * recovery), or one drained before (asked again: a new timeout). */
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_DRAIN_KNOWN);
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, s->sched);
    chime__mysql_sqlbuf_at(&b, "node");
    chime__mysql_sqlbuf_text(&b, op->node);
    chime__mysql_sqlbuf_at(&b, "sched2");
    chime__mysql_sqlbuf_text(&b, s->sched);
    chime__mysql_sqlbuf_at(&b, "node2");
    chime__mysql_sqlbuf_text(&b, op->node);
    chime__mysql_rows rows;
    if ((r = chime__mysql_sqlbuf_run(&b, &rows, NULL)) < 0)
      return r;
    bool known = rows.nrows == 1 && chime__mysql_rows_int64(&rows, 0, 0) > 0;
    chime__mysql_rows_free(&rows);
    if (!known)
      return CHIME_ENOTFOUND;
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_DRAIN_REQUEST);
    chime__mysql_sqlbuf_at(&b, "sched_name");
    chime__mysql_sqlbuf_text(&b, s->sched);
    chime__mysql_sqlbuf_at(&b, "instance_id");
    chime__mysql_sqlbuf_text(&b, op->node);
    chime__mysql_sqlbuf_at(&b, "timeout_ms");
    chime__mysql_sqlbuf_int(&b, op->timeout_ms);
    chime__mysql_sqlbuf_at(&b, "requested_by");
    chime__mysql_sqlbuf_text(&b, op->who);
    r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
  } else {
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_DRAIN_CANCEL);
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, s->sched);
    chime__mysql_sqlbuf_at(&b, "node");
    chime__mysql_sqlbuf_text(&b, op->node);
    if ((r = chime__mysql_sqlbuf_run(&b, NULL, &n)) == 0 && n == 0)
      return CHIME_ENOTFOUND;
  }
  if (r < 0)
    return r;
  char target[256], details[64] = "";
  snprintf(target, sizeof target, "node %s", op->node);
  if (op->drain && op->timeout_ms > 0)
    snprintf(details, sizeof details, "timeout %lld ms",
             (long long)op->timeout_ms);
  char origin[300];
  if (!op->origin)
    snprintf(origin, sizeof origin, "node %s@%s", s->node, s->node_host);
  return chime__mysql_audit_tx(tx, op->who, op->origin ? op->origin : origin,
                               op->drain ? "drain" : "undrain", target,
                               details[0] ? details : NULL);
}

int chime__mysql_drain_set(chime_store *store, const char *node, bool drain,
                           int64_t timeout_ms, const char *who,
                           const char *origin) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  set_op op = {.node = node ? node : s->node,
               .drain = drain,
               .timeout_ms = timeout_ms < 0 ? 0 : timeout_ms,
               .who = who ? who : "api",
               .origin = origin};
  return chime__mysql_tx_run(s, set_fn, NULL, &op, NULL, 0);
}

typedef struct get_op {
  const char *node;
  int state;
} get_op;

static int get_fn(chime__mysql_tx *tx, void *arg) {
  get_op *op = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_DRAIN_STATE);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, op->node);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r == 0)
    op->state = rows.nrows ? state_of(chime__mysql_rows_text(&rows, 0, 0))
                           : CHIME_NODE_ACTIVE;
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_drain_get(chime_store *store, const char *node,
                           int *ret_state) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  get_op op = {.node = node ? node : s->node};
  int r = chime__mysql_tx_run(s, get_fn, NULL, &op, NULL, 0);
  if (r == 0)
    *ret_state = op.state;
  return r;
}

void chime__mysql_drain_of_row(const chime__mysql_rows *rows, size_t col,
                               int *ret_state, bool *ret_overdue) {
  assert(rows->nrows == 1 && col + 1 < rows->ncols);
  bool asked = !chime__mysql_rows_is_null(rows, 0, col);
  *ret_state = asked ? state_of(chime__mysql_rows_text(rows, 0, col))
                     : CHIME_NODE_ACTIVE;
  *ret_overdue = asked && !chime__mysql_rows_is_null(rows, 0, col + 1) &&
                 chime__mysql_rows_int64(rows, 0, col + 1) != 0;
}

int chime__mysql_checkin_drain(chime_store *store, bool *ret_overdue) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  if (ret_overdue)
    *ret_overdue = s->checkin_drain_overdue;
  return s->checkin_drain_state;
}

static int report_fn(chime__mysql_tx *tx, void *arg) {
  const size_t *handed = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_DRAIN_DONE);
  chime__mysql_sqlbuf_at(&b, "handed");
  chime__mysql_sqlbuf_int(&b, (int64_t)*handed);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, tx->s->node);
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

int chime__mysql_drain_report(chime_store *store, size_t handed) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  /* The loop's check-in tick reports it, and tries again at the next one:
   * the loop's budget, not 30 s of reconnects (tx.c). */
  int r = chime__mysql_tx_run_hot(s, report_fn, NULL, &handed);
  if (r == 0)
    s->checkin_drain_state = CHIME_NODE_DRAINED;
  return r;
}
