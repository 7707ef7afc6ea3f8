/*
 * mysql/history.c: the history_list op: the runs of the history table
 * (kept for history_retention_ms; node deaths and recoveries are recorded
 * there by recover.c) matching a filter, newest first, paged by id, each
 * with its own data (migration 015; NULL: the job's).  One text
 * statement, queries/history_list.sql, with the filters given.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"

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
  const chime_history_filter *f;
  chime__mysql_rows rows;
} hist_op;

/* Keeps part name of b when on, and says so. */
static bool part(chime__mysql_sqlbuf *b, const char *name, bool on) {
  chime__mysql_sqlbuf_part(b, name, on);
  return on;
}

/* queries/history_list.sql with only the filters f has. */
static int hist_fn(chime__mysql_tx *tx, void *arg) {
  hist_op *op = arg;
  const chime_history_filter *f = op->f;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_HISTORY_LIST);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  if (part(&b, "job", f->job_group && f->job_name)) {
    chime__mysql_sqlbuf_at(&b, "job_group");
    chime__mysql_sqlbuf_text(&b, f->job_group);
    chime__mysql_sqlbuf_at(&b, "job_name");
    chime__mysql_sqlbuf_text(&b, f->job_name);
  }
  if (part(&b, "trigger", f->trigger_group && f->trigger_name)) {
    chime__mysql_sqlbuf_at(&b, "trigger_group");
    chime__mysql_sqlbuf_text(&b, f->trigger_group);
    chime__mysql_sqlbuf_at(&b, "trigger_name");
    chime__mysql_sqlbuf_text(&b, f->trigger_name);
  }
  if (part(&b, "outcome", f->outcome != NULL)) {
    chime__mysql_sqlbuf_at(&b, "outcome");
    chime__mysql_sqlbuf_text(&b, f->outcome);
  }
  if (part(&b, "from", f->from_ms != 0)) {
    chime__mysql_sqlbuf_at(&b, "from_ms");
    chime__mysql_sqlbuf_int(&b, f->from_ms);
  }
  if (part(&b, "to", f->to_ms != 0)) {
    chime__mysql_sqlbuf_at(&b, "to_ms");
    chime__mysql_sqlbuf_int(&b, f->to_ms);
  }
  if (part(&b, "before", f->before_id != 0)) {
    chime__mysql_sqlbuf_at(&b, "before_id");
    chime__mysql_sqlbuf_int(&b, f->before_id);
  }
  chime__mysql_sqlbuf_at(&b, "limit");
  chime__mysql_sqlbuf_int(&b, (int64_t)f->limit);
  return chime__mysql_sqlbuf_run(&b, &op->rows, NULL);
}

static void hist_reset(void *arg) {
  hist_op *op = arg;
  chime__mysql_rows_free(&op->rows);
  op->rows = (chime__mysql_rows){0};
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
  hist_op op = {.f = f};
  int r = chime__mysql_tx_run(s, hist_fn, hist_reset, &op, NULL, 0);
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
