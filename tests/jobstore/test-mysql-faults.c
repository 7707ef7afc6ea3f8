/*
 * test-mysql-faults.c: the MySQL store against the faults found from
 * outside (issue 22, "Faults found from outside"), each named after its
 * finding: bad text in a completion batch, a missing table, a restarted
 * node, a stepped clock, ...  Needs the throwaway MariaDB
 * (CHIME_TEST_MYSQL_URL); a missing database is a failure.
 */
#include "chime.h"
#include "core/utf8.h"
#include "cut-proxy.h"
#include "engine/engine.h"
#include "harness.h"
#include "jobstore/mysql/tx.h"
#include "jobstore/mysql/url.h"
#include "jobstore/store.h"
#include "model/records.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DB "chime_mft"
#define T0 INT64_C(1893456000000) /* 2030-01-01T00:00:00Z */

/* The test server's URL, parsed (free it with chime__mysql_url_free). */
static chime__mysql_url *test_server(void) {
  chime__mysql_url *u = NULL;
  const char *text = chime_test_mysql_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL_FATAL(chime__mysql_url_parse(text, &u, NULL, 0), 0);
  return u;
}

/* The URL of database DB on the test server, reached through a proxy on
 * loopback port proxy_port (0: directly), with extra parameters (may be
 * NULL).  Static storage: valid until the next call. */
static const char *url_via(unsigned proxy_port, const char *params) {
  static char buf[1024];
  chime__mysql_url *u = test_server();
  snprintf(buf, sizeof buf, "mysql://%s:%s@%s:%u/%s%s%s", u->user, u->password,
           proxy_port ? "127.0.0.1" : u->host,
           proxy_port ? proxy_port : u->port, DB, params ? "?" : "",
           params ? params : "");
  chime__mysql_url_free(u);
  return buf;
}

static const char *url_for(const char *params) {
  return url_via(0, params);
}

/* A cut proxy (cut-proxy.h) in front of the test server. */
static cut_proxy *proxy_start(const char *text) {
  chime__mysql_url *u = test_server();
  cut_proxy *proxy = cut_proxy_start(u->host, u->port, text);
  chime__mysql_url_free(u);
  CU_ASSERT_PTR_NOT_NULL_FATAL(proxy);
  return proxy;
}

static void sql(MYSQL *db, const char *text) {
  if (mysql_query(db, text) != 0)
    fprintf(stderr, "%s: %s\n", text, mysql_error(db));
  CU_ASSERT_EQUAL_FATAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
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

/* One text value from a query (malloc'd; NULL for SQL NULL or no row). */
static char *query_text(MYSQL *db, const char *text) {
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, text), 0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  MYSQL_ROW row = mysql_fetch_row(res);
  char *v = row && row[0] ? strdup(row[0]) : NULL;
  mysql_free_result(res);
  return v;
}

static MYSQL *admin(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  sql(db, "CREATE DATABASE IF NOT EXISTS " DB
          " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
  sql(db, "USE " DB);
  return db;
}

static void drop_prefix(MYSQL *db, const char *prefix) {
  static const char *const tables[] = {
      "schema_version", "jobs",  "triggers", "calendars",
      "paused_groups",  "fired", "nodes",    "history"};
  char q[256];
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    snprintf(q, sizeof q, "DROP TABLE IF EXISTS %s%s", prefix, tables[i]);
    sql(db, q);
  }
}

/* Opens the store at url as node. */
static int open_url(const char *url, const char *node, size_t conns,
                    chime_store **st, char *err, size_t len) {
  chime_store_options o = {.scheduler_name = "mft",
                           .instance_id = node,
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = conns};
  *st = NULL;
  err[0] = '\0';
  int r = chime__store_open(url, &o, st, err, len);
  if (r != 0)
    fprintf(stderr, "open as %s: %s: %s\n", node, chime_err_name(r), err);
  return r;
}

static int open_as(const char *params, const char *node, size_t conns,
                   chime_store **st, char *err, size_t len) {
  return open_url(url_for(params), node, conns, st, err, len);
}

/* Adds durable job g.name (FORBID when forbid) and trigger tg.name, firing
 * at T0 and hourly after. */
