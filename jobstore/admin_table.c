/*
 * admin_table.c: chime_admin_table (chime-admin.h), the answer of every
 * list: named, typed columns and rows of cells, built by a store through
 * jobstore/admin.h's builder and read by name by the tools.  A cell keeps
 * its text (an integer's decimal too) so that every column reads as text.
 */
#include "jobstore/admin.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADMIN_COLUMN(e, n, t) {n, CHIME_ADMIN_##t},
static const struct column {
  const char *name;
  chime_admin_type type;
} node_columns[] = {CHIME__ADMIN_NODE_COLUMNS(ADMIN_COLUMN)},
  job_columns[] = {CHIME__ADMIN_JOB_COLUMNS(ADMIN_COLUMN)},
  trigger_columns[] = {CHIME__ADMIN_TRIGGER_COLUMNS(ADMIN_COLUMN)},
  fire_columns[] = {CHIME__ADMIN_FIRE_COLUMNS(ADMIN_COLUMN)},
  history_columns[] = {CHIME__ADMIN_HISTORY_COLUMNS(ADMIN_COLUMN)},
  lease_columns[] = {CHIME__ADMIN_LEASE_COLUMNS(ADMIN_COLUMN)},
  audit_columns[] = {CHIME__ADMIN_AUDIT_COLUMNS(ADMIN_COLUMN)},
  limit_columns[] = {CHIME__ADMIN_LIMIT_COLUMNS(ADMIN_COLUMN)},
  stuck_columns[] = {CHIME__ADMIN_STUCK_COLUMNS(ADMIN_COLUMN)},
  job_stats_columns[] = {CHIME__ADMIN_JOB_STATS_COLUMNS(ADMIN_COLUMN)},
  run_count_columns[] = {CHIME__ADMIN_RUN_COUNT_COLUMNS(ADMIN_COLUMN)},
  lateness_columns[] = {CHIME__ADMIN_LATENESS_COLUMNS(ADMIN_COLUMN)},
  state_count_columns[] = {CHIME__ADMIN_STATE_COUNT_COLUMNS(ADMIN_COLUMN)},
  drain_columns[] = {CHIME__ADMIN_DRAIN_COLUMNS(ADMIN_COLUMN)},
  paused_group_columns[] = {CHIME__ADMIN_PAUSED_GROUP_COLUMNS(ADMIN_COLUMN)},
  activity_columns[] = {CHIME__ADMIN_ACTIVITY_COLUMNS(ADMIN_COLUMN)},
  event_columns[] = {CHIME__ADMIN_EVENT_COLUMNS(ADMIN_COLUMN)},
  retry_columns[] = {CHIME__ADMIN_RETRY_COLUMNS(ADMIN_COLUMN)},
  shard_columns[] = {CHIME__ADMIN_SHARD_COLUMNS(ADMIN_COLUMN)},
  storage_columns[] = {CHIME__ADMIN_STORAGE_COLUMNS(ADMIN_COLUMN)},
  session_columns[] = {CHIME__ADMIN_SESSION_COLUMNS(ADMIN_COLUMN)};
#undef ADMIN_COLUMN

typedef struct cell {
  char *text;    /* NULL: null; bytes: value bytes and a NUL */
  int64_t value; /* an integer's value, bytes' length */
} cell;

struct chime_admin_table {
  const struct column *columns;
  size_t ncols, nrows, cap;
  cell *cells; /* nrows * ncols */
  bool failed; /* a setter ran out of memory */
};

