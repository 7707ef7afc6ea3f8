/*
 * test-mysql-store.c: what is particular to the MySQL/MariaDB store, on
 * the throwaway MariaDB server, in a database of its own (chime_mst, so
 * that its connections can be told apart in the process list): the schema
 * (created on first open and reused, refused when missing or newer), the
 * errors of chime__store_open (malformed URL, wrong password, unknown
 * database), a killed connection reconnected transparently, the database
 * clock cancelling a skewed local clock, triggers persisting across a
 * reopen with their definition and state, recovery of a dead node's fires
 * (a keyed enqueued run keeping its unique key through it),
 * and a lock-wait timeout retried.
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/mysql/admin.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/result.h"
#include "jobstore/mysql/schema.h"
#include "jobstore/mysql/url.h"
#include "model/records.h"
#include "jobstore/store.h"
#include "triggers/calendar.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DB "chime_mst"
#define T0 INT64_C(1893456000000) /* 2030-01-01T00:00:00Z */
#define T0_TEXT "1893456000000"

/* The test server's URL for database db and extra parameters. */
static const char *url_for(const char *db, const char *password,
                           const char *params) {
  static char buf[1024];
  chime__mysql_url *u = NULL;
  const char *text = chime_test_mysql_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL_FATAL(chime__mysql_url_parse(text, &u, NULL, 0), 0);
  snprintf(buf, sizeof buf, "mysql://%s:%s@%s:%u/%s%s%s", u->user,
           password ? password : u->password, u->host, u->port, db,
           params ? "?" : "", params ? params : "");
  chime__mysql_url_free(u);
  return buf;
}

/* Runs sql on a connection of the test server; fatal on failure. */
static void sql(MYSQL *db, const char *text) {
  if (mysql_query(db, text) != 0)
    fprintf(stderr, "%s: %s\n", text, mysql_error(db));
  CU_ASSERT_EQUAL_FATAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
}

/* One integer from a query. */
static long long query_int(MYSQL *db, const char *text) {
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, text), 0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  MYSQL_ROW row = mysql_fetch_row(res);
  long long v = row && row[0] ? strtoll(row[0], NULL, 10) : -1;
  mysql_free_result(res);
  return v;
}

/* A connection to the test server, in database chime_mst. */
static MYSQL *admin(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  sql(db, "CREATE DATABASE IF NOT EXISTS " DB
          " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
  sql(db, "USE " DB);
  return db;
}

/* Every table of the schema this library writes. */
static const char *const tables[] = {
    "schema_version", "jobs",  "triggers",    "calendars",     "paused_groups",
    "fired",          "nodes", "history",     "node_sessions", "leases",
    "checkpoints",    "audit", "node_drains", "limits",        "limit_keys"};
#define NTABLES (sizeof tables / sizeof tables[0])

/* Drops the tables of prefix in chime_mst. */
static void drop_prefix(MYSQL *db, const char *prefix) {
  char q[256];
  for (size_t i = 0; i < NTABLES; i++) {
    snprintf(q, sizeof q, "DROP TABLE IF EXISTS %s%s", prefix, tables[i]);
    sql(db, q);
  }
}

static int open_store(const char *url, const chime_store_options *o,
                      chime_store **st, char *err, size_t len) {
  chime_store_options def = {.scheduler_name = "mst",
                             .instance_id = "node-a",
                             .misfire_threshold_ms = 60000,
                             .checkin_interval_ms = 1000,
                             .connections = 1};
  *st = NULL;
  err[0] = '\0';
  int r = chime__store_open(url, o ? o : &def, st, err, len);
  if (r != 0)
    fprintf(stderr, "open %s: %s: %s\n", url, chime_err_name(r), err);
  return r;
}

/* ----------------------------------------------------------------- schema */

static void test_mysql_store_schema_created_then_reused(void) {
  MYSQL *db = admin();
  drop_prefix(db, "mst_a_");
  chime_store *st;
  char err[512];
  /* Missing, without auto_create: refused with a clear message. */
  CU_ASSERT_EQUAL(open_store(url_for(DB, NULL, "prefix=mst_a_"), NULL, &st, err,
                             sizeof err),
                  CHIME_ESCHEMA);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "auto_create=1"));
  CU_ASSERT_EQUAL_FATAL(
      open_store(url_for(DB, NULL, "prefix=mst_a_&auto_create=1"), NULL, &st,
                 err, sizeof err),
      0);
  CU_ASSERT_STRING_EQUAL(st->ops->name, "mysql");
  st->ops->free(st);
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT MAX(version) FROM mst_a_schema_version"),
      (long long)chime__mysql_migration_count);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM information_schema."
                                "tables WHERE table_schema = '" DB "' AND "
                                "table_name LIKE 'mst!_a!_%' ESCAPE '!'"),
                  (long long)NTABLES);
  /* Reused: no auto_create needed the second time. */
  CU_ASSERT_EQUAL(open_store(url_for(DB, NULL, "prefix=mst_a_"), NULL, &st, err,
                             sizeof err),
                  0);
  if (st)
    st->ops->free(st);
  mysql_close(db);
}