static void add_job_trigger(chime_store *st, const char *name, bool forbid,
                            bool recover) {
  chime_job *job = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", name, "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_requests_recovery(job, recover), 0);
  if (forbid)
    CU_ASSERT_EQUAL_FATAL(
        chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("tg", name, 3600 * 1000,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", name), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, job, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  chime_job_free(job);
}

/* Claims and starts every fire due at T0; returns them sorted by job name. */
static int by_job_name(const void *a, const void *b) {
  const chime_fire *x = *(chime_fire *const *)a, *y = *(chime_fire *const *)b;
  return strcmp(chime_job_get_name(x->job), chime_job_get_name(y->job));
}

static chime_fire **claim_all(chime_store *st, size_t want) {
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->acquire(st, T0, T0, want, NULL, &fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, want);
  CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, fires, n, T0), 0);
  qsort(fires, n, sizeof *fires, by_job_name);
  return fires;
}

static void free_fires(chime_fire **fires, size_t n) {
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
}

/* ------------------------------------------------ finding 2: bad text */

typedef struct completer {
  pthread_t thread;
  chime_store *st;
  chime_fire *fire;
  chime_run_result out;
  int result;
} completer;

static void *complete_thread(void *arg) {
  completer *c = arg;
  c->result = c->st->ops->complete(c->st, c->fire, &c->out);
  return NULL;
}

/* How many completions wait in the store's queue, and whether one writes. */
static size_t queued(chime_store *st, bool *ret_busy) {
  chime__mysql_store *s = chime__mysql_store_of(st);
  pthread_mutex_lock(&s->done_mu);
  size_t n = s->done_queued;
  *ret_busy = s->done_busy;
  pthread_mutex_unlock(&s->done_mu);
  return n;
}

/* Waits (up to 30 s) until n completions wait behind a busy writer. */
static bool wait_queued(chime_store *st, size_t n) {
  for (int i = 0; i < 3000; i++) {
    bool busy;
    if (queued(st, &busy) == n && busy)
      return true;
    nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
  }
  return false;
}

/* Finding 2: one completion the database refuses (here a history row that
 * breaks a CHECK constraint) fails alone: the healthy FORBID jobs of its
 * batch complete, and it is still completed, with a plain message. */
static void test_mysql_faults_bad_row_never_takes_a_batch_down(void) {
  enum { N = 7, POISON = 3 };
  MYSQL *db = admin();
  drop_prefix(db, "mf_a_");
  chime_store *st;
  char err[512], q[256];
  CU_ASSERT_EQUAL_FATAL(open_as("prefix=mf_a_&auto_create=1&clear=1&"
                                "lock_wait_timeout_s=60",
                                "node-a", 1, &st, err, sizeof err),
                        0);
  sql(db, "ALTER TABLE mf_a_history ADD CONSTRAINT mf_poison CHECK "
          "(error_text IS NULL OR error_text NOT LIKE 'poison%')");
  for (int i = 0; i < N; i++) {
    char name[8];
    snprintf(name, sizeof name, "f%d", i);
    add_job_trigger(st, name, true, false);
  }
  chime_fire **fires = claim_all(st, N);
  /* Hold the first fire's row so that its completion waits, and the
   * others queue up behind it into one batch. */
  MYSQL *holder = admin();
  sql(holder, "START TRANSACTION");
  snprintf(q, sizeof q,
           "SELECT * FROM mf_a_fired WHERE fire_id = %lld FOR UPDATE",
           (long long)fires[0]->fire_id);
  sql(holder, q);
  completer c[N];
  for (int i = 0; i < N; i++) {
    c[i] = (completer){.st = st,
                       .fire = fires[i],
                       .out = {.started_ms = T0, .finished_ms = T0 + 1}};
    if (i == POISON)
      c[i].out = (chime_run_result){.error = CHIME_EJOBFAILED,
                                    .message = "poison row",
                                    .started_ms = T0,
                                    .finished_ms = T0 + 1};
    CU_ASSERT_EQUAL_FATAL(
        pthread_create(&c[i].thread, NULL, complete_thread, &c[i]), 0);
    if (i == 0)
      CU_ASSERT_FATAL(wait_queued(st, 0));
  }
  CU_ASSERT(wait_queued(st, N - 1));
  sql(holder, "ROLLBACK");
  for (int i = 0; i < N; i++) {
    pthread_join(c[i].thread, NULL);
    CU_ASSERT_EQUAL(c[i].result, 0);
  }
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_a_fired"), 0);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM mf_a_triggers WHERE state = "
                            "'BLOCKED'"),
                  0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_a_history"), N);
  char *text = query_text(db, "SELECT error_text FROM mf_a_history WHERE "
                              "job_name = 'f3'");
  CU_ASSERT_PTR_NOT_NULL(text);
  if (text)
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "could not be stored"));
  free(text);
  free_fires(fires, N);
  st->ops->free(st);
  mysql_close(holder);
  drop_prefix(db, "mf_a_");
  mysql_close(db);
}

