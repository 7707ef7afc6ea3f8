/*
 * mysql/admin_list.c: the MySQL store's operators' lists (store.h's
 * admin_list; chime-admin.h): one SELECT per list on the store's tables
 * (docs/schema.md; each a file queries/admin_*.sql, the history's a text
 * statement with the filters asked for), in a transaction of its own, each row
 * put into the table under jobstore/admin.h's column names.  Live and dead are
 * the store's own rule ({node_live} in the files), trigger rows are decoded by
 * the store's own decoder (columns.h), times are the database's.
 */
#include "jobstore/admin.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Up to this many arguments a list's statement takes. */
#define MAX_ARGS 16

/* One SELECT (a statement queries/NAME.sql): its arguments, its rows. */
typedef struct select_op {
  chime__mysql_arg args[MAX_ARGS];
  size_t nargs;
  chime__mysql_rows rows;
} select_op;

static void select_reset(void *arg) {
  select_op *op = arg;
  chime__mysql_rows_free(&op->rows);
}

static void arg_text(select_op *op, const char *text) {
  assert(op->nargs < MAX_ARGS);
  op->args[op->nargs++] = chime__mysql_arg_text(text);
}

static void arg_int(select_op *op, int64_t v) {
  assert(op->nargs < MAX_ARGS);
  op->args[op->nargs++] = chime__mysql_arg_int(v);
}

#define TEXT(col) chime__mysql_rows_text(&op.rows, i, col)
#define INT(col) chime__mysql_rows_int64(&op.rows, i, col)

/* Copies column col of row i as text (NULL stays null) or integer. */
static void put_text(chime_admin_table *t, size_t to,
                     const chime__mysql_rows *rows, size_t i, size_t col) {
  chime__admin_set_text(t, to,
                        chime__mysql_rows_is_null(rows, i, col)
                            ? NULL
                            : chime__mysql_rows_text(rows, i, col));
}

static void put_int(chime_admin_table *t, size_t to,
                    const chime__mysql_rows *rows, size_t i, size_t col) {
  if (!chime__mysql_rows_is_null(rows, i, col))
    chime__admin_set_int(t, to, chime__mysql_rows_int64(rows, i, col));
}

/* Appends every row of rows, whose columns are t's in t's order, each cell
 * by its column's type (SQL NULL stays null). */
static void copy_rows(chime_admin_table *t, const chime__mysql_rows *rows) {
  size_t ncols = chime_admin_table_get_column_count(t);
  assert(rows->nrows == 0 || rows->ncols == ncols);
  for (size_t i = 0; i < rows->nrows && chime__admin_row_add(t) == 0; i++)
    for (size_t k = 0; k < ncols; k++)
      if (chime_admin_table_get_column_type(t, k) == CHIME_ADMIN_INT64)
        put_int(t, k, rows, i, k);
      else if (chime_admin_table_get_column_type(t, k) == CHIME_ADMIN_BYTES)
        chime__admin_set_bytes(t, k,
                               chime__mysql_rows_is_null(rows, i, k)
                                   ? NULL
                                   : chime__mysql_rows_text(rows, i, k),
                               chime__mysql_rows_len(rows, i, k));
      else
        put_text(t, k, rows, i, k);
}

/* One prepared statement (queries/NAME.sql) with op's arguments. */
typedef struct prepared_op {
  chime__mysql_stmt_id id;
  select_op *op;
} prepared_op;

static int prepared_fn(chime__mysql_tx *tx, void *arg) {
  prepared_op *p = arg;
  return chime__mysql_query(tx, p->id, p->op->args, p->op->nargs, &p->op->rows);
}

static void prepared_reset(void *arg) {
  select_reset(((prepared_op *)arg)->op);
}

/* Runs statement id (queries/NAME.sql) with op's arguments into op->rows. */
static int select_prepared(chime__mysql_store *s, chime__mysql_stmt_id id,
                           select_op *op, char *errbuf, size_t errbuf_len) {
  prepared_op p = {id, op};
  return chime__mysql_tx_run(s, prepared_fn, prepared_reset, &p, errbuf,
                             errbuf_len);
}

/* ---------------------------------------------------------------- nodes */

