/*
 * test-mysql-bounded.c: the MySQL store's tables stay bounded at any rate
 * (DESIGN.md promise 11, issue 34), on the throwaway MariaDB (table
 * prefixes mbd_*): a history backlog far beyond what the old trim (1,000
 * rows a minute) could delete is gone within a few maintenance steps, and
 * under a running scheduler within seconds while its fires stay on time;
 * history_max_rows keeps the newest rows; and the sweep of the other
 * tables deletes what has ended (sessions of gone nodes, leases free for
 * a day, checkpoints of ended runs, chime's own one-shot triggers that
 * ended) and nothing that is still live.
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/schema.h"
#include "jobstore/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sql(MYSQL *db, const char *text) {
  if (mysql_query(db, text) != 0)
    fprintf(stderr, "%s: %s\n", text, mysql_error(db));
  CU_ASSERT_EQUAL_FATAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
}

static void sqlf(MYSQL *db, const char *fmt, long long a) {
  char q[2048];
  snprintf(q, sizeof q, fmt, a);
  sql(db, q);
}

static long long query_int(MYSQL *db, const char *text) {
  if (mysql_query(db, text) != 0)
    fprintf(stderr, "%s: %s\n", text, mysql_error(db));
  CU_ASSERT_EQUAL_FATAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  MYSQL_ROW row = mysql_fetch_row(res);
  long long v = row && row[0] ? strtoll(row[0], NULL, 10) : -1;
  mysql_free_result(res);
  return v;
}

/* The database's clock, in ms. */
static long long db_now(MYSQL *db) {
  return query_int(db, "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)");
}

/* A store on the test database with params. */
static chime_store *open_store(const char *params) {
  char url[2048];
  CU_ASSERT_EQUAL_FATAL(chime_test_mysql_url_with(url, sizeof url, params), 0);
  chime_store_options o = {.scheduler_name = "mbd",
                           .instance_id = "node-a",
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = 2};
  chime_store *st = NULL;
  char err[512] = "";
  int r = chime__store_open(url, &o, &st, err, sizeof err);
  if (r != 0)
    fprintf(stderr, "open: %s: %s\n", chime_err_name(r), err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  return st;
}

/* Inserts n history rows of scheduler "mbd" into prefix's table, finished
 * at finished_ms (the same for all), job job. */
static void insert_history(MYSQL *db, const char *prefix, long long n,
                           long long finished_ms, const char *job) {
  char q[1024];
  snprintf(q, sizeof q,
           "INSERT INTO %shistory (sched_name, fire_id, trigger_group, "
           "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
           "error_code, error_text, started_ms, duration_ms, recovering, "
           "finished_ms) SELECT 'mbd', seq, 'triggers', 'old', 'jobs', '%s', "
           "%lld, 'node-gone', 'OK', 0, NULL, %lld, 1, 0, %lld FROM "
           "seq_1_to_%lld",
           prefix, job, finished_ms - 1, finished_ms - 1, finished_ms, n);
  sql(db, q);
}

/* Steps the store's maintenance until a step deletes nothing; returns the
 * steps taken (at most max). */
static int steps_until_done(chime_store *st, bool sweep, int max) {
  chime__mysql_store *s = chime__mysql_store_of(st);
  for (int i = 1; i <= max; i++) {
    size_t n = 0;
    int r = chime__mysql_retain_step(s, sweep, &n);
    CU_ASSERT_EQUAL_FATAL(r, 0);
    if (n == 0)
      return i;
  }
  return max + 1;
}

/* ------------------------------------------------------------- history */

/* 20,000 rows past retention: the old trim took 20 minutes (1,000 rows a
 * minute); each step now deletes a batch, so about 20 steps. */
static void test_bounded_history_backlog_in_steps(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  chime_store *st = open_store("prefix=mbd_a_&auto_create=1&clear=1&"
                               "history_retention_ms=60000&"
                               "history_max_rows=0");
  long long now = db_now(db);
  insert_history(db, "mbd_a_", 20000, now - 3600000, "old");
  insert_history(db, "mbd_a_", 300, now, "fresh");
  /* An idle node's check-in steps too (its first one at once). */
  CU_ASSERT_EQUAL(st->ops->checkin(st, st->ops->now(st), NULL), 0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_a_history WHERE "
                                "job_name = 'old'"),
                  19000);
  int steps = steps_until_done(st, false, 40);
  CU_ASSERT(steps <= 21);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_a_history WHERE "
                                "job_name = 'old'"),
                  0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_a_history WHERE "
                                "job_name = 'fresh'"),
                  300);
  st->ops->free(st);
  mysql_close(db);
}