/* Finding 2: a failure message that is not valid UTF-8 (Latin-1 bytes, a
 * multi-byte character cut at the limit) is stored, made valid, and the
 * FORBID job goes on. */
static void test_mysql_faults_invalid_utf8_message_is_stored(void) {
  MYSQL *db = admin();
  chime_store *st;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(open_as("prefix=mf_b_&auto_create=1&clear=1", "node-a",
                                2, &st, err, sizeof err),
                        0);
  add_job_trigger(st, "latin1", true, false);
  add_job_trigger(st, "euros", true, false);
  chime_fire **fires = claim_all(st, 2);
  /* "échec" in Latin-1; 1,366 euro signs cut at 4,096 bytes. */
  char euros[3 * 1366 + 1];
  for (size_t i = 0; i < 1366; i++)
    memcpy(euros + 3 * i, "\xE2\x82\xAC", 3);
  euros[4096] = '\0'; /* inside the last character */
  const char *messages[] = {euros, "\xE9"
                                   "chec \xFF"};
  for (size_t i = 0; i < 2; i++) {
    chime_run_result out = {.error = CHIME_EJOBFAILED,
                            .message = messages[i],
                            .started_ms = T0,
                            .finished_ms = T0 + 1};
    CU_ASSERT_EQUAL(st->ops->complete(st, fires[i], &out), 0);
  }
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_b_fired"), 0);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM mf_b_triggers WHERE state = "
                            "'BLOCKED'"),
                  0);
  char *text = query_text(db, "SELECT error_text FROM mf_b_history WHERE "
                              "job_name = 'latin1'");
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_STRING_EQUAL(text, "\xEF\xBF\xBD"
                               "chec \xEF\xBF\xBD");
  free(text);
  text = query_text(db, "SELECT error_text FROM mf_b_history WHERE "
                        "job_name = 'euros'");
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT(chime__utf8_valid(text, strlen(text)));
  CU_ASSERT(strlen(text) >= 4090 && strlen(text) <= 4096);
  free(text);
  free_fires(fires, 2);
  st->ops->free(st);
  drop_prefix(db, "mf_b_");
  mysql_close(db);
}

/* Finding 2: a schema with a table missing is refused at open, naming it. */
static void test_mysql_faults_missing_table_refused_at_open(void) {
  MYSQL *db = admin();
  chime_store *st;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(open_as("prefix=mf_c_&auto_create=1&clear=1", "node-a",
                                1, &st, err, sizeof err),
                        0);
  st->ops->free(st);
  static const char *const tables[] = {"history", "fired", "nodes"};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char q[128];
    snprintf(q, sizeof q, "RENAME TABLE mf_c_%s TO mf_c_%s_gone", tables[i],
             tables[i]);
    sql(db, q);
    CU_ASSERT_EQUAL(open_as("prefix=mf_c_", "node-a", 1, &st, err, sizeof err),
                    CHIME_ESCHEMA);
    CU_ASSERT_PTR_NULL(st);
    snprintf(q, sizeof q, "mf_c_%s", tables[i]);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, q));
    snprintf(q, sizeof q, "RENAME TABLE mf_c_%s_gone TO mf_c_%s", tables[i],
             tables[i]);
    sql(db, q);
  }
  CU_ASSERT_EQUAL(open_as("prefix=mf_c_", "node-a", 1, &st, err, sizeof err),
                  0);
  if (st)
    st->ops->free(st);
  drop_prefix(db, "mf_c_");
  mysql_close(db);
}

/* --------------------------------------- finding 1: restart, same id */