static void test_mysql_store_schema_newer_refused(void) {
  MYSQL *db = admin();
  drop_prefix(db, "mst_b_");
  chime_store *st;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(
      open_store(url_for(DB, NULL, "prefix=mst_b_&auto_create=1"), NULL, &st,
                 err, sizeof err),
      0);
  st->ops->free(st);
  sql(db, "INSERT INTO mst_b_schema_version (version, applied_ms) VALUES "
          "(99, 0)");
  CU_ASSERT_EQUAL(open_store(url_for(DB, NULL, "prefix=mst_b_&auto_create=1"),
                             NULL, &st, err, sizeof err),
                  CHIME_ESCHEMA);
  CU_ASSERT_PTR_NULL(st);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "version 99"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "newer"));
  drop_prefix(db, "mst_b_");
  mysql_close(db);
}

/* ----------------------------------------------------------------- errors */

/* Issue 13: every store URL parameter is checked.  An unknown key or a
 * value of the wrong form is CHIME_EINVAL with a message naming the key
 * (never an unknown key's value); nothing is opened.  Known keys with good
 * values open. */
static void test_mysql_store_url_parameters_checked(void) {
  static const struct {
    int line;
    const char *params;
    const char *named;
  } bad[] = {
      {__LINE__, "auto_create=yes", "auto_create"},
      {__LINE__, "autocreate=1", "autocreate"},
      {__LINE__, "bogus=3", "bogus"},
      {__LINE__, "prefx=", "prefx"},
      {__LINE__, "prefx=hunter2secret", "prefx"},
      {__LINE__, "auto_create=1&migrate=2", "migrate"},
      {__LINE__, "auto_create=1&clear=on", "clear"},
      {__LINE__, "auto_create=1&socket=", "socket"},
      /* Issue 30, fault 7: a socket with a TCP host was ignored. */
      {__LINE__, "auto_create=1&socket=/tmp/chime-none.sock", "localhost"},
      {__LINE__, "auto_create=1&lock_wait_timeout_s=0", "lock_wait_timeout_s"},
      {__LINE__, "auto_create=1&lock_wait_timeout_s=ten",
       "lock_wait_timeout_s"},
      {__LINE__, "auto_create=1&history_retention_ms=-1",
       "history_retention_ms"},
      {__LINE__, "auto_create=1&prefix=a-b", "prefix"},
  };
  chime_store *st = NULL;
  char err[512];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int r = open_store(url_for(DB, NULL, bad[i].params), NULL, &st, err,
                       sizeof err);
    if (r != CHIME_EINVAL || !strstr(err, bad[i].named))
      fprintf(stderr, "line %d: %s -> %s (%s)\n", bad[i].line, bad[i].params,
              chime_err_name(r), err);
    CU_ASSERT_EQUAL(r, CHIME_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].named));
    CU_ASSERT_PTR_NULL(strstr(err, "hunter2"));
    CU_ASSERT_PTR_NULL(st);
  }
  /* Every documented key, with good values. */
  CU_ASSERT_EQUAL(open_store(url_for(DB, NULL,
                                     "auto_create=true&migrate=0&clear=false&"
                                     "prefix=mst_p_&lock_wait_timeout_s=5&"
                                     "history_retention_ms=60000"),
                             NULL, &st, err, sizeof err),
                  0);
  if (st)
    st->ops->free(st);
  /* Through the public API too. */
  chime_config *c = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&c), 0);
  CU_ASSERT_EQUAL(
      chime_config_set_store_url(c, url_for(DB, NULL, "auto_create=1&bogus=3")),
      0);
  chime_scheduler *sch = NULL;
  err[0] = '\0';
  CU_ASSERT_EQUAL(chime_scheduler_new(c, &sch, err, sizeof err), CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "bogus"));
  CU_ASSERT_PTR_NULL(sch);
  chime_config_free(c);
}

static void test_mysql_store_open_errors(void) {
  MYSQL *db = admin(); /* the database exists */
  chime_store *st = NULL;
  char err[512];
  static const char *const bad[] = {"mysql://", "mysql://user@host:99999/db",
                                    "mysql://u@h/db?auto_create"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CU_ASSERT_EQUAL(open_store(bad[i], NULL, &st, err, sizeof err), CHIME_EURL);
    CU_ASSERT(strlen(err) > 0);
  }
  CU_ASSERT_EQUAL(open_store(url_for(DB, NULL, "prefix=bad-prefix"), NULL, &st,
                             err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "prefix"));
  CU_ASSERT_EQUAL(open_store(url_for(DB, "wrong-password", NULL), NULL, &st,
                             err, sizeof err),
                  CHIME_EAUTH);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "Access denied"));
  CU_ASSERT_PTR_NULL(strstr(err, "wrong-password"));
  CU_ASSERT_EQUAL(open_store(url_for("chime_no_such_db", NULL, NULL), NULL, &st,
                             err, sizeof err),
                  CHIME_ENOTFOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "chime_no_such_db"));
  CU_ASSERT_PTR_NULL(st);
  mysql_close(db);
}

/* -------------------------------------------------------------- reconnect */