static int list_nodes(chime__mysql_store *s, const chime_admin_query *q,
                      bool hide_self, chime_admin_table *t, char *errbuf,
                      size_t errbuf_len) {
  /* The columns of CHIME__ADMIN_NODE_COLUMNS, in order (copy_rows). */
  select_op op = {0};
  arg_text(&op, s->sched);
  arg_text(&op, hide_self ? s->node : "");
  arg_int(&op, (int64_t)q->limit);
  arg_int(&op, (int64_t)q->offset);
  int r = select_prepared(s, CHIME__Q_ADMIN_NODES, &op, errbuf, errbuf_len);
  if (r == 0)
    copy_rows(t, &op.rows);
  chime__mysql_rows_free(&op.rows);
  return r;
}

/* ----------------------------------------------------------------- jobs */

static int list_jobs(chime__mysql_store *s, const chime_admin_query *q,
                     chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  /* The group matcher is the stores' rule (chime__group_matches), applied
   * to the rows; the page after it. */
  select_op op = {0};
  arg_text(&op, s->sched);
  int r = select_prepared(s, CHIME__Q_ADMIN_JOBS, &op, errbuf, errbuf_len);
  for (size_t i = 0; r == 0 && i < op.rows.nrows; i++) {
    if (!chime__group_matches(q->match, q->pattern, TEXT(0)) ||
        chime__admin_row_add(t) < 0)
      continue;
    put_text(t, CHIME__AC_JOB_GROUP, &op.rows, i, 0);
    put_text(t, CHIME__AC_JOB_NAME, &op.rows, i, 1);
    put_text(t, CHIME__AC_JOB_TYPE, &op.rows, i, 2);
    chime__admin_set_text(t, CHIME__AC_JOB_CONCURRENCY,
                          chime__admin_concurrency_name((int)INT(3)));
    put_int(t, CHIME__AC_JOB_DURABLE, &op.rows, i, 4);
    put_int(t, CHIME__AC_JOB_RECOVERY, &op.rows, i, 5);
    put_int(t, CHIME__AC_JOB_PERSIST, &op.rows, i, 6);
    put_int(t, CHIME__AC_JOB_PAUSED, &op.rows, i, 7);
    put_int(t, CHIME__AC_JOB_TRIGGERS, &op.rows, i, 8);
    put_text(t, CHIME__AC_JOB_DESCRIPTION, &op.rows, i, 9);
    put_int(t, CHIME__AC_JOB_TIMEOUT_MS, &op.rows, i, 10);
    put_int(t, CHIME__AC_JOB_DEADLINE_MS, &op.rows, i, 11);
    put_int(t, CHIME__AC_JOB_HISTORY_LEVEL, &op.rows, i, 12);
    chime__admin_set_bytes(
        t, CHIME__AC_JOB_DATA,
        chime__mysql_rows_is_null(&op.rows, i, 13) ? NULL : TEXT(13),
        chime__mysql_rows_len(&op.rows, i, 13));
  }
  chime__mysql_rows_free(&op.rows);
  if (r == 0)
    chime__admin_table_page(t, q->offset, q->limit);
  return r;
}

/* ------------------------------------------------------------- triggers */

/* Adds trigger row i, decoded by the store's decoder. */
static int trigger_row(chime_admin_table *t, const chime__mysql_rows *rows,
                       size_t i) {
  chime_trigger *tr = NULL;
  int r = chime__mysql_trigger_from_row(rows, i, &tr);
  if (r < 0)
    return r;
  if (chime__admin_row_add(t) == 0) {
    chime__admin_put_trigger(
        t, tr, chime__mysql_rows_text(rows, i, CHIME__TRIG_COL_STATE),
        chime__mysql_rows_is_null(rows, i, CHIME__TRIG_COL_OWNER)
            ? NULL
            : chime__mysql_rows_text(rows, i, CHIME__TRIG_COL_OWNER));
    put_text(t, CHIME__AC_TRIGGER_JOB_TYPE, rows, i, CHIME__TRIG_COL_JOB_TYPE);
    const char *tags =
        chime__mysql_rows_text(rows, i, CHIME__TRIG_COL_JOB_TAGS);
    chime__admin_set_text(t, CHIME__AC_TRIGGER_JOB_TAGS,
                          tags && tags[0] ? tags : NULL);
    if (!chime__mysql_rows_is_null(rows, i, CHIME__TRIG_COL_CLAIM_FIRE_ID) &&
        chime__mysql_rows_int64(rows, i, CHIME__TRIG_COL_CLAIM_FIRE_ID) > 0)
      put_int(t, CHIME__AC_TRIGGER_CLAIM_FIRE_ID, rows, i,
              CHIME__TRIG_COL_CLAIM_FIRE_ID);
  }
  chime_trigger_free(tr);
  return 0;
}

