/*
 * mysql/admin_stats.c: the MySQL store's lists of the cluster's figures
 * (chime-admin.h's CHIME_ADMIN_RUN_COUNTS to _DRAINS), its group
 * pauses (CHIME_ADMIN_PAUSED_GROUPS) and what it holds (CHIME_ADMIN_STORAGE,
 * _SESSIONS; store.h's
 * admin_list, dispatched by admin_list.c): each one statement of
 * queries/ counting on the server (GROUP BY, SUM), so that a large history
 * is never carried over, in a transaction of its own.
 */
#include "jobstore/admin.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most arguments a statement here takes: the lateness's buckets. */
#define STATS_ARGS (2 * CHIME__ADMIN_NBUCKETS + 1)

/* One prepared statement, its arguments and its rows. */
typedef struct stats_op {
  chime__mysql_stmt_id id;
  chime__mysql_arg args[STATS_ARGS];
  size_t nargs;
  chime__mysql_rows rows;
} stats_op;

static int stats_fn(chime__mysql_tx *tx, void *arg) {
  stats_op *op = arg;
  return chime__mysql_query(tx, op->id, op->args, op->nargs, &op->rows);
}

static void stats_reset(void *arg) {
  chime__mysql_rows_free(&((stats_op *)arg)->rows);
}

static void add_arg(stats_op *op, chime__mysql_arg a) {
  assert(op->nargs < STATS_ARGS);
  op->args[op->nargs++] = a;
}

/* Runs op's statement with the page's limit and offset appended; its
 * rows, whose columns are t's in order (text or integers, SQL NULL a null
 * cell), go into t. */
static int run_rows(chime__mysql_store *s, stats_op *op,
                    const chime_admin_query *q, chime_admin_table *t,
                    char *errbuf, size_t errbuf_len) {
  add_arg(op, chime__mysql_arg_int((int64_t)q->limit));
  add_arg(op, chime__mysql_arg_int((int64_t)q->offset));
  int r = chime__mysql_tx_run(s, stats_fn, stats_reset, op, errbuf, errbuf_len);
  size_t ncols = chime_admin_table_get_column_count(t);
  for (size_t i = 0; r == 0 && i < op->rows.nrows; i++) {
    assert(op->rows.ncols == ncols);
    if (chime__admin_row_add(t) < 0)
      break;
    for (size_t k = 0; k < ncols; k++)
      if (chime__mysql_rows_is_null(&op->rows, i, k))
        continue;
      else if (chime_admin_table_get_column_type(t, k) == CHIME_ADMIN_INT64)
        chime__admin_set_int(t, k, chime__mysql_rows_int64(&op->rows, i, k));
      else
        chime__admin_set_text(t, k, chime__mysql_rows_text(&op->rows, i, k));
  }
  chime__mysql_rows_free(&op->rows);
  return r;
}

/* A list whose statement takes (sched_name, limit, offset). */
static int list_plain(chime__mysql_store *s, chime__mysql_stmt_id id,
                      const chime_admin_query *q, chime_admin_table *t,
                      char *errbuf, size_t errbuf_len) {
  stats_op op = {.id = id};
  add_arg(&op, chime__mysql_arg_text(s->sched));
  return run_rows(s, &op, q, t, errbuf, errbuf_len);
}

/* The claimed fires by state (queries/fired_state_counts.sql): the fired
 * rows' and the runs kept in trigger rows' (runs.c), the scheduler named
 * for each. */
static int list_fire_states(chime__mysql_store *s, const chime_admin_query *q,
                            chime_admin_table *t, char *errbuf,
                            size_t errbuf_len) {
  stats_op op = {.id = CHIME__Q_FIRED_STATE_COUNTS};
  add_arg(&op, chime__mysql_arg_text(s->sched));
  add_arg(&op, chime__mysql_arg_text(s->sched));
  return run_rows(s, &op, q, t, errbuf, errbuf_len);
}

/* The runs started in the query's time range, by minute
 * (queries/history_activity.sql). */
static int list_activity(chime__mysql_store *s, const chime_admin_query *q,
                         chime_admin_table *t, char *errbuf,
                         size_t errbuf_len) {
  stats_op op = {.id = CHIME__Q_HISTORY_ACTIVITY};
  add_arg(&op, chime__mysql_arg_text(s->sched));
  add_arg(&op, chime__mysql_arg_int(q->from_ms));
  add_arg(&op, chime__mysql_arg_int(q->to_ms));
  add_arg(&op, chime__mysql_arg_int(q->to_ms));
  return run_rows(s, &op, q, t, errbuf, errbuf_len);
}