/* Finding 1: a node killed mid-job and restarted under the same instance
 * id after its lease ended, with no other node running, gets its lost
 * fires back: the EXECUTING ones recovered (rerun) or failed per the
 * job's recovery flag, its FORBID trigger unblocked, its ACQUIRED claim
 * returned, and the nodes row names the new process. */
static void test_mysql_faults_restart_same_id_recovers(void) {
  MYSQL *db = admin();
  chime_store *first, *again;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(open_as("prefix=mf_e_&auto_create=1&clear=1", "same-id",
                                2, &first, err, sizeof err),
                        0);
  add_job_trigger(first, "a-forbid", true, false);
  add_job_trigger(first, "b-rerun", false, true);
  add_job_trigger(first, "c-plain", false, false);
  add_job_trigger(first, "d-claimed", false, false);
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(first->ops->acquire(first, T0, T0, 4, NULL, &fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  qsort(fires, n, sizeof *fires, by_job_name);
  CU_ASSERT_EQUAL_FATAL(first->ops->fire(first, fires, 3, T0), 0);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM mf_e_triggers WHERE state = "
                            "'BLOCKED'"),
                  1);
  /* Killed: no completion, no clean close; its lease ends. */
  chime__mysql_store_of(first)->node_claimed = false;
  first->ops->free(first);
  sql(db, "UPDATE mf_e_nodes SET last_checkin_ms = 0, pid = 999999 WHERE "
          "instance_id = 'same-id'");
  CU_ASSERT_EQUAL_FATAL(
      open_as("prefix=mf_e_", "same-id", 2, &again, err, sizeof err), 0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_e_fired WHERE "
                                "state = 'EXECUTING'"),
                  0);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM mf_e_triggers WHERE state = "
                            "'BLOCKED'"),
                  0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_e_history WHERE "
                                "job_name = 'c-plain' AND outcome = 'FAILED'"),
                  1);
  char q[200];
  snprintf(q, sizeof q,
           "SELECT pid FROM mf_e_nodes WHERE instance_id = 'same-id'");
  CU_ASSERT_EQUAL(query_int(db, q), (long long)getpid());
  /* The rerun comes back as a recovering fire at its scheduled time; the
   * claim that never started is claimable again. */
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT COUNT(*) FROM mf_e_triggers WHERE trigger_name = "
                    "'a-forbid' AND state = 'WAITING'"),
      1);
  chime_fire **got = NULL;
  size_t m = 0;
  CU_ASSERT_EQUAL_FATAL(again->ops->acquire(again, T0, T0, 10, NULL, &got, &m),
                        0);
  qsort(got, m, sizeof *got, by_job_name);
  CU_ASSERT_EQUAL(m, 2);
  if (m == 2) {
    CU_ASSERT_STRING_EQUAL(chime_job_get_name(got[0]->job), "b-rerun");
    CU_ASSERT_TRUE(got[0]->recovering);
    CU_ASSERT_EQUAL(got[0]->scheduled_ms, T0);
    CU_ASSERT_STRING_EQUAL(chime_job_get_name(got[1]->job), "d-claimed");
  }
  free_fires(got, m);
  free_fires(fires, n);
  again->ops->free(again);
  drop_prefix(db, "mf_e_");
  mysql_close(db);
}

/* ------------------------------------- finding 6: a lost COMMIT reply */

/* Finding 6: each call's COMMIT reaches the server and its reply is lost
 * with the connection (the store's test hook): the call reports the
 * success it had, not CHIME_EEXISTS / CHIME_ENOTFOUND for its own change,
 * and a completion is not taken for a takeover. */
