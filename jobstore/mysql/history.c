/*
 * mysql/history.c: the history_list op: the runs of the history table
 * (kept for history_retention_ms; node deaths and recoveries are recorded
 * there by recover.c) matching a filter, newest first, paged by id, each
 * with its own data (migration 015; NULL: the job's).  One
 * statement, built from the filters given and prepared for the call.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  C_ID,
  C_FIRE_ID,
  C_JOB_GROUP,
  C_JOB_NAME,
  C_TRIGGER_GROUP,
  C_TRIGGER_NAME,
  C_SCHEDULED,
  C_STARTED,
  C_FINISHED,
  C_NODE,
  C_OUTCOME,
  C_ERROR,
  C_TEXT,
  C_RECOVERING,
  C_DATA
};

typedef struct hist_op {
  char *sql;
  chime__mysql_arg args[10];
  size_t nargs;
  chime__mysql_rows rows;
} hist_op;

static int hist_fn(chime__mysql_tx *tx, void *arg) {
  hist_op *op = arg;
  return chime__mysql_query_sql(tx, op->sql, op->args, op->nargs, &op->rows);
}

static void hist_reset(void *arg) {
  chime__mysql_rows_free(&((hist_op *)arg)->rows);
}

/* Appends " AND cond" with its argument a. */
static size_t add(hist_op *op, char *sql, size_t len, size_t k,
                  const char *cond, chime__mysql_arg a) {
  assert(op->nargs < sizeof op->args / sizeof op->args[0]);
  op->args[op->nargs++] = a;
  return k + (size_t)snprintf(sql + k, len - k, " AND %s", cond);
}

static char *dup_text(const chime__mysql_rows *rows, size_t i, int col) {
  const char *v = chime__mysql_rows_text(rows, i, col);
  return v ? strdup(v) : NULL;
}

static int entry_from_row(chime_history_entry *e, const chime__mysql_rows *rows,
                          size_t i) {
  e->id = chime__mysql_rows_int64(rows, i, C_ID);
  e->fire_id = chime__mysql_rows_int64(rows, i, C_FIRE_ID);
  e->scheduled_ms = chime__mysql_rows_int64(rows, i, C_SCHEDULED);
  e->started_ms = chime__mysql_rows_int64(rows, i, C_STARTED);
  e->finished_ms = chime__mysql_rows_int64(rows, i, C_FINISHED);
  e->error = (int)chime__mysql_rows_int64(rows, i, C_ERROR);
  e->recovering = chime__mysql_rows_int64(rows, i, C_RECOVERING) != 0;
  e->job_group = dup_text(rows, i, C_JOB_GROUP);
  e->job_name = dup_text(rows, i, C_JOB_NAME);
  e->trigger_group = dup_text(rows, i, C_TRIGGER_GROUP);
  e->trigger_name = dup_text(rows, i, C_TRIGGER_NAME);
  e->node = dup_text(rows, i, C_NODE);
  e->outcome = dup_text(rows, i, C_OUTCOME);
  e->message = dup_text(rows, i, C_TEXT);
  bool text_ok = !chime__mysql_rows_text(rows, i, C_TEXT) || e->message;
  /* The run's own data: NULL (the job's) or at least one byte. */
  size_t len = chime__mysql_rows_len(rows, i, C_DATA);
  bool data_ok = true;
  if (len > 0 && (data_ok = (e->data = malloc(len)) != NULL)) {
    memcpy(e->data, chime__mysql_rows_text(rows, i, C_DATA), len);
    e->data_len = len;
  }
  return e->job_group && e->job_name && e->trigger_group && e->trigger_name &&
                 e->node && e->outcome && text_ok && data_ok
             ? 0
             : CHIME_ENOMEM;
}

int chime__mysql_history_list(chime_store *store, const chime_history_filter *f,
                              chime_history_entry **ret_entries,
                              size_t *ret_count) {
  if (!f || f->limit == 0 || !ret_entries || !ret_count)
    return CHIME_EINVAL;
  chime__mysql_store *s = chime__mysql_store_of(store);
  hist_op op = {0};
  char sql[1024];
  size_t k = (size_t)snprintf(
      sql, sizeof sql,
      "SELECT id, fire_id, job_group, job_name, trigger_group, trigger_name, "
      "scheduled_ms, started_ms, finished_ms, node, outcome, error_code, "
      "error_text, recovering, data FROM {P}history WHERE sched_name = ?");
  op.args[op.nargs++] = chime__mysql_arg_text(s->sched);
  if (f->job_group && f->job_name) {
    k = add(&op, sql, sizeof sql, k, "job_group = ?",
            chime__mysql_arg_text(f->job_group));
    k = add(&op, sql, sizeof sql, k, "job_name = ?",
            chime__mysql_arg_text(f->job_name));
  }
  if (f->trigger_group && f->trigger_name) {
    k = add(&op, sql, sizeof sql, k, "trigger_group = ?",
            chime__mysql_arg_text(f->trigger_group));
    k = add(&op, sql, sizeof sql, k, "trigger_name = ?",
            chime__mysql_arg_text(f->trigger_name));
  }
  if (f->outcome)
    k = add(&op, sql, sizeof sql, k, "outcome = ?",
            chime__mysql_arg_text(f->outcome));
  if (f->from_ms)
    k = add(&op, sql, sizeof sql, k, "started_ms >= ?",
            chime__mysql_arg_int(f->from_ms));
  if (f->to_ms)
    k = add(&op, sql, sizeof sql, k, "started_ms < ?",
            chime__mysql_arg_int(f->to_ms));
  if (f->before_id)
    k = add(&op, sql, sizeof sql, k, "id < ?",
            chime__mysql_arg_int(f->before_id));
  snprintf(sql + k, sizeof sql - k, " ORDER BY id DESC LIMIT %zu", f->limit);
  op.sql = chime__mysql_subst_prefix(sql, s->prefix);
  if (!op.sql)
    return CHIME_ENOMEM;
  int r = chime__mysql_tx_run(s, hist_fn, hist_reset, &op, NULL, 0);
  free(op.sql);
  chime_history_entry *out = NULL;
  size_t n = 0;
  if (r == 0 && op.rows.nrows > 0 &&
      !(out = calloc(op.rows.nrows, sizeof *out)))
    r = CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < op.rows.nrows; i++)
    r = entry_from_row(&out[n++], &op.rows, i);
  chime__mysql_rows_free(&op.rows);
  if (r < 0) {
    chime__history_entries_free(out, n);
    return r;
  }
  *ret_entries = out;
  *ret_count = n;
  return 0;
}