/* The nodes' starts and lost runs (queries/node_events.sql). */
static int list_events(chime__mysql_store *s, const chime_admin_query *q,
                       bool hide_self, chime_admin_table *t, char *errbuf,
                       size_t errbuf_len) {
  stats_op op = {.id = CHIME__Q_NODE_EVENTS};
  add_arg(&op, chime__mysql_arg_text(s->sched));
  add_arg(&op, chime__mysql_arg_text(hide_self ? s->node : ""));
  add_arg(&op, chime__mysql_arg_text(s->sched));
  add_arg(&op, chime__mysql_arg_int(CHIME_ENOTOWNER));
  return run_rows(s, &op, q, t, errbuf, errbuf_len);
}

/* The lateness: one row of sums (queries/history_lateness.sql) made the
 * list's rows, the buckets then every run. */
static int list_lateness(chime__mysql_store *s, const chime_admin_query *q,
                         chime_admin_table *t, char *errbuf,
                         size_t errbuf_len) {
  stats_op op = {.id = CHIME__Q_HISTORY_LATENESS};
  for (size_t b = 0; b < CHIME__ADMIN_NBUCKETS; b++) {
    add_arg(&op, chime__mysql_arg_int(chime__admin_lateness_ms[b]));
    add_arg(&op, chime__mysql_arg_int(chime__admin_lateness_ms[b]));
  }
  add_arg(&op, chime__mysql_arg_text(s->sched));
  int r =
      chime__mysql_tx_run(s, stats_fn, stats_reset, &op, errbuf, errbuf_len);
  if (r == 0 && op.rows.nrows == 1) {
    assert(op.rows.ncols == 2 + 2 * CHIME__ADMIN_NBUCKETS);
    int64_t runs[CHIME__ADMIN_NBUCKETS + 1], late[CHIME__ADMIN_NBUCKETS + 1];
    for (size_t b = 0; b < CHIME__ADMIN_NBUCKETS; b++) {
      runs[b] = chime__mysql_rows_int64(&op.rows, 0, 2 + 2 * b);
      late[b] = chime__mysql_rows_int64(&op.rows, 0, 3 + 2 * b);
    }
    runs[CHIME__ADMIN_NBUCKETS] = chime__mysql_rows_int64(&op.rows, 0, 0);
    late[CHIME__ADMIN_NBUCKETS] = chime__mysql_rows_int64(&op.rows, 0, 1);
    chime__admin_put_lateness(t, runs, late);
    chime__admin_table_page(t, q->offset, q->limit);
  }
  chime__mysql_rows_free(&op.rows);
  return r;
}

/* A row of queries/pg_list.sql, for sorting. */
typedef struct pg_row {
  const chime__mysql_rows *rows;
  size_t i;
} pg_row;

/* By match kind, then pattern: the table's key's order. */
static int by_match(const void *x, const void *y) {
  const pg_row *a = x, *b = y;
  int64_t ma = chime__mysql_rows_int64(a->rows, a->i, 0);
  int64_t mb = chime__mysql_rows_int64(b->rows, b->i, 0);
  return ma != mb ? (ma > mb) - (ma < mb)
                  : strcmp(chime__mysql_rows_text(a->rows, a->i, 1),
                           chime__mysql_rows_text(b->rows, b->i, 1));
}

/* The group pauses (queries/pg_list.sql, which has no order), those
 * covering q's trigger when it names one. */
static int list_paused(chime__mysql_store *s, const chime_admin_query *q,
                       chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  stats_op op = {.id = CHIME__Q_PG_LIST};
  add_arg(&op, chime__mysql_arg_text(s->sched));
  int r =
      chime__mysql_tx_run(s, stats_fn, stats_reset, &op, errbuf, errbuf_len);
  size_t n = r == 0 ? op.rows.nrows : 0;
  pg_row *v = n ? calloc(n, sizeof *v) : NULL;
  if (n && !v)
    r = CHIME_ENOMEM;
  for (size_t i = 0; v && i < n; i++)
    v[i] = (pg_row){&op.rows, i};
  if (v)
    qsort(v, n, sizeof *v, by_match);
  for (size_t k = 0; v && k < n; k++)
    chime__admin_put_paused_group(
        t, q, (chime_match)chime__mysql_rows_int64(&op.rows, v[k].i, 0),
        chime__mysql_rows_text(&op.rows, v[k].i, 1));
  free(v);
  chime__mysql_rows_free(&op.rows);
  if (r == 0)
    chime__admin_table_page(t, q->offset, q->limit);
  return r;
}