static void test_mysql_faults_lost_commit_reply_is_success(void) {
  MYSQL *db = admin();
  chime_store *st;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(open_as("prefix=mf_g_&auto_create=1&clear=1", "node-a",
                                2, &st, err, sizeof err),
                        0);
  chime__mysql_store *ms = chime__mysql_store_of(st);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "lost", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  atomic_store(&ms->test_lost_commits, 1);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  CU_ASSERT_EQUAL(atomic_load(&ms->test_lost_commits), 0);
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT COUNT(*) FROM mf_g_jobs WHERE job_name = 'lost'"),
      1);
  /* schedule: a job and its trigger in one step. */
  chime_job *job2 = NULL;
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "sched", "t", &job2, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tg", "sched", 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "sched"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  int64_t first = 0;
  atomic_store(&ms->test_lost_commits, 1);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, job2, t, false, &first, err, sizeof err), 0);
  CU_ASSERT_EQUAL(first, T0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_g_triggers WHERE "
                                "trigger_name = 'sched'"),
                  1);
  /* remove_job */
  atomic_store(&ms->test_lost_commits, 1);
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "g", "lost"), 0);
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT COUNT(*) FROM mf_g_jobs WHERE job_name = 'lost'"),
      0);
  /* A completion whose reply is lost is not "taken over". */
  chime_fire **fires = claim_all(st, 1);
  chime_run_result out = {.started_ms = T0, .finished_ms = T0 + 1};
  atomic_store(&ms->test_lost_commits, 1);
  CU_ASSERT_EQUAL(st->ops->complete(st, fires[0], &out), 0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_g_fired"), 0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_g_history"), 1);
  free_fires(fires, 1);
  /* Still an error when it is one: a second add of the same job. */
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), CHIME_EEXISTS);
  chime_trigger_free(t);
  chime_job_free(job2);
  chime_job_free(job);
  st->ops->free(st);
  drop_prefix(db, "mf_g_");
  mysql_close(db);
}

/* Finding 6, the other side: a completion loses its connection just as it
 * sends COMMIT, which never reaches the server (a proxy cuts it); while
 * the node is cut off, a survivor declares it dead and recovers the fire.
 * The completion's retry finds the fired row gone: that is a takeover
 * (CHIME_ENOTOWNER), not its own COMMIT (before, it reported success and
 * the run counted twice: here and in the recovery's rerun). */
static void test_mysql_faults_lost_commit_after_takeover_is_refused(void) {
  MYSQL *db = admin();
  cut_proxy *proxy = proxy_start(NULL);
  char err[512];
  chime_store *a = NULL, *b = NULL;
  CU_ASSERT_EQUAL_FATAL(open_url(url_via(cut_proxy_port(proxy),
                                         "prefix=mf_r_&auto_create=1&clear=1"),
                                 "node-a", 2, &a, err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(
      open_as("prefix=mf_r_", "node-b", 2, &b, err, sizeof err), 0);
  add_job_trigger(a, "rerun", false, true);
  chime_fire **fires = claim_all(a, 1);
  completer c = {.st = a,
                 .fire = fires[0],
                 .out = {.started_ms = T0, .finished_ms = T0 + 5}};
  cut_proxy_cut_next(proxy, "COMMIT");
  CU_ASSERT_EQUAL_FATAL(pthread_create(&c.thread, NULL, complete_thread, &c),
                        0);
  for (int i = 0; i < 3000 && !cut_proxy_did_cut(proxy); i++)
    nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
  CU_ASSERT_TRUE(cut_proxy_did_cut(proxy));
  /* Node A is cut off (the proxy refuses it now); its lease ends and B
   * recovers its fire (waiting, if need be, until the server has rolled
   * back A's cut transaction). */
  sql(db, "UPDATE mf_r_nodes SET last_checkin_ms = 0 WHERE instance_id = "
          "'node-a'");
  int64_t now = b->ops->now(b);
  size_t recovered = 0;
  CU_ASSERT_EQUAL(b->ops->checkin(b, now, NULL), 0);
  CU_ASSERT_EQUAL(b->ops->recover_dead_nodes(b, now, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 1);
  cut_proxy_refuse(proxy, false);
  pthread_join(c.thread, NULL);
  CU_ASSERT_EQUAL(c.result, CHIME_ENOTOWNER);
  /* The recovery's row only, and its rerun waiting to be claimed. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_r_history"), 1);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM mf_r_history WHERE outcome = "
                            "'REQUEUED'"),
                  1);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_r_triggers WHERE "
                                "trigger_group = 'CHIME_RECOVERING'"),
                  1);
  free_fires(fires, 1);
  a->ops->free(a);
  b->ops->free(b);
  cut_proxy_stop(proxy);
  drop_prefix(db, "mf_r_");
  mysql_close(db);
}

/* Finding 6: opening the store when the connection is lost after it was
 * made (here: cut by a proxy just as the schema step sends its first
 * statement) opens it again and succeeds; before, opening failed with
 * CHIME_ECONNECT and a node could not start. */
static void test_mysql_faults_open_retries_a_lost_connection(void) {
  MYSQL *db = admin();
  cut_proxy *proxy = proxy_start("schema_version");
  chime_store *st = NULL;
  char err[512];
  CU_ASSERT_EQUAL(
      open_url(url_via(cut_proxy_port(proxy), "prefix=mf_o_&auto_create=1"),
               "node-o", 2, &st, err, sizeof err),
      0);
  CU_ASSERT_TRUE(cut_proxy_did_cut(proxy));
  CU_ASSERT(cut_proxy_accepted(proxy) >= 2);
  if (st)
    st->ops->free(st);
  cut_proxy_stop(proxy);
  drop_prefix(db, "mf_o_");
  mysql_close(db);
}

/* ------------------------------------- finding 8: keys compared exactly */

/* Finding 8: keys 'k', 'k ' and 'k  ' are three jobs (and three triggers):
 * replacing one never overwrites another. */
static void test_mysql_faults_trailing_spaces_are_distinct_keys(void) {
  MYSQL *db = admin();
  chime_store *st;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(open_as("prefix=mf_h_&auto_create=1&clear=1", "node-a",
                                1, &st, err, sizeof err),
                        0);
  static const char *const keys[] = {"k", "k ", "k  "};
  for (size_t i = 0; i < 3; i++) {
    chime_job *job = NULL;
    CU_ASSERT_EQUAL_FATAL(chime_job_new("g", keys[i], "t", &job, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
    CU_ASSERT_EQUAL_FATAL(chime_job_set_description(job, keys[i]), 0);
    CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
    chime_job_free(job);
  }
  /* Replacing 'k  ' leaves 'k' as it was. */
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "k  ", "other", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_h_jobs"), 3);
  chime_job *got = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "k", &got), 0);
  CU_ASSERT_STRING_EQUAL(chime_job_get_type(got), "t");
  chime_job_free(got);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "k  ", &got), 0);
  CU_ASSERT_STRING_EQUAL(chime_job_get_type(got), "other");
  chime_job_free(got);
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "g", "k "), 0);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mf_h_jobs"), 2);
  st->ops->free(st);
  drop_prefix(db, "mf_h_");
  mysql_close(db);
}

