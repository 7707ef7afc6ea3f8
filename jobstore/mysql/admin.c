/*
 * mysql/admin.c: the operators' interface to the MySQL store (admin.h),
 * built from the store's own pieces: chime__mysql_store_open and its ops
 * for the actions, chime__mysql_tx_run for queries, the column X-macros
 * and the trigger decoder of columns.h for trigger rows,
 * CHIME__MYSQL_NODE_LIVE_SQL for the liveness rule, the schema reader of
 * schema.c and the fire-now helper of jobstore/store.h.
 *
 * Threads: an operator's store is one store with one connection; admin.h
 * asks for one thread at a time, the store would serialise more anyway.
 */
#include "jobstore/mysql/admin.h"

#include "jobstore/admin.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/schema.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"
#include "jobstore/store.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plain connections time out connecting after this long. */
#define CONNECT_TIMEOUT_S 10

struct chime__mysql_admin {
  chime_store *store;    /* the MySQL store */
  chime__mysql_store *s; /* the same, as its handle */
  chime_admin *lists;    /* chime__mysql_admin_lists, NULL until used */
};

int chime__mysql_admin_connect(const chime__mysql_url *url,
                               unsigned connect_timeout_s,
                               unsigned io_timeout_s, MYSQL **ret_db,
                               char *errbuf, size_t errbuf_len) {
  assert(url && ret_db);
  return chime__mysql_connect_io(url, connect_timeout_s, io_timeout_s, ret_db,
                                 errbuf, errbuf_len);
}

int chime__mysql_admin_schema_version(const char *text, long *ret_version,
                                      long *ret_latest, char *errbuf,
                                      size_t errbuf_len) {
  long compat;
  return chime__mysql_admin_schema_state(text, ret_version, ret_latest, &compat,
                                         errbuf, errbuf_len);
}