static int list_triggers(chime__mysql_store *s, const chime_admin_query *q,
                         chime_admin_table *t, char *errbuf,
                         size_t errbuf_len) {
  select_op op = {0};
  arg_text(&op, s->sched);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_name);
  int r;
  if (q->late_before_ms) { /* queries/trig_list_late.sql */
    arg_int(&op, q->late_before_ms);
    r = select_prepared(s, CHIME__Q_TRIG_LIST_LATE, &op, errbuf, errbuf_len);
  } else {
    arg_text(&op, q->trigger_group);
    arg_text(&op, q->trigger_group);
    arg_text(&op, q->trigger_name);
    r = select_prepared(s, CHIME__Q_ADMIN_TRIGGERS, &op, errbuf, errbuf_len);
  }
  for (size_t i = 0; r == 0 && i < op.rows.nrows; i++)
    if (chime__group_matches(q->match, q->pattern, TEXT(0)) &&
        (!q->trigger_group || (strcmp(TEXT(0), q->trigger_group) == 0 &&
                               strcmp(TEXT(1), q->trigger_name) == 0)))
      r = trigger_row(t, &op.rows, i);
  chime__mysql_rows_free(&op.rows);
  if (r == 0)
    chime__admin_table_page(t, q->offset, q->limit);
  return r;
}

/* ---------------------------------------------------------------- fires */

static int list_fires(chime__mysql_store *s, const chime_admin_query *q,
                      chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  /* The columns of CHIME__ADMIN_FIRE_COLUMNS, in order (copy_rows). */
  select_op op = {0};
  arg_text(&op, s->sched);
  arg_text(&op, s->sched); /* runs kept in trigger rows (runs.c) */
  arg_text(&op, q->node);
  arg_text(&op, q->node);
  arg_int(&op, q->fire_id);
  arg_int(&op, q->fire_id);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_name);
  arg_text(&op, q->trigger_group);
  arg_text(&op, q->trigger_group);
  arg_text(&op, q->trigger_name);
  arg_int(&op, (int64_t)q->limit);
  arg_int(&op, (int64_t)q->offset);
  int r = select_prepared(s, CHIME__Q_ADMIN_FIRES, &op, errbuf, errbuf_len);
  if (r == 0)
    copy_rows(t, &op.rows);
  chime__mysql_rows_free(&op.rows);
  return r;
}

/* -------------------------------------------------------------- history */

/* Fills slot (text) of b; an int slot. */
static void slot_text(chime__mysql_sqlbuf *b, const char *slot, const char *v) {
  chime__mysql_sqlbuf_at(b, slot);
  chime__mysql_sqlbuf_text(b, v);
}

static void slot_int(chime__mysql_sqlbuf *b, const char *slot, int64_t v) {
  chime__mysql_sqlbuf_at(b, slot);
  chime__mysql_sqlbuf_int(b, v);
}

/* Keeps part name of b when on, and says so. */
static bool part(chime__mysql_sqlbuf *b, const char *name, bool on) {
  chime__mysql_sqlbuf_part(b, name, on);
  return on;
}

typedef struct history_op {
  const chime_admin_query *q;
  chime__mysql_rows rows;
} history_op;

/* queries/admin_history.sql with only the filters q has.  Its columns are
 * CHIME__ADMIN_HISTORY_COLUMNS, in order (copy_rows). */
static int history_fn(chime__mysql_tx *tx, void *arg) {
  history_op *op = arg;
  const chime_admin_query *q = op->q;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_ADMIN_HISTORY);
  slot_text(&b, "sched", tx->s->sched);
  if (part(&b, "job", q->job_group != NULL)) {
    slot_text(&b, "job_group", q->job_group);
    slot_text(&b, "job_name", q->job_name);
  }
  if (part(&b, "trigger", q->trigger_group != NULL)) {
    slot_text(&b, "trigger_group", q->trigger_group);
    slot_text(&b, "trigger_name", q->trigger_name);
  }
  if (part(&b, "node", q->node != NULL))
    slot_text(&b, "node", q->node);
  if (part(&b, "fire", q->fire_id != 0))
    slot_int(&b, "fire_id", q->fire_id);
  if (part(&b, "from", q->from_ms != 0))
    slot_int(&b, "from_ms", q->from_ms);
  if (part(&b, "to", q->to_ms != 0))
    slot_int(&b, "to_ms", q->to_ms);
  part(&b, "failed", q->failed_only);
  if (part(&b, "outcome", q->outcome != NULL))
    slot_text(&b, "outcome", q->outcome);
  if (part(&b, "after", q->by_id))
    slot_int(&b, "after_id", q->after_id);
  if (part(&b, "upto", q->by_id && q->upto_id))
    slot_int(&b, "upto_id", q->upto_id);
  part(&b, "asc", q->by_id);
  part(&b, "desc", !q->by_id);
  slot_int(&b, "limit", (int64_t)q->limit);
  slot_int(&b, "offset", (int64_t)q->offset);
  return chime__mysql_sqlbuf_run(&b, &op->rows, NULL);
}