/* ----------------------------------------------- finding 3: clock step */

#define MAX_RUNS 512

/* What a scheduler did: its runs (trigger, scheduled time, real start) and
 * its misfire events. */
static struct {
  pthread_mutex_t mu;
  int n, misfires;
  char trigger[MAX_RUNS][16];
  int64_t sched[MAX_RUNS], started[MAX_RUNS];
} seen = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int64_t real_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void record(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&seen.mu);
  if (seen.n < MAX_RUNS) {
    snprintf(seen.trigger[seen.n], sizeof seen.trigger[0], "%s",
             chime_ctx_get_trigger_name(ctx));
    seen.sched[seen.n] = chime_ctx_get_scheduled_ms(ctx);
    seen.started[seen.n] = real_wall_ms();
  }
  seen.n++;
  pthread_mutex_unlock(&seen.mu);
}

static bool count_misfires(const chime_event *event, void *user_data) {
  (void)event;
  (void)user_data;
  pthread_mutex_lock(&seen.mu);
  seen.misfires++;
  pthread_mutex_unlock(&seen.mu);
  return false;
}

static _Atomic int fences; /* "fenced itself" log lines */

static void count_fences(void *user_data, chime_log_level level,
                         const char *message) {
  (void)user_data;
  (void)level;
  if (strstr(message, "fenced itself"))
    atomic_fetch_add(&fences, 1);
  if (getenv("CHIME_TEST_VERBOSE"))
    fprintf(stderr, "log %d: %s\n", (int)level, message);
}

static int runs_of(const char *trigger) {
  int c = 0;
  pthread_mutex_lock(&seen.mu);
  for (int i = 0; i < seen.n && i < MAX_RUNS; i++)
    c += strcmp(seen.trigger[i], trigger) == 0;
  pthread_mutex_unlock(&seen.mu);
  return c;
}

/* Waits (up to 20 s) for n runs of trigger. */
static bool wait_runs(const char *trigger, int n) {
  for (int64_t end = real_wall_ms() + 20000; real_wall_ms() < end; pause_ms(20))
    if (runs_of(trigger) >= n)
      return true;
  return false;
}