int chime__mysql_admin_schema_state(const char *text, long *ret_version,
                                    long *ret_latest, long *ret_compat,
                                    char *errbuf, size_t errbuf_len) {
  assert(text && ret_version && ret_latest && ret_compat);
  *ret_compat = 0;
  chime__mysql_url *url = NULL;
  char prefix[CHIME__MYSQL_PREFIX_MAX + 1];
  MYSQL *db = NULL;
  int r = chime__mysql_url_parse(text, &url, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mysql_url_prefix(url, prefix, sizeof prefix, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mysql_admin_connect(url, CONNECT_TIMEOUT_S, 0, &db, errbuf,
                                   errbuf_len);
  if (r == 0)
    r = chime__mysql_schema_version(db, prefix, ret_version, errbuf,
                                    errbuf_len);
  if (r == 0 && *ret_version > (long)chime__mysql_migration_count)
    r = chime__mysql_schema_compat(db, prefix, *ret_version, ret_compat, errbuf,
                                   errbuf_len);
  if (db)
    mysql_close(db);
  chime__mysql_url_free(url);
  *ret_latest = (long)chime__mysql_migration_count;
  return r;
}

int chime__mysql_admin_open(const char *url, const char *extra,
                            const char *sched, const char *instance_id,
                            chime__mysql_admin **ret, char *errbuf,
                            size_t errbuf_len) {
  assert(url && ret);
  chime__mysql_url *u = NULL;
  int r = chime__mysql_url_parse(url, &u, errbuf, errbuf_len);
  if (r < 0)
    return r;
  const char *clear = chime__mysql_url_param(u, "clear");
  bool wipes = clear && (strcmp(clear, "1") == 0 || strcmp(clear, "true") == 0);
  chime__mysql_url_free(u);
  if (wipes) {
    snprintf(errbuf, errbuf_len,
             "the URL says clear=1, which would delete every row of the "
             "cluster: remove it");
    return CHIME_EINVAL;
  }
  char *joined = NULL;
  if (extra) {
    size_t len = strlen(url) + strlen(extra) + 2;
    if (!(joined = malloc(len)))
      return CHIME_ENOMEM;
    snprintf(joined, len, "%s%c%s", url, strchr(url, '?') ? '&' : '?', extra);
    url = joined;
  }
  chime__mysql_admin *a = calloc(1, sizeof *a);
  chime_store_options o = {.scheduler_name = sched,
                           .instance_id = instance_id,
                           .connections = 1,
                           .checkin_interval_ms = CHIME__MYSQL_ADMIN_CHECKIN_MS,
                           .log_level = CHIME_LOG_ERROR};
  r = a ? chime__mysql_store_open(url, &o, &a->store, errbuf, errbuf_len)
        : CHIME_ENOMEM;
  free(joined);
  if (r < 0) {
    free(a);
    return r;
  }
  a->s = chime__mysql_store_of(a->store);
  *ret = a;
  return 0;
}

void chime__mysql_admin_free(chime__mysql_admin *a) {
  if (!a)
    return;
  chime_admin_free(a->lists);
  a->store->ops->free(a->store);
  free(a);
}

chime_admin *chime__mysql_admin_lists(chime__mysql_admin *a) {
  assert(a);
  if (!a->lists && chime__admin_wrap(a->store, false, true, &a->lists) < 0)
    return NULL;
  return a->lists;
}

chime__mysql_store *chime__mysql_admin_store(chime__mysql_admin *a) {
  assert(a);
  return a->s;
}

const char *chime__mysql_admin_prefix(const chime__mysql_admin *a) {
  assert(a);
  return a->s->prefix;
}

int chime__mysql_admin_checkin(chime__mysql_admin *a) {
  assert(a);
  return a->store->ops->checkin(a->store, a->store->ops->now(a->store), NULL);
}

int64_t chime__mysql_admin_now(chime__mysql_admin *a) {
  assert(a);
  return a->store->ops->now(a->store);
}

int64_t chime__mysql_admin_misfire_threshold_ms(void) {
  return CHIME__MYSQL_MISFIRE_THRESHOLD_MS;
}

const char *chime__mysql_admin_node_live_sql(void) {
  return CHIME__MYSQL_NODE_LIVE_SQL("n.");
}

bool chime__mysql_admin_group_matches(chime_match match, const char *pattern,
                                      const char *group) {
  return chime__group_matches(match, pattern, group);
}

/* ----------------------------------------------------------- queries */

typedef struct query_op {
  const char *sql; /* the prefix substituted */
  chime__mysql_arg *args;
  size_t nargs;
  chime__mysql_rows rows;
} query_op;

static int query_fn(chime__mysql_tx *tx, void *arg) {
  query_op *op = arg;
  return chime__mysql_query_sql(tx, op->sql, op->args, op->nargs, &op->rows);
}

static void query_reset(void *arg) {
  query_op *op = arg;
  chime__mysql_rows_free(&op->rows);
}

int chime__mysql_admin_query(chime__mysql_admin *a, const char *sql,
                             const char *const *args, size_t nargs,
                             chime__mysql_rows *ret, char *errbuf,
                             size_t errbuf_len) {
  assert(a && sql && ret && (args || nargs == 0));
  memset(ret, 0, sizeof *ret);
  if (strncmp(sql, "SELECT ", 7) != 0)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "not a SELECT: %.40s", sql);
  query_op op = {.nargs = nargs};
  char *text = chime__mysql_subst_prefix(sql, a->s->prefix);
  op.args = calloc(nargs ? nargs : 1, sizeof *op.args);
  int r = text && op.args ? 0 : CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < nargs; i++)
    op.args[i] = chime__mysql_arg_text(args[i]);
  op.sql = text;
  if (r == 0)
    r = chime__mysql_tx_run(a->s, query_fn, query_reset, &op, errbuf,
                            errbuf_len);
  free(text);
  free(op.args);
  if (r < 0) {
    query_reset(&op);
    return r;
  }
  *ret = op.rows;
  return 0;
}

int chime__mysql_admin_trigger_query(chime__mysql_admin *a, const char *where,
                                     const char *const *args, size_t nargs,
                                     chime__mysql_rows *ret, char *errbuf,
                                     size_t errbuf_len) {
  static const char head[] =
      "SELECT " CHIME__MYSQL_TRIGGER_COLS_SQL " FROM {P}triggers WHERE ";
  assert(where);
  size_t len = sizeof head + strlen(where);
  char *sql = malloc(len);
  if (!sql) {
    memset(ret, 0, sizeof *ret);
    return CHIME_ENOMEM;
  }
  snprintf(sql, len, "%s%s", head, where);
  int r =
      chime__mysql_admin_query(a, sql, args, nargs, ret, errbuf, errbuf_len);
  free(sql);
  assert(r < 0 || ret->nrows == 0 || ret->ncols == CHIME__TRIG_COL_COUNT);
  return r;
}