static void test_mysql_store_reconnects(void) {
  MYSQL *db = admin();
  chime_store *st;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(open_store(url_for(DB, NULL,
                                           "prefix=mst_a_&auto_create=1&"
                                           "clear=1"),
                                   NULL, &st, err, sizeof err),
                        0);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  /* The store's one connection is the only other one in this database. */
  const char *find = "SELECT ID FROM information_schema.PROCESSLIST WHERE "
                     "DB = '" DB "' AND ID <> CONNECTION_ID()";
  long long id = query_int(db, find);
  CU_ASSERT_FATAL(id > 0);
  char kill[64];
  snprintf(kill, sizeof kill, "KILL CONNECTION %lld", id);
  sql(db, kill);
  /* The next call reconnects and succeeds. */
  job = NULL;
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "j", &job), 0);
  CU_ASSERT_PTR_NOT_NULL(job);
  chime_job_free(job);
  long long again = query_int(db, find);
  CU_ASSERT(again > 0 && again != id);
  st->ops->free(st);
  mysql_close(db);
}

/* ------------------------------------------------------------------ clock */

static void test_mysql_store_clock_cancels_skew(void) {
  MYSQL *db = admin();
  chime_store *st;
  char err[512];
  chime_store_options o = {.scheduler_name = "mst",
                           .instance_id = "skewed",
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = 1,
                           .test_clock_offset_ms = 5 * 60 * 1000};
  CU_ASSERT_EQUAL_FATAL(
      open_store(url_for(DB, NULL, "prefix=mst_a_&auto_create=1"), &o, &st, err,
                 sizeof err),
      0);
  for (int i = 0; i < 2; i++) {
    long long server =
        query_int(db, "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)");
    int64_t now = st->ops->now(st);
    CU_ASSERT(llabs((long long)now - server) < 1000);
    /* A check-in measures the offset again. */
    CU_ASSERT_EQUAL(st->ops->checkin(st, now, NULL), 0);
  }
  st->ops->free(st);
  mysql_close(db);
}

/* ------------------------------------------------------------ persistence */

/* The triggers the persistence test stores, one of each kind. */
static chime_trigger *kind_trigger(int kind) {
  chime_trigger *t = NULL;
  char err[256];
  int r = -1;
  switch (kind) {
  case 0:
    r = chime_trigger_simple_new("tg", "simple", 90000, 7, &t, err, sizeof err);
    break;
  case 1:
    r = chime_trigger_cron_new("tg", "cron", "0 15 10 ? * MON-FRI",
                               "Europe/Zurich", &t, err, sizeof err);
    break;
  case 2:
    r = chime_trigger_calendar_interval_new("tg", "calint", 2, CHIME_UNIT_MONTH,
                                            "America/New_York", &t, err,
                                            sizeof err);
    if (r == 0)
      r = chime_trigger_set_preserve_hour_of_day(t, true);
    break;
  default:
    r = chime_trigger_daily_new("tg", "daily", 9 * 3600, 17 * 3600, 0x3E, 30,
                                CHIME_UNIT_MINUTE, 20, "Asia/Tokyo", &t, err,
                                sizeof err);
    break;
  }
  CU_ASSERT_EQUAL_FATAL(r, 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0 + kind), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_set_end_ms(t, T0 + 400 * INT64_C(86400000)), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_priority(t, 3 + kind), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_description(t, "desc \xc3\xa9\n"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_data(t, "a\0b", 3), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_calendar(t, "weekdays"), 0);
  return t;
}

static void same_trigger(const chime_trigger *a, const chime_trigger *b) {
  CU_ASSERT_EQUAL(a->schedule.kind, b->schedule.kind);
  CU_ASSERT_EQUAL(
      memcmp(&a->schedule.u, &b->schedule.u,
             a->schedule.kind == CHIME_TRIGGER_CRON ? 0 : sizeof a->schedule.u),
      0);
  CU_ASSERT_EQUAL(a->schedule.start_ms, b->schedule.start_ms);
  CU_ASSERT_EQUAL(a->schedule.end_ms, b->schedule.end_ms);
  CU_ASSERT_EQUAL(a->schedule.misfire, b->schedule.misfire);
  CU_ASSERT_EQUAL(a->schedule.priority, b->schedule.priority);
  CU_ASSERT_EQUAL(a->start_set, b->start_set);
  CU_ASSERT(a->schedule.zone == b->schedule.zone);
  CU_ASSERT_EQUAL(memcmp(&a->state, &b->state, sizeof a->state), 0);
  CU_ASSERT_EQUAL(a->store_state, b->store_state);
  CU_ASSERT_STRING_EQUAL(a->description, b->description);
  CU_ASSERT_STRING_EQUAL(a->calendar_name, b->calendar_name);
  CU_ASSERT_EQUAL(a->data_len, b->data_len);
  CU_ASSERT(a->data_len == b->data_len &&
            memcmp(a->data, b->data, a->data_len) == 0);
  CU_ASSERT((a->zone_name == NULL) == (b->zone_name == NULL));
  if (a->zone_name && b->zone_name)
    CU_ASSERT_STRING_EQUAL(a->zone_name, b->zone_name);
  CU_ASSERT((a->cron_text == NULL) == (b->cron_text == NULL));
  if (a->cron_text && b->cron_text)
    CU_ASSERT_STRING_EQUAL(a->cron_text, b->cron_text);
}