chime_admin_table *chime__admin_table_new(chime_admin_kind kind) {
  static const struct {
    const struct column *columns;
    size_t n;
  } lists[] = {
      [CHIME_ADMIN_NODES] = {node_columns, CHIME__AC_NODE_COUNT},
      [CHIME_ADMIN_JOBS] = {job_columns, CHIME__AC_JOB_COUNT},
      [CHIME_ADMIN_TRIGGERS] = {trigger_columns, CHIME__AC_TRIGGER_COUNT},
      [CHIME_ADMIN_FIRES] = {fire_columns, CHIME__AC_FIRE_COUNT},
      [CHIME_ADMIN_HISTORY] = {history_columns, CHIME__AC_HISTORY_COUNT},
      [CHIME_ADMIN_LEASES] = {lease_columns, CHIME__AC_LEASE_COUNT},
      [CHIME_ADMIN_AUDIT] = {audit_columns, CHIME__AC_AUDIT_COUNT},
      [CHIME_ADMIN_LIMITS] = {limit_columns, CHIME__AC_LIMIT_COUNT},
      [CHIME_ADMIN_STUCK] = {stuck_columns, CHIME__AC_STUCK_COUNT},
      [CHIME_ADMIN_JOB_STATS] = {job_stats_columns, CHIME__AC_JSTAT_COUNT},
      [CHIME_ADMIN_RUN_COUNTS] = {run_count_columns, CHIME__AC_RUNS_COUNT_N},
      [CHIME_ADMIN_LATENESS] = {lateness_columns, CHIME__AC_LATENESS_COUNT},
      [CHIME_ADMIN_TRIGGER_STATES] = {state_count_columns,
                                      CHIME__AC_STATES_COUNT_N},
      [CHIME_ADMIN_FIRE_STATES] = {state_count_columns,
                                   CHIME__AC_STATES_COUNT_N},
      [CHIME_ADMIN_DRAINS] = {drain_columns, CHIME__AC_DRAIN_COUNT},
      [CHIME_ADMIN_PAUSED_GROUPS] = {paused_group_columns,
                                     CHIME__AC_PAUSED_COUNT},
      [CHIME_ADMIN_ACTIVITY] = {activity_columns, CHIME__AC_ACTIVITY_COUNT},
      [CHIME_ADMIN_EVENTS] = {event_columns, CHIME__AC_EVENT_COUNT},
      [CHIME_ADMIN_RETRIES] = {retry_columns, CHIME__AC_RETRY_COUNT},
      [CHIME_ADMIN_SHARDS] = {shard_columns, CHIME__AC_SHARD_COUNT},
      [CHIME_ADMIN_STORAGE] = {storage_columns, CHIME__AC_STORAGE_COUNT},
      [CHIME_ADMIN_SESSIONS] = {session_columns, CHIME__AC_SESSION_COUNT}};
  if ((unsigned)kind >= sizeof lists / sizeof lists[0] || !lists[kind].n)
    return NULL;
  chime_admin_table *t = calloc(1, sizeof *t);
  if (t) {
    t->columns = lists[kind].columns;
    t->ncols = lists[kind].n;
  }
  return t;
}

int chime__admin_row_add(chime_admin_table *t) {
  assert(t);
  if (t->nrows == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    cell *c = realloc(t->cells, cap * t->ncols * sizeof *c);
    if (!c) {
      t->failed = true;
      return CHIME_ENOMEM;
    }
    t->cells = c;
    t->cap = cap;
  }
  memset(t->cells + t->nrows * t->ncols, 0, t->ncols * sizeof *t->cells);
  t->nrows++;
  return 0;
}

/* The last row's cell col, emptied. */
static cell *last_cell(chime_admin_table *t, size_t col) {
  assert(t && t->nrows && col < t->ncols);
  cell *c = &t->cells[(t->nrows - 1) * t->ncols + col];
  free(c->text);
  c->text = NULL;
  c->value = 0;
  return c;
}

void chime__admin_set_text(chime_admin_table *t, size_t col, const char *text) {
  assert(t->columns[col].type == CHIME_ADMIN_TEXT);
  cell *c = last_cell(t, col);
  if (text && !(c->text = strdup(text)))
    t->failed = true;
}

void chime__admin_set_int(chime_admin_table *t, size_t col, int64_t v) {
  assert(t->columns[col].type == CHIME_ADMIN_INT64);
  cell *c = last_cell(t, col);
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRId64, v);
  c->value = v;
  if (!(c->text = strdup(buf)))
    t->failed = true;
}

void chime__admin_set_bytes(chime_admin_table *t, size_t col, const void *data,
                            size_t len) {
  assert(t->columns[col].type == CHIME_ADMIN_BYTES);
  cell *c = last_cell(t, col);
  if (!data)
    return;
  if (!(c->text = malloc(len + 1))) {
    t->failed = true;
    return;
  }
  memcpy(c->text, data, len);
  c->text[len] = '\0';
  c->value = (int64_t)len;
}

bool chime__admin_table_failed(const chime_admin_table *t) {
  return t->failed;
}

size_t chime__admin_table_rows(const chime_admin_table *t) {
  return t->nrows;
}

static void rows_free(chime_admin_table *t, size_t from, size_t to) {
  for (size_t i = from * t->ncols; i < to * t->ncols; i++)
    free(t->cells[i].text);
}

void chime__admin_table_page(chime_admin_table *t, size_t offset,
                             size_t limit) {
  size_t skip = offset < t->nrows ? offset : t->nrows;
  if (skip) { /* an empty table has no cells at all */
    rows_free(t, 0, skip);
    memmove(t->cells, t->cells + skip * t->ncols,
            (t->nrows - skip) * t->ncols * sizeof *t->cells);
    t->nrows -= skip;
  }
  if (t->nrows > limit) {
    rows_free(t, limit, t->nrows);
    t->nrows = limit;
  }
}