/* The kind fields of the view from the record's schedule. */
static void view_kind(const chime_schedule *s, chime__mysql_admin_trigger *v) {
  switch (s->kind) {
  case CHIME_TRIGGER_SIMPLE:
    v->interval_ms = s->u.simple.interval_ms;
    v->repeat_count = s->u.simple.repeat_count;
    break;
  case CHIME_TRIGGER_CRON:
  case CHIME_TRIGGER_RECURRENCE:
    break;
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    v->interval = s->u.calint.interval;
    v->unit = s->u.calint.unit;
    v->preserve_hour_of_day = s->u.calint.preserve_hour_of_day;
    break;
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    v->interval = s->u.daily.interval;
    v->unit = s->u.daily.unit;
    v->day_start_s = s->u.daily.start_sec_of_day;
    v->day_end_s = s->u.daily.end_sec_of_day;
    v->days_of_week = s->u.daily.days_of_week;
    v->repeat_count = s->u.daily.repeat_count;
    break;
  }
}

int chime__mysql_admin_trigger_decode(const chime__mysql_rows *rows, size_t i,
                                      chime__mysql_admin_trigger *ret) {
  assert(rows && ret && i < rows->nrows);
  chime_trigger *t = NULL;
  int r = chime__mysql_trigger_from_row(rows, i, &t);
  if (r < 0)
    return r;
  chime__mysql_admin_trigger v = {
      .group = t->group,
      .name = t->name,
      .job_group = t->job_group,
      .job_name = t->job_name,
      .job_type = chime__mysql_rows_text(rows, i, CHIME__TRIG_COL_JOB_TYPE),
      .description = t->description,
      .calendar_name = t->calendar_name,
      .zone_name = t->zone_name,
      .kind = t->schedule.kind,
      .cron_text = t->cron_text,
      .cron = t->cron,
      .misfire = t->schedule.misfire,
      .priority = t->schedule.priority,
      .start_ms = t->schedule.start_ms,
      .end_ms = t->schedule.end_ms,
      .jitter_ms = t->schedule.jitter_ms,
      .jitter_offset_ms = t->schedule.jitter_offset_ms,
      .next_fire_ms = t->state.next_fire_ms,
      .prev_fire_ms = t->state.prev_fire_ms,
      .state_repeat_count = t->state.repeat_count,
      .state = chime__mysql_rows_text(rows, i, CHIME__TRIG_COL_STATE),
      .owner = chime__mysql_rows_text(rows, i, CHIME__TRIG_COL_OWNER),
      .timeout_ms = t->timeout_ms,
      .starting_deadline_ms = t->starting_deadline_ms,
      .record = t,
  };
  if (!chime__mysql_rows_is_null(rows, i, CHIME__TRIG_COL_CLAIM_FIRE_ID))
    v.claim_fire_id =
        chime__mysql_rows_int64(rows, i, CHIME__TRIG_COL_CLAIM_FIRE_ID);
  view_kind(&t->schedule, &v);
  *ret = v;
  return 0;
}

void chime__mysql_admin_trigger_clear(chime__mysql_admin_trigger *t) {
  if (!t)
    return;
  chime_trigger_free(t->record);
  memset(t, 0, sizeof *t);
}

/* ----------------------------------------------------------- actions */

int chime__mysql_admin_job_exists(chime__mysql_admin *a, const char *group,
                                  const char *name) {
  assert(a);
  chime_job *job = NULL;
  int r = a->store->ops->job_get(a->store, group, name, &job);
  chime_job_free(job);
  return r;
}

int chime__mysql_admin_trigger_exists(chime__mysql_admin *a, const char *group,
                                      const char *name) {
  assert(a);
  chime_trigger_status st;
  int r = a->store->ops->trigger_status(a->store, group, name, &st);
  return r == 0 && st == CHIME_TRIGGER_NONE ? CHIME_ENOTFOUND : r;
}