/* history_max_rows keeps the newest rows, however recent the others. */
static void test_bounded_history_max_rows(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  chime_store *st = open_store("prefix=mbd_b_&auto_create=1&clear=1&"
                               "history_max_rows=5000");
  CU_ASSERT_EQUAL(chime__mysql_store_of(st)->history_max_rows, 5000);
  long long now = db_now(db);
  insert_history(db, "mbd_b_", 7000, now - 1000, "older");
  insert_history(db, "mbd_b_", 5000, now, "newer");
  long long top = query_int(db, "SELECT MAX(id) FROM mbd_b_history");
  int steps = steps_until_done(st, false, 40);
  CU_ASSERT(steps <= 10);
  long long step = query_int(db, "SELECT @@auto_increment_increment");
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_b_history"),
                  step == 1 ? 5000 : 5000 / step);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_b_history WHERE "
                                "job_name = 'older'"),
                  0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT MAX(id) FROM mbd_b_history"), top);
  /* 0: no bound by count; a bad value is refused with the key named. */
  chime_store *none = open_store("prefix=mbd_b_&history_max_rows=0");
  CU_ASSERT_EQUAL(chime__mysql_store_of(none)->history_max_rows, 0);
  none->ops->free(none);
  char url[2048], err[512] = "";
  CU_ASSERT_EQUAL_FATAL(chime_test_mysql_url_with(url, sizeof url,
                                                  "prefix=mbd_b_&"
                                                  "history_max_rows=-5"),
                        0);
  chime_store *bad = NULL;
  CU_ASSERT_EQUAL(chime__store_open(url, NULL, &bad, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "history_max_rows"));
  st->ops->free(st);
  mysql_close(db);
}

/* A scheduler firing 50 times a second while 30,000 rows past retention
 * wait: its completing thread trims them within seconds (the old trim:
 * 30 minutes), and its fires keep their times meanwhile. */
static struct {
  pthread_mutex_t mu;
  int runs;
  int64_t worst_late_ms;
} ticks = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void tick(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  int64_t late = chime_ctx_get_fire_ms(ctx) - chime_ctx_get_scheduled_ms(ctx);
  pthread_mutex_lock(&ticks.mu);
  ticks.runs++;
  if (late > ticks.worst_late_ms)
    ticks.worst_late_ms = late;
  pthread_mutex_unlock(&ticks.mu);
}