static chime_scheduler *start_node(const char *params, const char *node) {
  const char *base = chime_test_mysql_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(base);
  char url[1024];
  snprintf(url, sizeof url, "%s%c%s", base, strchr(base, '?') ? '&' : '?',
           params);
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_store_url(cfg, url), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "faults"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_instance_id(cfg, node), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_misfire_threshold_ms(cfg, 1000), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_checkin_interval_ms(cfg, 1000), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_config_set_log(cfg, count_fences, NULL, CHIME_LOG_DEBUG), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "record", record, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_TRIGGER_MISFIRED,
                                   count_misfires, NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  return s;
}

static void schedule_simple(chime_scheduler *s, const char *name,
                            int64_t start_ms, int64_t interval, int32_t repeat,
                            bool forbid) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("jobs", name, "record", &job, NULL, 0),
                        0);
  if (forbid)
    CU_ASSERT_EQUAL_FATAL(
        chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("triggers", name, interval,
                                                 repeat, &t, err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "jobs", name), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, start_ms), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
}

/* Steps the clocks of s's node by ms while it runs (both its wall and its
 * monotonic clock, as libfaketime does). */
static void step_clock(chime_scheduler *s, int64_t ms) {
  chime__mysql_store *st = chime__mysql_store_of(s->store);
  atomic_fetch_add(&st->test_skew_ms, ms);
}

/* Finding 3: one node's clock stepping forward (+1 h, then +30 s) while it
 * runs: no fire starts early, no misfire rule is applied, no trigger's
 * next fire moves ahead. */
static void test_mysql_faults_clock_step_changes_nothing(void) {
  MYSQL *db = chime_test_mysql_open(); /* the URL's database */
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  pthread_mutex_lock(&seen.mu);
  seen.n = seen.misfires = 0;
  pthread_mutex_unlock(&seen.mu);
  chime_scheduler *s =
      start_node("prefix=mf_d_&auto_create=1&clear=1", "clock-node");
  int64_t t0 = real_wall_ms() + 300;
  schedule_simple(s, "tick", t0, 300, CHIME_REPEAT_INDEFINITELY, false);
  schedule_simple(s, "once", t0 + 60000, 0, 0, false);
  for (int i = 0; i < 8; i++) {
    char name[16];
    snprintf(name, sizeof name, "slow%d", i);
    schedule_simple(s, name, t0 + 2000, 20000, CHIME_REPEAT_INDEFINITELY, true);
  }
  CU_ASSERT_FATAL(wait_runs("tick", 3));
  step_clock(s, 3600 * 1000);
  int base = runs_of("tick");
  CU_ASSERT(wait_runs("tick", base + 8));
  step_clock(s, 30 * 1000);
  base = runs_of("tick");
  CU_ASSERT(wait_runs("tick", base + 8));
  CU_ASSERT(wait_runs("slow7", 1));
  int64_t now = real_wall_ms();
  chime_scheduler_free(s);
  pthread_mutex_lock(&seen.mu);
  CU_ASSERT_EQUAL(seen.misfires, 0);
  for (int i = 0; i < seen.n && i < MAX_RUNS; i++) {
    if (seen.started[i] < seen.sched[i] - 250)
      fprintf(stderr, "%s ran %lld ms early\n", seen.trigger[i],
              (long long)(seen.sched[i] - seen.started[i]));
    CU_ASSERT(seen.started[i] >= seen.sched[i] - 250);
  }
  pthread_mutex_unlock(&seen.mu);
  CU_ASSERT_EQUAL(runs_of("once"), 0);
  for (int i = 0; i < 8; i++) {
    char name[16];
    snprintf(name, sizeof name, "slow%d", i);
    CU_ASSERT_EQUAL(runs_of(name), 1);
  }
  /* No trigger moved ahead: each next fire is where its schedule says. */
  char q[256];
  snprintf(q, sizeof q,
           "SELECT COUNT(*) FROM mf_d_triggers WHERE sched_name = 'faults' "
           "AND next_fire_ms > %lld",
           (long long)(now + 60000 + 1000));
  CU_ASSERT_EQUAL(query_int(db, q), 0);
  snprintf(q, sizeof q,
           "SELECT next_fire_ms FROM mf_d_triggers WHERE trigger_name = "
           "'once'");
  CU_ASSERT_EQUAL(query_int(db, q), t0 + 60000);
  drop_prefix(db, "mf_d_");
  mysql_close(db);
}