int chime__mysql_admin_job_trigger_count(chime__mysql_admin *a,
                                         const char *group, const char *name,
                                         size_t *ret_count) {
  assert(a && ret_count);
  chime_key *keys = NULL;
  size_t n = 0;
  int r = chime__mysql_admin_job_exists(a, group, name);
  if (r == 0)
    r = a->store->ops->trigger_list_for_job(a->store, group, name, &keys, &n);
  if (r < 0)
    return r;
  chime_key_free_array(keys, n);
  *ret_count = n;
  return 0;
}

int chime__mysql_admin_recompute_zones(chime__mysql_admin *a,
                                       const char *const *zones, size_t count,
                                       size_t *ret_recomputed) {
  assert(a);
  chime_zones_cursor *cursor = NULL; /* no limit: done in one call */
  int r = a->store->ops->recompute_zones(a->store, zones, count, 0, &cursor,
                                         ret_recomputed);
  assert(r != 1 && cursor == NULL);
  return r;
}

int chime__mysql_admin_remove_trigger(chime__mysql_admin *a, const char *group,
                                      const char *name) {
  assert(a);
  return a->store->ops->trigger_remove(a->store, group, name);
}

int chime__mysql_admin_lease_release(chime__mysql_admin *a, const char *name) {
  assert(a && name);
  return chime__mysql_lease_end(a->store, name);
}

int chime__mysql_admin_fire_now(chime__mysql_admin *a, const char *group,
                                const char *name, const void *data, size_t len,
                                const char *tag, char *ret_key, size_t key_len,
                                int64_t *ret_due_ms, char *errbuf,
                                size_t errbuf_len) {
  assert(a && ret_key && key_len > 0);
  char tname[CHIME_MAX_NAME_LEN + 1];
  int r = chime__store_fire_now(a->store, group, name, data, len, tag, tname,
                                sizeof tname, ret_due_ms, errbuf, errbuf_len);
  if (r == 0)
    snprintf(ret_key, key_len, "%s.%s", CHIME__MANUAL_GROUP, tname);
  return r;
}

int chime__mysql_admin_enqueue(chime__mysql_admin *a, const char *group,
                               const char *name, const chime_enqueue *opts,
                               char *ret_key, size_t key_len, bool *ret_existed,
                               int64_t *ret_due_ms, char *errbuf,
                               size_t errbuf_len) {
  assert(a && ret_key && key_len > 0 && ret_existed);
  chime_trigger *t = NULL;
  int r = chime__key_check(group, name);
  if (r < 0)
    return chime__record_err(errbuf, errbuf_len, r, "an invalid job key");
  r = chime__enqueue_trigger(group, name, opts, 0, &t, errbuf, errbuf_len);
  if (r == 0)
    r = a->store->ops->trigger_add_many(a->store, &t, 1, ret_existed, errbuf,
                                        errbuf_len);
  if (r == 0)
    snprintf(ret_key, key_len, "%s.%s", t->group, t->name);
  if (r == 0 && ret_due_ms) {
    int64_t at = chime_enqueue_get_run_at_ms(opts);
    *ret_due_ms = at > 0 ? at : a->store->ops->now(a->store);
  }
  chime_trigger_free(t);
  return r;
}

int chime__mysql_admin_schedule(chime__mysql_admin *a, const chime_job *job,
                                const chime_trigger *trigger, char *errbuf,
                                size_t errbuf_len) {
  assert(a && job);
  int r = a->store->ops->job_add(a->store, job, true);
  if (r == 0 && trigger)
    r = a->store->ops->trigger_add(a->store, NULL, trigger, true, NULL, errbuf,
                                   errbuf_len);
  return r;
}

int chime__mysql_admin_interrupt(chime__mysql_admin *a, const char *group,
                                 const char *name, int64_t fire_id,
                                 size_t *ret_count) {
  assert(a);
  return a->store->ops->interrupt(a->store, group, name, fire_id, ret_count);
}

