/*
 * mysql/admin_list.c: the MySQL store's operators' lists (store.h's
 * admin_list; chime-admin.h): one SELECT per list on the store's tables
 * (docs/schema.md), in a transaction of its own, each row put into the
 * table under jobstore/admin.h's column names.  Live and dead are the
 * store's own rule (CHIME__MYSQL_NODE_LIVE_SQL), trigger rows are decoded
 * by the store's own decoder (columns.h), times are the database's.
 */
#include "jobstore/admin.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The store's liveness rule on a nodes row n, and the database's now. */
#define NODE_LIVE_SQL CHIME__MYSQL_NODE_LIVE_SQL("n.")
#define NOW_SQL CHIME__MYSQL_NOW_MS_SQL

/* Up to this many arguments a list's statement takes. */
#define MAX_ARGS 16

/* One SELECT: its text ({P} substituted), its arguments, its rows. */
typedef struct select_op {
  const char *sql;
  chime__mysql_arg args[MAX_ARGS];
  size_t nargs;
  chime__mysql_rows rows;
} select_op;

static int select_fn(chime__mysql_tx *tx, void *arg) {
  select_op *op = arg;
  return chime__mysql_query_sql(tx, op->sql, op->args, op->nargs, &op->rows);
}

static void select_reset(void *arg) {
  select_op *op = arg;
  chime__mysql_rows_free(&op->rows);
}