static void history_reset(void *arg) {
  history_op *op = arg;
  chime__mysql_rows_free(&op->rows);
  op->rows = (chime__mysql_rows){0};
}

static int list_history(chime__mysql_store *s, const chime_admin_query *q,
                        chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  history_op op = {.q = q};
  int r = chime__mysql_tx_run(s, history_fn, history_reset, &op, errbuf,
                              errbuf_len);
  if (r == 0)
    copy_rows(t, &op.rows);
  chime__mysql_rows_free(&op.rows);
  return r;
}

/* --------------------------------------------------------------- leases */

/* Runs statement id with op's arguments and the query's page; its rows,
 * whose columns are t's in order, go into t (copy_rows). */
static int run_prepared(chime__mysql_store *s, chime__mysql_stmt_id id,
                        select_op *op, const chime_admin_query *q,
                        chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  arg_int(op, (int64_t)q->limit);
  arg_int(op, (int64_t)q->offset);
  prepared_op p = {id, op};
  int r = chime__mysql_tx_run(s, prepared_fn, prepared_reset, &p, errbuf,
                              errbuf_len);
  if (r == 0)
    copy_rows(t, &op->rows);
  chime__mysql_rows_free(&op->rows);
  return r;
}

static int list_leases(chime__mysql_store *s, const chime_admin_query *q,
                       chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  select_op op = {0}; /* queries/lease_list.sql */
  arg_text(&op, s->sched);
  return run_prepared(s, CHIME__Q_LEASE_LIST, &op, q, t, errbuf, errbuf_len);
}

/* ---------------------------------------------------------------- audit */

static int list_audit(chime__mysql_store *s, const chime_admin_query *q,
                      chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  select_op op = {0}; /* queries/audit_list.sql */
  arg_text(&op, s->sched);
  arg_int(&op, q->from_ms);
  arg_int(&op, q->to_ms);
  arg_int(&op, q->to_ms);
  arg_text(&op, q->who);
  arg_text(&op, q->who);
  arg_text(&op, q->action);
  arg_text(&op, q->action);
  return run_prepared(s, CHIME__Q_AUDIT_LIST, &op, q, t, errbuf, errbuf_len);
}

/* ------------------------------------------------------------ job stats */

static int list_job_stats(chime__mysql_store *s, const chime_admin_query *q,
                          chime_admin_table *t, char *errbuf,
                          size_t errbuf_len) {
  select_op op = {0}; /* queries/job_stats.sql */
  arg_text(&op, s->sched);
  arg_int(&op, q->from_ms);
  arg_int(&op, q->to_ms);
  arg_int(&op, q->to_ms);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_name);
  return run_prepared(s, CHIME__Q_JOB_STATS, &op, q, t, errbuf, errbuf_len);
}

#undef INT
#undef TEXT

int chime__mysql_admin_list(chime_store *store, const chime_admin_query *q,
                            bool hide_self, chime_admin_table *t, char *errbuf,
                            size_t errbuf_len) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  switch (q->kind) {
  case CHIME_ADMIN_NODES:
    return list_nodes(s, q, hide_self, t, errbuf, errbuf_len);
  case CHIME_ADMIN_JOBS:
    return list_jobs(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_TRIGGERS:
    return list_triggers(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_FIRES:
    return list_fires(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_HISTORY:
    return list_history(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_LEASES:
    return list_leases(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_AUDIT:
    return list_audit(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_STUCK:
    return chime__mysql_admin_stuck(store, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_JOB_STATS:
    return list_job_stats(s, q, t, errbuf, errbuf_len);
  default: /* the cluster's figures */
    return chime__mysql_admin_stats(store, q, hide_self, t, errbuf, errbuf_len);
  }
  return CHIME_EINVAL;
}