static void test_mysql_store_persists_across_reopen(void) {
  MYSQL *db = admin();
  const char *url = url_for(DB, NULL, "prefix=mst_a_&auto_create=1");
  char u1[1024];
  snprintf(u1, sizeof u1, "%s&clear=1", url);
  chime_store *st;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(open_store(u1, NULL, &st, err, sizeof err), 0);
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_weekly_new(NULL, 0x41, &cal, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->calendar_add(st, "weekdays", cal, false, false), 0);
  chime__calendar_unref(cal);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_data(job, "{\"k\":1}", 7), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  chime_trigger *stored[4];
  for (int k = 0; k < 4; k++) {
    chime_trigger *t = kind_trigger(k);
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
    stored[k] = NULL;
    CU_ASSERT_EQUAL_FATAL(st->ops->trigger_get(st, "tg",
                                               k == 0   ? "simple"
                                               : k == 1 ? "cron"
                                               : k == 2 ? "calint"
                                                        : "daily",
                                               &stored[k]),
                          0);
  }
  /* A fire changes the state; it must persist too. */
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "cron"), 0);
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->acquire(st, T0, T0, 4, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 2); /* simple and daily start at T0 */
  CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, fires, n, T0), 0);
  for (size_t i = 0; i < n; i++) {
    CU_ASSERT_EQUAL(fires[i]->result, 0);
    chime_run_result o = {.started_ms = T0, .finished_ms = T0 + 5};
    CU_ASSERT_EQUAL(st->ops->complete(st, fires[i], &o), 0);
    chime__fire_free(fires[i]);
  }
  free(fires);
  chime_trigger *before[4];
  static const char *const names[] = {"simple", "cron", "calint", "daily"};
  for (int k = 0; k < 4; k++)
    CU_ASSERT_EQUAL_FATAL(st->ops->trigger_get(st, "tg", names[k], &before[k]),
                          0);
  CU_ASSERT_EQUAL(chime_trigger_get_times_triggered(before[0]), 1);
  CU_ASSERT_EQUAL(chime_trigger_get_status(before[1]), CHIME_TRIGGER_PAUSED);
  st->ops->free(st);
  CU_ASSERT_EQUAL_FATAL(open_store(url, NULL, &st, err, sizeof err), 0);
  for (int k = 0; k < 4; k++) {
    chime_trigger *after = NULL;
    CU_ASSERT_EQUAL_FATAL(st->ops->trigger_get(st, "tg", names[k], &after), 0);
    same_trigger(before[k], after);
    chime_trigger_free(after);
    chime_trigger_free(before[k]);
    chime_trigger_free(stored[k]);
  }
  job = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "j", &job), 0);
  size_t len = 0;
  const void *data = chime_job_get_data(job, &len);
  CU_ASSERT(len == 7 && memcmp(data, "{\"k\":1}", 7) == 0);
  chime_job_free(job);
  st->ops->free(st);
  mysql_close(db);
}

/* -------------------------------------------------------------- recovery */

static void add_job_trigger(chime_store *st, const char *name, bool recover) {
  chime_job *job = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", name, "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_requests_recovery(job, recover), 0);
  if (strcmp(name, "retried") == 0) /* 3 attempts, 5 s apart */
    CU_ASSERT_EQUAL_FATAL(chime_test_set_retry(job, 3, 5000, 1.0, 0, 0), 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tg", name, 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", name), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_priority(t, 9), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, job, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  chime_job_free(job);
}

/* Opens two stores on fresh tables of prefix: *a, a survivor, and *dead,
 * the node instance "dead" whose fires the tests have recovered. */