const char *chime__admin_state_name(int state) {
  static const char *const names[] = {[CHIME_STATE_WAITING] = "WAITING",
                                      [CHIME_STATE_ACQUIRED] = "ACQUIRED",
                                      [CHIME_STATE_EXECUTING] = "EXECUTING",
                                      [CHIME_STATE_BLOCKED] = "BLOCKED",
                                      [CHIME_STATE_PAUSED] = "PAUSED",
                                      [CHIME_STATE_PAUSED_BLOCKED] =
                                          "PAUSED_BLOCKED",
                                      [CHIME_STATE_COMPLETE] = "COMPLETE",
                                      [CHIME_STATE_ERROR] = "ERROR"};
  return (unsigned)state < sizeof names / sizeof names[0] ? names[state] : "?";
}

const char *chime__admin_concurrency_name(int concurrency) {
  switch (concurrency) {
  case CHIME_CONCURRENCY_ALLOW:
    return "allow";
  case CHIME_CONCURRENCY_FORBID:
    return "forbid";
  case CHIME_CONCURRENCY_FORBID_SKIP:
    return "forbid-skip";
  case CHIME_CONCURRENCY_REPLACE:
    return "replace";
  default:
    return "?";
  }
}

const char *chime__admin_kind_name(chime_trigger_kind kind) {
  const char *name = chime_trigger_kind_to_string(kind);
  return name ? name : "unknown";
}

const char *chime__admin_misfire_name(chime_misfire misfire) {
  const char *name = chime_misfire_to_string(misfire);
  return name ? name : "unknown";
}

/* The definition columns of schedule s (null where its kind has none). */
static void put_schedule(chime_admin_table *t, const chime_schedule *s) {
  static const char *const units[] = {"millisecond", "second", "minute",
                                      "hour",        "day",    "week",
                                      "month",       "year"};
  if (s->start_ms != CHIME_NO_FIRE_MS)
    chime__admin_set_int(t, CHIME__AC_TRIGGER_START_MS, s->start_ms);
  if (s->end_ms != INT64_MAX && s->end_ms != CHIME_NO_FIRE_MS)
    chime__admin_set_int(t, CHIME__AC_TRIGGER_END_MS, s->end_ms);
  chime_interval_unit unit = CHIME_UNIT_MILLISECOND;
  switch (s->kind) {
  case CHIME_TRIGGER_SIMPLE:
    chime__admin_set_int(t, CHIME__AC_TRIGGER_INTERVAL_MS,
                         s->u.simple.interval_ms);
    chime__admin_set_int(t, CHIME__AC_TRIGGER_REPEAT_COUNT,
                         s->u.simple.repeat_count);
    return;
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    chime__admin_set_int(t, CHIME__AC_TRIGGER_INTERVAL, s->u.calint.interval);
    chime__admin_set_int(t, CHIME__AC_TRIGGER_PRESERVE_HOUR,
                         s->u.calint.preserve_hour_of_day);
    unit = s->u.calint.unit;
    break;
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    chime__admin_set_int(t, CHIME__AC_TRIGGER_INTERVAL, s->u.daily.interval);
    chime__admin_set_int(t, CHIME__AC_TRIGGER_REPEAT_COUNT,
                         s->u.daily.repeat_count);
    chime__admin_set_int(t, CHIME__AC_TRIGGER_DAY_START_S,
                         s->u.daily.start_sec_of_day);
    chime__admin_set_int(t, CHIME__AC_TRIGGER_DAY_END_S,
                         s->u.daily.end_sec_of_day);
    chime__admin_set_int(t, CHIME__AC_TRIGGER_DAYS_OF_WEEK,
                         s->u.daily.days_of_week);
    unit = s->u.daily.unit;
    break;
  default: /* cron, recurrence: the expression says it all */
    return;
  }
  chime__admin_set_text(t, CHIME__AC_TRIGGER_UNIT,
                        (unsigned)unit < 8 ? units[unit] : "?");
}