/* Runs sql (with {P}) with op's arguments; op->rows the result. */
static int run_select(chime__mysql_store *s, const char *sql, select_op *op,
                      char *errbuf, size_t errbuf_len) {
  char *text = chime__mysql_subst_prefix(sql, s->prefix);
  if (!text)
    return CHIME_ENOMEM;
  op->sql = text;
  int r =
      chime__mysql_tx_run(s, select_fn, select_reset, op, errbuf, errbuf_len);
  free(text);
  if (r < 0)
    select_reset(op);
  return r;
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

/* ---------------------------------------------------------------- nodes */

static int list_nodes(chime__mysql_store *s, const chime_admin_query *q,
                      bool hide_self, chime_admin_table *t, char *errbuf,
                      size_t errbuf_len) {
  /* The columns of CHIME__ADMIN_NODE_COLUMNS, in order (copy_rows). */
  static const char sql[] =
      "SELECT n.instance_id, n.host, n.pid, n.version, n.started_ms, "
      "n.last_checkin_ms, n.checkin_interval_ms, " NOW_SQL
      " - n.last_checkin_ms, " NODE_LIVE_SQL ", COALESCE((SELECT "
      "IF(d.state = 'DRAINED', 'drained', 'draining') FROM {P}node_drains d "
      "WHERE d.sched_name = n.sched_name AND d.instance_id = n.instance_id), "
      "'active'), (SELECT COUNT(*) FROM {P}fired f WHERE f.sched_name = "
      "n.sched_name AND f.node = n.instance_id AND f.state = 'EXECUTING'), "
      "n.tags FROM {P}nodes n WHERE n.sched_name = ? AND n.instance_id <> ? "
      "ORDER BY "
      "n.instance_id LIMIT ? OFFSET ?";
  select_op op = {0};
  arg_text(&op, s->sched);
  arg_text(&op, hide_self ? s->node : "");
  arg_int(&op, (int64_t)q->limit);
  arg_int(&op, (int64_t)q->offset);
  int r = run_select(s, sql, &op, errbuf, errbuf_len);
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
  static const char sql[] =
      "SELECT j.job_group, j.job_name, j.job_type, j.concurrency, "
      "j.durable, j.requests_recovery, j.persist_data, j.paused, (SELECT "
      "COUNT(*) FROM {P}triggers t WHERE t.sched_name = j.sched_name AND "
      "t.job_group = j.job_group AND t.job_name = j.job_name), "
      "j.description, j.timeout_ms, j.starting_deadline_ms, j.history_level, "
      "j.data FROM {P}jobs j WHERE j.sched_name = ? ORDER BY "
      "j.job_group, j.job_name";
  select_op op = {0};
  arg_text(&op, s->sched);
  int r = run_select(s, sql, &op, errbuf, errbuf_len);
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
  static const char sql[] =
      "SELECT " CHIME__MYSQL_TRIGGER_COLS_SQL " FROM {P}triggers WHERE "
      "sched_name = ? AND (? IS NULL OR (job_group = ? AND job_name = ?)) "
      "AND (? IS NULL OR (trigger_group = ? AND trigger_name = ?)) "
      "ORDER BY trigger_group, trigger_name";
  select_op op = {0};
  arg_text(&op, s->sched);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_group);
  arg_text(&op, q->job_name);
  int r;
  if (q->late_before_ms) { /* queries/trig_list_late.sql */
    arg_int(&op, q->late_before_ms);
    prepared_op p = {CHIME__Q_TRIG_LIST_LATE, &op};
    r = chime__mysql_tx_run(s, prepared_fn, prepared_reset, &p, errbuf,
                            errbuf_len);
  } else {
    arg_text(&op, q->trigger_group);
    arg_text(&op, q->trigger_group);
    arg_text(&op, q->trigger_name);
    r = run_select(s, sql, &op, errbuf, errbuf_len);
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
  static const char sql[] =
      "SELECT f.fire_id, f.job_group, f.job_name, f.trigger_group, "
      "f.trigger_name, f.node, f.state, f.scheduled_ms, f.acquired_ms, "
      "" NOW_SQL " - f.acquired_ms, f.recovering, (SELECT COUNT(*) FROM "
      "{P}nodes n WHERE n.sched_name = "
      "f.sched_name AND n.instance_id = f.node AND " NODE_LIVE_SQL ") FROM "
      "{P}fired f WHERE f.sched_name = ? AND (? IS NULL OR f.node = ?) AND "
      "(? = 0 OR f.fire_id = ?) AND (? IS NULL OR (f.job_group = ? AND "
      "f.job_name = ?)) AND (? IS NULL OR (f.trigger_group = ? AND "
      "f.trigger_name = ?)) ORDER BY f.fire_id LIMIT ? OFFSET ?";
  select_op op = {0};
  arg_text(&op, s->sched);
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
  int r = run_select(s, sql, &op, errbuf, errbuf_len);
  if (r == 0)
    copy_rows(t, &op.rows);
  chime__mysql_rows_free(&op.rows);
  return r;
}

/* -------------------------------------------------------------- history */

/* The history's statement for q into sql (len bytes), its arguments into
 * op: only the filters q has.  Its columns are CHIME__ADMIN_HISTORY_COLUMNS,
 * in order (copy_rows). */
static void history_sql(const chime__mysql_store *s, const chime_admin_query *q,
                        char *sql, size_t len, select_op *op) {
  size_t k = (size_t)snprintf(
      sql, len,
      "SELECT id, fire_id, job_group, job_name, trigger_group, "
      "trigger_name, node, outcome, scheduled_ms, started_ms, duration_ms, "
      "error_code, error_text, recovering, COALESCE(LENGTH(data), 0), data, "
      "finished_ms, NULLIF(shard_parent, 0), IF(shard_parent > 0, "
      "shard_index, NULL) FROM {P}history WHERE sched_name = ?");
  arg_text(op, s->sched);
#define WHERE(text) k += (size_t)snprintf(sql + k, len - k, "%s", text)
  if (q->job_group) {
    WHERE(" AND job_group = ? AND job_name = ?");
    arg_text(op, q->job_group);
    arg_text(op, q->job_name);
  }
  if (q->trigger_group) {
    WHERE(" AND trigger_group = ? AND trigger_name = ?");
    arg_text(op, q->trigger_group);
    arg_text(op, q->trigger_name);
  }
  if (q->node) {
    WHERE(" AND node = ?");
    arg_text(op, q->node);
  }
  if (q->fire_id) {
    WHERE(" AND fire_id = ?");
    arg_int(op, q->fire_id);
  }
  if (q->from_ms) {
    WHERE(" AND started_ms >= ?");
    arg_int(op, q->from_ms);
  }
  if (q->to_ms) {
    WHERE(" AND started_ms < ?");
    arg_int(op, q->to_ms);
  }
  if (q->failed_only)
    WHERE(" AND outcome <> 'OK'");
  if (q->outcome) {
    WHERE(" AND outcome = ?");
    arg_text(op, q->outcome);
  }
  if (q->by_id) {
    WHERE(" AND id > ?");
    arg_int(op, q->after_id);
  }
  if (q->by_id && q->upto_id) {
    WHERE(" AND id <= ?");
    arg_int(op, q->upto_id);
  }
#undef WHERE
  snprintf(sql + k, len - k, " ORDER BY id %s LIMIT %zu OFFSET %zu",
           q->by_id ? "ASC" : "DESC", q->limit, q->offset);
}

static int list_history(chime__mysql_store *s, const chime_admin_query *q,
                        chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  char sql[1024];
  select_op op = {0};
  history_sql(s, q, sql, sizeof sql, &op);
  int r = run_select(s, sql, &op, errbuf, errbuf_len);
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