static void open_survivor_and_doomed(const char *prefix, chime_store **a,
                                     chime_store **dead) {
  char params[128], u[1024], err[512];
  snprintf(params, sizeof params, "prefix=%s&auto_create=1&clear=1", prefix);
  snprintf(u, sizeof u, "%s", url_for(DB, NULL, params));
  chime_store_options o = {.scheduler_name = "mst",
                           .instance_id = "dead",
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = 1};
  CU_ASSERT_EQUAL_FATAL(open_store(u, NULL, a, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(open_store(u, &o, dead, err, sizeof err), 0);
}

static void test_mysql_store_recovers_dead_node(void) {
  MYSQL *db = admin();
  chime_store *a, *dead;
  open_survivor_and_doomed("mst_a_", &a, &dead);
  add_job_trigger(a, "rerun", true);
  add_job_trigger(a, "plain", false);
  add_job_trigger(a, "claimed", false);
  add_job_trigger(a, "retried", false);
  /* The doomed node claims all four and starts three. */
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(dead->ops->acquire(dead, T0, T0, 4, NULL, &fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strcmp(chime_trigger_get_name(fires[i]->trigger), "claimed") != 0)
      fires[k++] = fires[i];
    else
      chime__fire_free(fires[i]);
  CU_ASSERT_EQUAL_FATAL(k, 3);
  CU_ASSERT_EQUAL_FATAL(dead->ops->fire(dead, fires, 3, T0), 0);
  CU_ASSERT_EQUAL(dead->ops->checkin(dead, T0, NULL), 0);
  CU_ASSERT_EQUAL(a->ops->checkin(a, T0, NULL), 0);
  size_t recovered = 99;
  /* Alive: nothing to do. */
  CU_ASSERT_EQUAL(a->ops->recover_dead_nodes(a, T0, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 0);
  /* Its check-in goes stale.  The rerun fire was a retry's second attempt
   * (as the completion of a failed first one writes it). */
  sql(db, "UPDATE mst_a_triggers SET retry_attempt = 2, retry_scheduled_ms = "
          "1000 WHERE trigger_name = 'rerun'");
  sql(db, "UPDATE mst_a_nodes SET last_checkin_ms = 0 WHERE sched_name = "
          "'mst' AND instance_id = 'dead'");
  CU_ASSERT_EQUAL(a->ops->recover_dead_nodes(a, T0, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 4);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_a_nodes WHERE "
                                "instance_id = 'dead'"),
                  0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_a_history WHERE "
                                "job_name = 'plain' AND outcome = 'FAILED'"),
                  1);
  /* A lost run of a job with retries left is a failed attempt: RETRIED,
   * and its retry (attempt 2, the original time) waits its back-off. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_a_history WHERE "
                                "job_name = 'retried' AND outcome = "
                                "'RETRIED'"),
                  1);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_a_triggers WHERE "
                                "trigger_group = 'CHIME_RETRY' AND "
                                "job_name = 'retried' AND retry_attempt = 2 "
                                "AND retry_scheduled_ms = " T0_TEXT),
                  1);
  /* Fencing: the dead node's late completions are refused. */
  chime_run_result out = {.started_ms = T0, .finished_ms = T0};
  for (size_t i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(dead->ops->complete(dead, fires[i], &out), CHIME_ENOTOWNER);
    chime__fire_free(fires[i]);
  }
  free(fires);
  /* The claim went back; the recovery fire keeps its scheduled time. */
  int64_t now = a->ops->now(a);
  CU_ASSERT_EQUAL_FATAL(a->ops->acquire(a, now, now, 10, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  if (n == 1) {
    CU_ASSERT_STRING_EQUAL(chime_job_get_name(fires[0]->job), "rerun");
    CU_ASSERT_TRUE(fires[0]->recovering);
    CU_ASSERT_EQUAL(fires[0]->scheduled_ms, T0);
    /* A recovered retry keeps its attempt and original time. */
    CU_ASSERT_EQUAL(chime__run_attempt(fires[0]->trigger), 2);
    CU_ASSERT_EQUAL(chime__fire_original_ms(fires[0]), 1000);
  }
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
  chime_trigger_status status;
  CU_ASSERT_EQUAL(a->ops->trigger_status(a, "tg", "claimed", &status), 0);
  CU_ASSERT_EQUAL(status, CHIME_TRIGGER_NORMAL);
  /* (The retry, due at the store's now + 5 s, is misfired at T0.) */
  CU_ASSERT_EQUAL_FATAL(a->ops->acquire(a, T0, T0, 10, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  for (size_t i = 0; i < n; i++) {
    CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[i]->trigger),
                           "claimed");
    chime__fire_free(fires[i]);
  }
  free(fires);
  dead->ops->free(dead);
  a->ops->free(a);
  mysql_close(db);
}

/* An operator's cancel (chimectl cancel, chime-web, admin.h) interrupts a
 * running fire: the node running it finds it flagged at its next check-in
 * (interrupted), the fire stays its own until its run returns; a fire not
 * running is not flagged. */
static void test_mysql_store_admin_interrupts_fire(void) {
  MYSQL *db = admin();
  char u[1024], plain[1024], err[512];
  snprintf(u, sizeof u, "%s",
           url_for(DB, NULL, "prefix=mst_c_&auto_create=1&clear=1"));
  snprintf(plain, sizeof plain, "%s", url_for(DB, NULL, "prefix=mst_c_"));
  chime_store *st;
  chime_store_options o = {.scheduler_name = "mst",
                           .instance_id = "runner",
                           .misfire_threshold_ms = 60000,
                           .connections = 1};
  CU_ASSERT_EQUAL_FATAL(open_store(u, &o, &st, err, sizeof err), 0);
  add_job_trigger(st, "cancelme", false);
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->acquire(st, T0, T0, 1, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, fires, 1, T0), 0);
  chime__mysql_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_admin_open(plain, NULL, "mst", "ops", &a, err, sizeof err),
      0);
  int64_t id = fires[0]->fire_id;
  size_t count = 0;
  CU_ASSERT_EQUAL(chime__mysql_admin_interrupt(a, NULL, NULL, id, &count), 0);
  CU_ASSERT_EQUAL(count, 1);
  int64_t *ids = NULL;
  size_t nids = 0;
  CU_ASSERT_EQUAL(st->ops->interrupted(st, &ids, &nids), 0);
  CU_ASSERT_EQUAL_FATAL(nids, 1);
  CU_ASSERT_EQUAL(ids[0], id);
  free(ids);
  /* Still the node's: its run records the outcome when it returns. */
  bool owned = false;
  CU_ASSERT_EQUAL(st->ops->still_owned(st, fires[0], &owned), 0);
  CU_ASSERT_TRUE(owned);
  chime_run_result out = {.error = CHIME_ECANCELLED,
                          .status = "CANCELLED",
                          .started_ms = T0,
                          .finished_ms = T0};
  CU_ASSERT_EQUAL(st->ops->complete(st, fires[0], &out), 0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_c_history WHERE "
                                "outcome = 'CANCELLED'"),
                  1);
  /* Not running any more: nothing to flag. */
  CU_ASSERT_EQUAL(chime__mysql_admin_interrupt(a, NULL, NULL, id, &count), 0);
  CU_ASSERT_EQUAL(count, 0);
  chime__fire_free(fires[0]);
  free(fires);
  chime__mysql_admin_free(a);
  st->ops->free(st);
  mysql_close(db);
}

/* ------------------------------------------------------- lock-wait retry */

static int lock_retries; /* log lines about MySQL error 1205 */

static void count_retries(void *user_data, chime_log_level level,
                          const char *message) {
  (void)user_data;
  (void)level;
  if (strstr(message, "1205"))
    __atomic_add_fetch(&lock_retries, 1, __ATOMIC_SEQ_CST);
}

typedef struct waiter {
  chime_store *st;
  int result;
} waiter;

static void *pause_locked(void *arg) {
  waiter *w = arg;
  w->result = w->st->ops->pause_trigger(w->st, "tg", "locked");
  return NULL;
}

static void test_mysql_store_retries_lock_wait(void) {
  MYSQL *db = admin();
  chime_store *st;
  char err[512];
  chime_store_options o = {.scheduler_name = "mst",
                           .instance_id = "node-a",
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = 1,
                           .log = count_retries,
                           .log_level = CHIME_LOG_DEBUG};
  CU_ASSERT_EQUAL_FATAL(
      open_store(url_for(DB, NULL,
                         "prefix=mst_a_&auto_create=1&clear=1&"
                         "lock_wait_timeout_s=1"),
                 &o, &st, err, sizeof err),
      0);
  add_job_trigger(st, "locked", false);
  /* Another session holds the trigger's row lock for 2.5 s: the store's
   * update times out (1205) after 1 s, is retried, and then succeeds. */
  sql(db, "SET autocommit = 0");
  sql(db, "SELECT state FROM mst_a_triggers WHERE sched_name = 'mst' AND "
          "trigger_group = 'tg' AND trigger_name = 'locked' FOR UPDATE");
  lock_retries = 0;
  waiter w = {st, 99};
  pthread_t th;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, pause_locked, &w), 0);
  struct timespec ts = {2, 500000000L};
  nanosleep(&ts, NULL);
  sql(db, "COMMIT");
  sql(db, "SET autocommit = 1");
  pthread_join(th, NULL);
  CU_ASSERT_EQUAL(w.result, 0);
  CU_ASSERT(__atomic_load_n(&lock_retries, __ATOMIC_SEQ_CST) >= 1);
  chime_trigger_status status;
  CU_ASSERT_EQUAL(st->ops->trigger_status(st, "tg", "locked", &status), 0);
  CU_ASSERT_EQUAL(status, CHIME_TRIGGER_PAUSED);
  st->ops->free(st);
  mysql_close(db);
}