int chime__mysql_admin_add_trigger_if_absent(chime__mysql_admin *a,
                                             const chime_trigger *trigger,
                                             char *errbuf, size_t errbuf_len) {
  assert(a && trigger);
  int r = a->store->ops->trigger_add(a->store, NULL, trigger, false, NULL,
                                     errbuf, errbuf_len);
  return r == CHIME_EEXISTS ? 1 : r;
}

/* ----------------------------------------------------- audit and drains */

int chime__mysql_admin_audit(chime__mysql_admin *a, const char *who,
                             const char *origin, const char *action,
                             const char *target, const char *details,
                             char *errbuf, size_t errbuf_len) {
  assert(a);
  return chime__mysql_audit_add(a->store, who, origin, action, target, details,
                                errbuf, errbuf_len);
}

int chime__mysql_admin_limit_set(chime__mysql_admin *a, const char *job_type,
                                 bool clear, int max_running,
                                 int max_per_partition, int rate_count,
                                 int64_t rate_period_ms, char *errbuf,
                                 size_t errbuf_len) {
  assert(a && job_type);
  if (clear)
    return a->store->ops->limit_set(a->store, job_type, NULL);
  chime_limit_def d = {.max_running = max_running,
                       .max_per_partition = max_per_partition,
                       .rate_count = rate_count,
                       .rate_period_ms = rate_period_ms};
  int r = chime__limit_def_check(&d, errbuf, errbuf_len);
  if (r == 0)
    r = chime__name_check(job_type, "job type", errbuf, errbuf_len);
  return r < 0 ? r : a->store->ops->limit_set(a->store, job_type, &d);
}

int chime__mysql_admin_limit_put(chime__mysql_admin *a, const char *job_type,
                                 const chime__mysql_admin_limit *f,
                                 char *errbuf, size_t errbuf_len) {
  assert(a && job_type && f);
  chime_limit_def d = {.max_running = f->max_running,
                       .max_per_partition = f->max_per_partition,
                       .rate_count = f->rate_count,
                       .rate_period_ms = f->rate_period_ms,
                       .key_rate_count = f->key_rate_count,
                       .key_rate_period_ms = f->key_rate_period_ms};
  memcpy(d.partition_field, f->partition_field, sizeof d.partition_field);
  d.partition_field[sizeof d.partition_field - 1] = '\0';
  int r = chime__limit_def_check(&d, errbuf, errbuf_len);
  if (r == 0)
    r = chime__name_check(job_type, "job type", errbuf, errbuf_len);
  if (r == 0 && d.partition_field[0])
    r = chime__name_check(d.partition_field, "data field", errbuf, errbuf_len);
  return r < 0 ? r : a->store->ops->limit_set(a->store, job_type, &d);
}

int chime__mysql_admin_limits(chime__mysql_admin *a,
                              chime__mysql_admin_limit **ret, size_t *ret_n) {
  assert(a && ret && ret_n);
  chime_limit_stat *st = NULL;
  size_t n = 0;
  int r = a->store->ops->limit_stats(a->store, a->store->ops->now(a->store),
                                     &st, &n);
  if (r < 0)
    return r;
  chime__mysql_admin_limit *v = n ? calloc(n, sizeof *v) : NULL;
  if (n && !v) {
    chime__limit_stats_free(st, n);
    return CHIME_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    /* The strings move over. */
    v[i] = (chime__mysql_admin_limit){
        .job_type = st[i].job_type,
        .partition = st[i].partition,
        .max_running = st[i].def.max_running,
        .max_per_partition = st[i].def.max_per_partition,
        .rate_count = st[i].def.rate_count,
        .rate_period_ms = st[i].def.rate_period_ms,
        .waiting = st[i].waiting,
        .running = st[i].running,
        .key_rate_count = st[i].def.key_rate_count,
        .key_rate_period_ms = st[i].def.key_rate_period_ms};
    memcpy(v[i].partition_field, st[i].def.partition_field,
           sizeof v[i].partition_field);
  }
  free(st);
  *ret = v;
  *ret_n = n;
  return 0;
}

void chime__mysql_admin_limits_free(chime__mysql_admin_limit *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) {
    free(v[i].job_type);
    free(v[i].partition);
  }
  free(v);
}