void chime__admin_put_trigger(chime_admin_table *t, const chime_trigger *tr,
                              const char *state, const char *owner) {
  chime__admin_set_text(t, CHIME__AC_TRIGGER_GROUP, tr->group);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_NAME, tr->name);
  chime__admin_set_bytes(t, CHIME__AC_TRIGGER_DATA, tr->data, tr->data_len);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_JOB_GROUP, tr->job_group);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_JOB_NAME, tr->job_name);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_KIND,
                        chime__admin_kind_name(tr->schedule.kind));
  chime__admin_set_text(t, CHIME__AC_TRIGGER_STATE, state);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_ZONE, tr->zone_name);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_CALENDAR, tr->calendar_name);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_CRON, tr->cron_text);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_DESCRIPTION, tr->description);
  chime__admin_set_int(t, CHIME__AC_TRIGGER_PRIORITY, tr->schedule.priority);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_MISFIRE,
                        chime__admin_misfire_name(tr->schedule.misfire));
  if (tr->state.next_fire_ms != CHIME_NO_FIRE_MS)
    chime__admin_set_int(t, CHIME__AC_TRIGGER_NEXT_FIRE_MS,
                         tr->state.next_fire_ms);
  if (tr->state.prev_fire_ms != CHIME_NO_FIRE_MS)
    chime__admin_set_int(t, CHIME__AC_TRIGGER_PREV_FIRE_MS,
                         tr->state.prev_fire_ms);
  chime__admin_set_text(t, CHIME__AC_TRIGGER_OWNER, owner);
  put_schedule(t, &tr->schedule);
  if (tr->schedule.kind == CHIME_TRIGGER_SIMPLE) /* a misfire may change it */
    chime__admin_set_int(t, CHIME__AC_TRIGGER_EFFECTIVE_REPEAT_COUNT,
                         tr->state.repeat_count);
  chime__admin_set_int(t, CHIME__AC_TRIGGER_JITTER_MS, tr->schedule.jitter_ms);
  chime__admin_set_int(t, CHIME__AC_TRIGGER_TIMEOUT_MS, tr->timeout_ms);
  chime__admin_set_int(t, CHIME__AC_TRIGGER_DEADLINE_MS,
                       tr->starting_deadline_ms);
}

/* ------------------------------------------------------------ reading */

size_t chime_admin_table_get_row_count(const chime_admin_table *table) {
  return table ? table->nrows : 0;
}

size_t chime_admin_table_get_column_count(const chime_admin_table *table) {
  return table ? table->ncols : 0;
}

const char *chime_admin_table_get_column_name(const chime_admin_table *table,
                                              size_t col) {
  return table && col < table->ncols ? table->columns[col].name : NULL;
}

chime_admin_type
chime_admin_table_get_column_type(const chime_admin_table *table, size_t col) {
  return table && col < table->ncols ? table->columns[col].type
                                     : (chime_admin_type)0;
}

int chime_admin_table_get_column_index(const chime_admin_table *table,
                                       const char *name) {
  if (!table || !name)
    return CHIME_EINVAL;
  for (size_t i = 0; i < table->ncols; i++)
    if (strcmp(table->columns[i].name, name) == 0)
      return (int)i;
  return CHIME_ENOTFOUND;
}

/* Row's cell in column name, NULL when there is none. */
static const cell *find(const chime_admin_table *table, size_t row,
                        const char *column) {
  int col = chime_admin_table_get_column_index(table, column);
  if (col < 0 || row >= table->nrows)
    return NULL;
  return &table->cells[row * table->ncols + (size_t)col];
}

bool chime_admin_table_is_null(const chime_admin_table *table, size_t row,
                               const char *column) {
  const cell *c = find(table, row, column);
  return !c || !c->text;
}

/* The type of column name (0: none). */
static chime_admin_type type_of(const chime_admin_table *table,
                                const char *column) {
  int col = chime_admin_table_get_column_index(table, column);
  return col < 0 ? (chime_admin_type)0 : table->columns[col].type;
}

const char *chime_admin_table_get_text(const chime_admin_table *table,
                                       size_t row, const char *column) {
  const cell *c = find(table, row, column);
  return c && type_of(table, column) != CHIME_ADMIN_BYTES ? c->text : NULL;
}

const void *chime_admin_table_get_bytes(const chime_admin_table *table,
                                        size_t row, const char *column,
                                        size_t *ret_len) {
  const cell *c = find(table, row, column);
  bool bytes = c && c->text && type_of(table, column) == CHIME_ADMIN_BYTES;
  if (ret_len)
    *ret_len = bytes ? (size_t)c->value : 0;
  return bytes ? c->text : NULL;
}

int64_t chime_admin_table_get_int64(const chime_admin_table *table, size_t row,
                                    const char *column) {
  const cell *c = find(table, row, column);
  return c && type_of(table, column) == CHIME_ADMIN_INT64 ? c->value : 0;
}

void chime_admin_table_free(chime_admin_table *table) {
  if (!table)
    return;
  rows_free(table, 0, table->nrows);
  free(table->cells);
  free(table);
}