/* The position of column name in a "a, b, c" list, or -1. */
static int column_at(const char *list, const char *name) {
  int pos = 0;
  size_t n = strlen(name);
  for (const char *p = list; *p; pos++) {
    if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return pos;
    const char *comma = strstr(p, ", ");
    if (!comma)
      break;
    p = comma + 2;
  }
  return -1;
}

/* The column lists' SQL text and their positions come from one X-macro
 * each: every position names the column the text has there. */
static void test_mysql_store_column_lists(void) {
  /* (The lists cannot expand inside their own X-macro.) */
  static const char tcols[] = CHIME__MYSQL_TRIGGER_COLS_SQL;
  static const char jcols[] = CHIME__MYSQL_JOB_COLS_SQL;
  static const char fcols[] = CHIME__MYSQL_FIRED_COLS_SQL;
#define CHECK(list, pos, name) CU_ASSERT_EQUAL(column_at(list, name), pos)
#define T_CHECK(id, name) CHECK(tcols, CHIME__TRIG_COL_##id, #name);
#define J_CHECK(id, name) CHECK(jcols, CHIME__JOB_COL_##id, #name);
#define F_CHECK(id, name) CHECK(fcols, CHIME__FIRED_COL_##id, #name);
  CHIME__MYSQL_TRIGGER_COLUMNS(T_CHECK, T_CHECK)
  CHIME__MYSQL_JOB_COLUMNS(J_CHECK, J_CHECK)
  CHIME__MYSQL_FIRED_COLUMNS(F_CHECK, F_CHECK)
#undef F_CHECK
#undef J_CHECK
#undef T_CHECK
#undef CHECK
  CU_ASSERT_EQUAL(column_at(CHIME__MYSQL_TRIGGER_COLS_SQL, "job_type"),
                  CHIME__TRIG_COL_COUNT - 1);
  size_t marks = 0;
  for (const char *p = CHIME__MYSQL_TRIGGER_PARAMS_SQL; *p; p++)
    marks += *p == '?';
  CU_ASSERT_EQUAL(marks, CHIME__TRIG_COL_COUNT);
  CU_ASSERT_EQUAL(column_at(CHIME__MYSQL_TRIGGER_COLS_T_SQL, "t.state"),
                  CHIME__TRIG_COL_STATE);
}