static void test_bounded_history_trimmed_while_firing(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  chime_config *cfg = chime_test_mysql_config(
      "prefix=mbd_e_&auto_create=1&clear=1&history_retention_ms=3000&"
      "history_max_rows=0",
      "bounded-node");
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "mbd"), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "tick", tick, NULL, NULL), 0);
  long long now = db_now(db);
  insert_history(db, "mbd_e_", 30000, now - 3600000, "old");
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("jobs", "tick", "tick", &job, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("triggers", "tick", 20,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "jobs", "tick"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  /* Rows older than the retention by a margin are gone within 60 s (the
   * old trim needed 30 minutes): polled, never a bare sleep. */
  int64_t start = chime_test_wall_ms(), gone_ms = -1;
  while (chime_test_wall_ms() - start < 60000) {
    char q[256];
    snprintf(q, sizeof q,
             "SELECT COUNT(*) FROM mbd_e_history WHERE finished_ms < %lld",
             db_now(db) - 3000 - 2000);
    if (query_int(db, q) == 0) {
      gone_ms = chime_test_wall_ms() - start;
      break;
    }
    chime_test_sleep_ms(100);
  }
  CU_ASSERT(gone_ms >= 0);
  fprintf(stderr, "(backlog of 30000 rows gone after %lld ms) ",
          (long long)gone_ms);
  /* And the table stays near the bound: 3 s of 50 fires/s plus a step. */
  chime_test_sleep_ms(1500);
  CU_ASSERT(query_int(db, "SELECT COUNT(*) FROM mbd_e_history") < 1000);
  pthread_mutex_lock(&ticks.mu);
  int runs = ticks.runs;
  int64_t worst = ticks.worst_late_ms;
  pthread_mutex_unlock(&ticks.mu);
  fprintf(stderr, "(%d runs, worst lateness %lld ms) ", runs, (long long)worst);
  /* On time: every run started within a wide margin of its time. */
  CU_ASSERT(worst < 1000);
  CU_ASSERT(runs >= 25);
  chime_scheduler_free(s);
  mysql_close(db);
}

/* --------------------------------------------------------------- sweep */

static void test_bounded_sweep_other_tables(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  chime_store *st = open_store("prefix=mbd_c_&auto_create=1&clear=1");
  long long now = db_now(db);
  /* Sessions: a gone node's old one goes, a live node's stays, this
   * node's own stale one (no such connection) goes, a new one stays. */
  sql(db, "DELETE FROM mbd_c_node_sessions");
  sql(db, "DELETE FROM mbd_c_checkpoints");
  sql(db, "DELETE FROM mbd_c_leases");
  sqlf(db,
       "INSERT INTO mbd_c_node_sessions VALUES (990000001, 'mbd', "
       "'node-gone', %lld)",
       now - 3600000);
  sqlf(db,
       "INSERT INTO mbd_c_node_sessions VALUES (990000002, 'mbd', "
       "'node-gone', %lld)",
       now);
  sqlf(db,
       "INSERT INTO mbd_c_node_sessions VALUES (990000003, 'mbd', "
       "'node-a', %lld)",
       now - 3600000);
  sql(db, "INSERT INTO mbd_c_node_sessions SELECT CONNECTION_ID(), 'mbd', "
          "'node-a', 0");
  /* Leases: one free for two days goes, one free an hour stays. */
  const char *lease = "INSERT INTO mbd_c_leases VALUES ('mbd', '%s', 7, 'n', "
                      "'h', 1, 1, 0, %lld, 0, 1, 0)";
  char q[1024];
  snprintf(q, sizeof q, lease, "old-lease", now - 2 * 86400000LL);
  sql(db, q);
  snprintf(q, sizeof q, lease, "recent-lease", now - 3600000LL);
  sql(db, q);
  /* Checkpoints: an ended run's goes; a run whose recovery trigger waits
   * keeps its own. */
  sqlf(db,
       "INSERT INTO mbd_c_checkpoints VALUES ('mbd', 77, 78, 'node-gone', "
       "'x', %lld)",
       now - 7200000);
  sqlf(db,
       "INSERT INTO mbd_c_checkpoints VALUES ('mbd', 88, 89, 'node-gone', "
       "'x', %lld)",
       now - 7200000);
  /* Triggers: COMPLETE ones of chime's groups go, a waiting retry and a
   * user's COMPLETE trigger stay. */
  const char *trig =
      "INSERT INTO mbd_c_triggers (sched_name, trigger_group, trigger_name, "
      "job_group, job_name, job_type, kind, start_set, start_ms, end_ms, "
      "misfire, priority, next_fire_ms, prev_fire_ms, times_triggered, "
      "state_start_ms, state_repeat_count, state, origin_fire_id) VALUES "
      "('mbd', '%s', '%s', 'jobs', 'j', 't', 0, 1, 0, 0, 0, 5, 0, 0, 1, 0, "
      "0, '%s', %s)";
  struct {
    const char *group, *name, *state, *origin;
  } trigs[] = {
      {"CHIME_RETRY", "retry-1", "COMPLETE", "0"},
      {"CHIME_BACKFILL", "bf-1", "COMPLETE", "0"},
      {"CHIME_RETRY", "retry-2", "WAITING", "0"},
      {"users", "done", "COMPLETE", "0"},
      {"CHIME_RECOVERING", "recover-89", "WAITING", "88"},
  };
  for (size_t i = 0; i < sizeof trigs / sizeof trigs[0]; i++) {
    snprintf(q, sizeof q, trig, trigs[i].group, trigs[i].name, trigs[i].state,
             trigs[i].origin);
    sql(db, q);
  }
  CU_ASSERT(steps_until_done(st, true, 5) <= 3);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT GROUP_CONCAT(conn_id ORDER BY conn_id) = "
                            "CONCAT(CONNECTION_ID(), ',990000002') FROM "
                            "mbd_c_node_sessions"),
                  1);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_c_leases WHERE "
                                "lease_name = 'old-lease'"),
                  0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_c_leases WHERE "
                                "lease_name = 'recent-lease'"),
                  1);
  CU_ASSERT_EQUAL(query_int(db, "SELECT GROUP_CONCAT(run_id) FROM "
                                "mbd_c_checkpoints"),
                  88);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_c_triggers WHERE "
                                "trigger_name IN ('retry-1', 'bf-1')"),
                  0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_c_triggers WHERE "
                                "trigger_name IN ('retry-2', 'done', "
                                "'recover-89')"),
                  3);
  /* A lease dropped by the sweep starts again above its old token. */
  chime_lease_info info;
  CU_ASSERT_EQUAL(st->ops->lease_acquire(st, "old-lease", 60000, 0, &info), 0);
  CU_ASSERT(info.token > 7);
  st->ops->free(st);
  mysql_close(db);
}