/* ------------------------------------- finding 4: another node's locks */

/* The longest gap between two consecutive runs of trigger, in real time. */
static int64_t longest_gap(const char *trigger) {
  int64_t prev = -1, gap = 0;
  pthread_mutex_lock(&seen.mu);
  for (int i = 0; i < seen.n && i < MAX_RUNS; i++) {
    if (strcmp(seen.trigger[i], trigger) != 0)
      continue;
    if (prev >= 0 && seen.started[i] - prev > gap)
      gap = seen.started[i] - prev;
    prev = seen.started[i];
  }
  pthread_mutex_unlock(&seen.mu);
  return gap;
}

/* Finding 4 (second half): another session (a frozen node) holds, for 8 s,
 * the row lock of a FORBID job that is due: the node neither fences itself
 * nor stops running its other triggers while it waits. */
static void test_mysql_faults_other_locks_never_fence(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  pthread_mutex_lock(&seen.mu);
  seen.n = seen.misfires = 0;
  pthread_mutex_unlock(&seen.mu);
  atomic_store(&fences, 0);
  chime_scheduler *s =
      start_node("prefix=mf_f_&auto_create=1&clear=1", "lock-node");
  int64_t t0 = real_wall_ms() + 300;
  schedule_simple(s, "tick", t0, 250, CHIME_REPEAT_INDEFINITELY, false);
  CU_ASSERT_FATAL(wait_runs("tick", 3));
  /* The frozen node's open transaction: the job's row, locked. */
  schedule_simple(s, "held", real_wall_ms() + 60000, 1000,
                  CHIME_REPEAT_INDEFINITELY, true);
  sql(db, "SET autocommit = 0");
  /* By primary key: a scan would lock every row it passes. */
  sql(db, "UPDATE mf_f_triggers SET next_fire_ms = next_fire_ms - 60000 "
          "WHERE sched_name = 'faults' AND trigger_group = 'triggers' AND "
          "trigger_name = 'held'");
  sql(db, "COMMIT");
  sql(db, "SELECT * FROM mf_f_jobs WHERE sched_name = 'faults' AND "
          "job_group = 'jobs' AND job_name = 'held' FOR UPDATE");
  int base = runs_of("tick");
  int64_t held_at = real_wall_ms();
  CU_ASSERT(wait_runs("tick", base + 24)); /* 6 s of ticks */
  while (real_wall_ms() < held_at + 8000)
    pause_ms(50);
  sql(db, "ROLLBACK");
  CU_ASSERT(wait_runs("tick", base + 30));
  chime_scheduler_free(s);
  fprintf(stderr, "longest gap between ticks: %lld ms; %d fence(s)\n",
          (long long)longest_gap("tick"), atomic_load(&fences));
  CU_ASSERT_EQUAL(atomic_load(&fences), 0);
  CU_ASSERT(longest_gap("tick") < 2500);
  drop_prefix(db, "mf_f_");
  mysql_close(db);
}

static CU_TestInfo tests[] = {
    {"finding 2: a bad row never takes a batch down",
     test_mysql_faults_bad_row_never_takes_a_batch_down},
    {"finding 2: an invalid UTF-8 message is stored",
     test_mysql_faults_invalid_utf8_message_is_stored},
    {"finding 2: a missing table is refused at open",
     test_mysql_faults_missing_table_refused_at_open},
    {"finding 1: a restart under the same id recovers its fires",
     test_mysql_faults_restart_same_id_recovers},
    {"finding 3: a clock step changes nothing",
     test_mysql_faults_clock_step_changes_nothing},
    {"finding 8: trailing spaces make distinct keys",
     test_mysql_faults_trailing_spaces_are_distinct_keys},
    {"finding 6: a lost COMMIT reply is the call's success",
     test_mysql_faults_lost_commit_reply_is_success},
    {"finding 6: a lost COMMIT after a takeover is refused",
     test_mysql_faults_lost_commit_after_takeover_is_refused},
    {"finding 6: opening retries a connection lost after it connected",
     test_mysql_faults_open_retries_a_lost_connection},
    {"finding 4: another node's locks never fence this one",
     test_mysql_faults_other_locks_never_fence},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-faults", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