/* Typed cells: NULL is told apart from 0, positions are checked. */
static void test_mysql_store_typed_rows(void) {
  chime__mysql_cell cells[] = {{.v = "42", .len = 2},
                               {.v = NULL, .len = 0},
                               {.v = "-9223372036854775808", .len = 20},
                               {.v = "text", .len = 4}};
  chime__mysql_rows rows = {.nrows = 2, .ncols = 2, .cells = cells};
  CU_ASSERT_EQUAL(chime__mysql_rows_int64(&rows, 0, 0), 42);
  CU_ASSERT_TRUE(chime__mysql_rows_is_null(&rows, 0, 1));
  CU_ASSERT_PTR_NULL(chime__mysql_rows_text(&rows, 0, 1));
  CU_ASSERT_EQUAL(chime__mysql_rows_len(&rows, 0, 1), 0);
  CU_ASSERT_EQUAL(chime__mysql_rows_int64(&rows, 1, 0), INT64_MIN);
  CU_ASSERT_STRING_EQUAL(chime__mysql_rows_text(&rows, 1, 1), "text");
  CU_ASSERT_EQUAL(chime__mysql_rows_len(&rows, 1, 1), 4);
  CU_ASSERT_FALSE(chime__mysql_rows_is_null(&rows, 1, 1));
}

/* chimectl judges nodes by the store's lease rule: the factor of
 * jobstore/store.h, no grace. */
static void test_mysql_store_admin_lease_rule(void) {
  char want[256];
  snprintf(want, sizeof want,
           "((n.last_checkin_ms + n.checkin_interval_ms * %d) >= "
           "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED))",
           (int)CHIME__LEASE_FACTOR);
  CU_ASSERT_STRING_EQUAL(chime__mysql_admin_node_live_sql(), want);
}

/* A dead node's shard runs again on a survivor as the same shard, from
 * its checkpoint (the dead run's REQUEUED history row names its shard);
 * the dead node can write no checkpoint any more. */