/* Migration 010 adds jobs.history_level; run again after it was cut short
 * (the column there, the version not recorded) it completes, and a job's
 * level is kept. */
static void test_bounded_migration_010_reruns(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  chime_store *st = open_store("prefix=mbd_d_&auto_create=1&clear=1");
  st->ops->free(st);
  long long latest = (long long)chime__mysql_migration_count;
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT MAX(version) FROM mbd_d_schema_version"), latest);
  /* From 010 on (later migrations are repeatable too). */
  sql(db, "DELETE FROM mbd_d_schema_version WHERE version >= 10");
  st = open_store("prefix=mbd_d_&migrate=1");
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT MAX(version) FROM mbd_d_schema_version"), latest);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "quiet", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_history_level(job, CHIME_HISTORY_NONE), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL(query_int(db, "SELECT history_level FROM mbd_d_jobs WHERE "
                                "job_name = 'quiet'"),
                  CHIME_HISTORY_NONE);
  st->ops->free(st);
  mysql_close(db);
}

/* Issue 35: audit rows past audit_retention_ms go, then all but the
 * newest audit_max_rows. */
static void test_bounded_audit(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  chime_store *st = open_store("prefix=mbd_d_&auto_create=1&clear=1&"
                               "audit_retention_ms=86400000&"
                               "audit_max_rows=100");
  long long now = db_now(db);
  const char *row = "INSERT INTO mbd_d_audit (sched_name, at_ms, who, origin, "
                    "action, target) SELECT 'mbd', %lld, 'u@h', 'chimectl', "
                    "'%s', 'all' FROM seq_1_to_%d";
  char q[512];
  snprintf(q, sizeof q, row, now - 2 * 86400000LL, "old", 30);
  sql(db, q);
  snprintf(q, sizeof q, row, now - 1000LL, "new", 150);
  sql(db, q);
  CU_ASSERT(steps_until_done(st, true, 10) <= 10);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_d_audit WHERE "
                                "action = 'old'"),
                  0LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mbd_d_audit"), 100LL);
  /* The newest were kept. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT MIN(id) FROM mbd_d_audit"),
                  query_int(db, "SELECT MAX(id) - 99 FROM mbd_d_audit"));
  st->ops->free(st);
  mysql_close(db);
}

static CU_TestInfo tests[] = {
    {"migration 010 completes when run again",
     test_bounded_migration_010_reruns},
    {"a history backlog is deleted in a few steps (issue 34)",
     test_bounded_history_backlog_in_steps},
    {"history_max_rows keeps the newest rows", test_bounded_history_max_rows},
    {"a backlog is trimmed while fires stay on time",
     test_bounded_history_trimmed_while_firing},
    {"the sweep deletes what ended in the other tables",
     test_bounded_sweep_other_tables},
    {"audit rows are bounded by age and count (issue 35)", test_bounded_audit},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-bounded", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