/* The retry links (queries/retry_links.sql), or those of one fire
 * (queries/retry_links_of.sql). */
static int list_retries(chime__mysql_store *s, const chime_admin_query *q,
                        chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  stats_op op = {.id = q->fire_id ? CHIME__Q_RETRY_LINKS_OF
                                  : CHIME__Q_RETRY_LINKS};
  char name[40];
  snprintf(name, sizeof name, "retry-%" PRId64, q->fire_id);
  if (q->fire_id) {
    for (int k = 0; k < 2; k++) { /* history, fired: what F retried */
      add_arg(&op, chime__mysql_arg_text(s->sched));
      add_arg(&op, chime__mysql_arg_int(q->fire_id));
    }
    for (int k = 0; k < 2; k++) { /* history, fired: what retried F */
      add_arg(&op, chime__mysql_arg_int(q->fire_id));
      add_arg(&op, chime__mysql_arg_text(s->sched));
      add_arg(&op, chime__mysql_arg_int(q->fire_id));
      add_arg(&op, chime__mysql_arg_text(name));
    }
  } else {
    add_arg(&op, chime__mysql_arg_text(s->sched));
    add_arg(&op, chime__mysql_arg_text(s->sched));
    add_arg(&op, chime__mysql_arg_int((int64_t)(q->limit + q->offset)));
  }
  return run_rows(s, &op, q, t, errbuf, errbuf_len);
}

/* The shards of the query's fire (queries/shard_list.sql); none for no
 * fire. */
static int list_shards(chime__mysql_store *s, const chime_admin_query *q,
                       chime_admin_table *t, char *errbuf, size_t errbuf_len) {
  if (!q->fire_id)
    return 0;
  stats_op op = {.id = CHIME__Q_SHARD_LIST};
  for (int k = 0; k < 2; k++) { /* the triggers, the history */
    add_arg(&op, chime__mysql_arg_text(s->sched));
    add_arg(&op, chime__mysql_arg_int(q->fire_id));
  }
  return run_rows(s, &op, q, t, errbuf, errbuf_len);
}

/* Each node's live sessions (queries/admin_sessions.sql), the operator's
 * own left out. */
static int list_sessions(chime__mysql_store *s, const chime_admin_query *q,
                         bool hide_self, chime_admin_table *t, char *errbuf,
                         size_t errbuf_len) {
  stats_op op = {.id = CHIME__Q_ADMIN_SESSIONS};
  add_arg(&op, chime__mysql_arg_text(s->sched));
  add_arg(&op, chime__mysql_arg_text(hide_self ? s->node : ""));
  return run_rows(s, &op, q, t, errbuf, errbuf_len);
}

int chime__mysql_admin_stats(chime_store *store, const chime_admin_query *q,
                             bool hide_self, chime_admin_table *t, char *errbuf,
                             size_t errbuf_len) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  switch (q->kind) {
  case CHIME_ADMIN_RUN_COUNTS:
    return list_plain(s, CHIME__Q_HISTORY_RUN_COUNTS, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_LATENESS:
    return list_lateness(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_TRIGGER_STATES:
    return list_plain(s, CHIME__Q_TRIGGER_STATE_COUNTS, q, t, errbuf,
                      errbuf_len);
  case CHIME_ADMIN_FIRE_STATES:
    return list_fire_states(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_DRAINS:
    return list_plain(s, CHIME__Q_DRAIN_LIST, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_PAUSED_GROUPS:
    return list_paused(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_ACTIVITY:
    return list_activity(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_EVENTS:
    return list_events(s, q, hide_self, t, errbuf, errbuf_len);
  case CHIME_ADMIN_RETRIES:
    return list_retries(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_SHARDS:
    return list_shards(s, q, t, errbuf, errbuf_len);
  case CHIME_ADMIN_STORAGE: /* queries/admin_storage.sql: no argument */
    return run_rows(s, &(stats_op){.id = CHIME__Q_ADMIN_STORAGE}, q, t, errbuf,
                    errbuf_len);
  case CHIME_ADMIN_SESSIONS:
    return list_sessions(s, q, hide_self, t, errbuf, errbuf_len);
  default:
    return CHIME_EINVAL;
  }
}