static void test_mysql_store_recovers_shard_checkpoint(void) {
  MYSQL *db = admin();
  char err[512];
  chime_store *a, *dead;
  open_survivor_and_doomed("mst_s_", &a, &dead);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "s", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_shards(job, 2, "1=second"), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tg", "s", 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "s"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(
      a->ops->trigger_add(a, job, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  chime_job_free(job);
  /* a splits the fire; the doomed node takes both shards. */
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(a->ops->acquire_due(a, T0, T0, 1, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL_FATAL(a->ops->shard_split(a, fires[0], NULL), 0);
  int64_t whole = fires[0]->fire_id;
  chime__fire_free(fires[0]);
  free(fires);
  int64_t now = dead->ops->now(dead);
  CU_ASSERT_EQUAL_FATAL(dead->ops->acquire_due(dead, now + 10 * 60000,
                                               now + 10 * 60000, 5, NULL,
                                               &fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  chime_fire *s1 = fires[0]->trigger->shard_index == 1 ? fires[0] : fires[1];
  CU_ASSERT_EQUAL(dead->ops->checkpoint_set(dead, s1, "row 3000", 8), 0);
  CU_ASSERT_EQUAL(dead->ops->checkin(dead, now, NULL), 0);
  CU_ASSERT_EQUAL(a->ops->checkin(a, now, NULL), 0);
  sql(db, "UPDATE mst_s_nodes SET last_checkin_ms = 0 WHERE sched_name = "
          "'mst' AND instance_id = 'dead'");
  size_t recovered = 0;
  CU_ASSERT_EQUAL(a->ops->recover_dead_nodes(a, now, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 2);
  /* Each dead run's REQUEUED row names its shard (chimectl shards shows
   * it beside the run on the survivor). */
  char q[256];
  snprintf(q, sizeof q,
           "SELECT COUNT(*) * 10 + SUM(shard_index) FROM mst_s_history "
           "WHERE outcome = 'REQUEUED' AND node = 'dead' AND shard_parent = "
           "%lld",
           (long long)whole);
  CU_ASSERT_EQUAL(query_int(db, q), 21); /* shards 0 and 1 */
  /* Fenced: the dead node's checkpoint and completion are refused. */
  CU_ASSERT_EQUAL(dead->ops->checkpoint_set(dead, s1, "row 4000", 8),
                  CHIME_ENOTOWNER);
  chime_run_result out = {.started_ms = T0, .finished_ms = T0};
  CU_ASSERT_EQUAL(dead->ops->complete(dead, s1, &out), CHIME_ENOTOWNER);
  for (size_t i = 0; i < 2; i++)
    chime__fire_free(fires[i]);
  free(fires);
  /* Both shards run again on a, as shards of the same fire; shard 1 from
   * the dead run's checkpoint (though its job does not request recovery). */
  now = a->ops->now(a);
  CU_ASSERT_EQUAL_FATAL(a->ops->acquire_due(a, now, now, 5, NULL, &fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  for (size_t i = 0; i < n; i++) {
    const chime_trigger *rt = fires[i]->trigger;
    CU_ASSERT_TRUE(fires[i]->recovering);
    CU_ASSERT_EQUAL(rt->shard_parent, whole);
    CU_ASSERT_EQUAL(rt->shard_total, 2);
    CU_ASSERT_EQUAL(chime__fire_original_ms(fires[i]), T0);
    void *data = NULL;
    size_t len = 0;
    int r = a->ops->checkpoint_get(a, fires[i], &data, &len);
    if (rt->shard_index == 1) {
      CU_ASSERT_STRING_EQUAL(rt->shard_param ? rt->shard_param : "", "second");
      CU_ASSERT_EQUAL(r, 0);
      CU_ASSERT(len == 8 && data && memcmp(data, "row 3000", 8) == 0);
    } else {
      CU_ASSERT_EQUAL(r, CHIME_ENOTFOUND);
    }
    free(data);
    CU_ASSERT_EQUAL(a->ops->complete(a, fires[i], &out), 0);
    chime__fire_free(fires[i]);
  }
  free(fires);
  /* The fire as a whole is done; the checkpoint ended with its run. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_s_history WHERE "
                                "shard_parent = 0 AND outcome = 'OK' AND "
                                "job_name = 's'"),
                  1);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_s_checkpoints"), 0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_s_fired"), 0);
  a->ops->free(a);
  dead->ops->free(dead);
  mysql_close(db);
}

/* Adds the keyed run K_<key> of job (g, name), due at T0; returns whether
 * its key existed. */
static bool add_keyed(chime_store *st, const char *name, const char *key) {
  chime_enqueue *o = NULL;
  chime_trigger *t = NULL;
  char err[256];
  bool existed = false;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_run_at_ms(o, T0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_unique_key(o, key), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime__enqueue_trigger("g", name, o, 1, &t, err, sizeof err), 0);
  int r = st->ops->trigger_add_many(st, &t, 1, &existed, err, sizeof err);
  CU_ASSERT_EQUAL(r, 0);
  if (r != 0)
    fprintf(stderr, "trigger_add_many: %s\n", err);
  chime_trigger_free(t);
  chime_enqueue_free(o);
  return existed;
}

/* A keyed enqueued run whose node died keeps its unique key (issue 31):
 * its run again on the survivor (a job that requests recovery) and the
 * retry its lost attempt counts as (a job with retries) are its own
 * trigger again, so an enqueue with the key meanwhile stores nothing. */
static void test_mysql_store_recovered_run_keeps_key(void) {
  MYSQL *db = admin();
  chime_store *a, *dead;
  open_survivor_and_doomed("mst_k_", &a, &dead);
  add_job_trigger(a, "rerun", true);
  add_job_trigger(a, "retried", false);
  sql(db, "DELETE FROM mst_k_triggers"); /* the jobs alone */
  CU_ASSERT(!add_keyed(a, "rerun", "k-rerun"));
  CU_ASSERT(!add_keyed(a, "retried", "k-retried"));
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(dead->ops->acquire(dead, T0, T0, 4, NULL, &fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_EQUAL_FATAL(dead->ops->fire(dead, fires, n, T0), 0);
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
  CU_ASSERT_EQUAL(dead->ops->checkin(dead, T0, NULL), 0);
  CU_ASSERT_EQUAL(a->ops->checkin(a, T0, NULL), 0);
  sql(db, "UPDATE mst_k_nodes SET last_checkin_ms = 0 WHERE sched_name = "
          "'mst' AND instance_id = 'dead'");
  size_t recovered = 0;
  CU_ASSERT_EQUAL(a->ops->recover_dead_nodes(a, T0, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 2);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_k_triggers WHERE "
                                "trigger_group = 'CHIME_QUEUE' AND state = "
                                "'WAITING' AND ((trigger_name = 'K_k-rerun' "
                                "AND recovering = 1) OR (trigger_name = "
                                "'K_k-retried' AND retry_attempt = 2))"),
                  2);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mst_k_triggers WHERE "
                                "trigger_group <> 'CHIME_QUEUE'"),
                  0);
  CU_ASSERT(add_keyed(a, "rerun", "k-rerun"));
  CU_ASSERT(add_keyed(a, "retried", "k-retried"));
  a->ops->free(a);
  dead->ops->free(dead);
  mysql_close(db);
}

static CU_TestInfo tests[] = {
    {"schema created on first open, then reused",
     test_mysql_store_schema_created_then_reused},
    {"a newer schema version is refused",
     test_mysql_store_schema_newer_refused},
    {"clear errors from chime__store_open", test_mysql_store_open_errors},
    {"store URL parameters are checked (issue 13)",
     test_mysql_store_url_parameters_checked},
    {"a killed connection is reconnected", test_mysql_store_reconnects},
    {"the database clock cancels a local skew",
     test_mysql_store_clock_cancels_skew},
    {"triggers persist across a reopen",
     test_mysql_store_persists_across_reopen},
    {"a dead node's shard runs again from its checkpoint, fenced",
     test_mysql_store_recovers_shard_checkpoint},
    {"a dead node's fires are recovered, failed or released",
     test_mysql_store_recovers_dead_node},
    {"a keyed run recovered or retried after its node died keeps its key",
     test_mysql_store_recovered_run_keeps_key},
    {"a lock-wait timeout is retried", test_mysql_store_retries_lock_wait},
    {"column lists and positions agree", test_mysql_store_column_lists},
    {"typed row accessors", test_mysql_store_typed_rows},
    {"chimectl's liveness rule is the store's",
     test_mysql_store_admin_lease_rule},
    {"an operator's cancel interrupts a running fire",
     test_mysql_store_admin_interrupts_fire},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-store", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
