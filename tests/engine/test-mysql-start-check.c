/*
 * test-mysql-start-check.c: a worker's question before it starts a fire
 * claimed ahead (engine/workers.c, taken_over_meanwhile), on the throwaway
 * MariaDB (table prefix chime_sc_).  Node a reaches the server through a
 * proxy (tests/jobstore/cut-proxy.h) that the test cuts right after a
 * claimed the fire a second ahead of its time, so that a's lease breaks
 * before the fire is due, although the fire waits no longer than the
 * claim-ahead time:
 * - alone, a does not start the fire while the store cannot say whether it
 *   is still a's (before, "cannot tell" ran it), and runs it once the
 *   database answers again;
 * - with node b beside it, which declares a dead and takes the fire over
 *   while a is cut off, a never starts it (before, it ran: it had waited
 *   less than the claim-ahead time and 250 ms) and b runs it once.
 */
#include "chime.h"
#include "jobstore/cut-proxy.h"
#include "harness.h"
#include "jobstore/mysql/url.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_MS 20000
#define CHECKIN_MS 300 /* a lease of 600 ms */
#define PARAMS "prefix=chime_sc_&auto_create=1"

/* The runs each node started, and the wall time of the first. */
typedef struct runs {
  atomic_int started;
  _Atomic int64_t first_ms;
} runs;

static runs on_a, on_b;

static void probe(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  runs *r = user_data;
  int64_t zero = 0;
  atomic_compare_exchange_strong(&r->first_ms, &zero, chime_test_wall_ms());
  atomic_fetch_add(&r->started, 1);
}

/* A proxy in front of the test server. */
static cut_proxy *proxy_start(void) {
  chime__mysql_url *u = NULL;
  const char *text = chime_test_mysql_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL_FATAL(chime__mysql_url_parse(text, &u, NULL, 0), 0);
  cut_proxy *p = cut_proxy_start(u->host, u->port, NULL);
  chime__mysql_url_free(u);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  return p;
}

/* Node id of scheduler "sc", through proxy p (NULL: directly), claiming a
 * second ahead; clear empties the tables first. */
static chime_scheduler *node(const char *id, cut_proxy *p, runs *r,
                             bool clear) {
  const char *params = clear ? PARAMS "&clear=1" : PARAMS;
  chime_config *cfg = chime_test_mysql_config(params, id);
  if (p) {
    chime__mysql_url *u = NULL;
    char url[1024];
    CU_ASSERT_EQUAL_FATAL(
        chime__mysql_url_parse(chime_test_mysql_url(), &u, NULL, 0), 0);
    snprintf(url, sizeof url, "mysql://%s:%s@127.0.0.1:%u/%s?%s", u->user,
             u->password, cut_proxy_port(p), u->database, params);
    chime__mysql_url_free(u);
    CU_ASSERT_EQUAL_FATAL(chime_config_set_store_url(cfg, url), 0);
  }
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "sc"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_checkin_interval_ms(cfg, CHECKIN_MS),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_claim_ahead_ms(cfg, 1000), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "probe", probe, r, NULL), 0);
  return s;
}

/* Schedules job app.once to run once at at_ms (recovery asked). */
static void schedule_once(chime_scheduler *s, int64_t at_ms) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "once", "probe", &job, NULL, 0),
                        0);
  CU_ASSERT_EQUAL(chime_job_set_requests_recovery(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("app", "once", 1000, 0, &t, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "app", "once"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, at_ms), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
}

static long long query_ll(const char *text) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  long long v = -1;
  if (mysql_query(db, text) == 0) {
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    if (row && row[0])
      v = atoll(row[0]);
    if (res)
      mysql_free_result(res);
  }
  mysql_close(db);
  return v;
}

/* Waits until node id holds a claimed fire of app.once: its fired row,
 * or its run kept in the one-shot's trigger row (jobstore/mysql/runs.c). */
static bool wait_claimed_by(const char *id) {
  char q[512];
  snprintf(q, sizeof q,
           "SELECT (SELECT COUNT(*) FROM chime_sc_fired WHERE sched_name = "
           "'sc' AND trigger_name = 'once' AND node = '%s') + (SELECT "
           "COUNT(*) FROM chime_sc_triggers WHERE sched_name = 'sc' AND "
           "trigger_name = 'once' AND state = 'EXECUTING' AND owner = '%s')",
           id, id);
  for (int64_t end = chime_test_wall_ms() + WAIT_MS; chime_test_wall_ms() < end;
       chime_test_sleep_ms(5))
    if (query_ll(q) > 0)
      return true;
  return false;
}

static bool wait_started(runs *r, int n) {
  for (int64_t end = chime_test_wall_ms() + WAIT_MS; chime_test_wall_ms() < end;
       chime_test_sleep_ms(10))
    if (atomic_load(&r->started) >= n)
      return true;
  return false;
}

/* Waits until the trigger's run is in the history, ended. */
static bool wait_history(void) {
  for (int64_t end = chime_test_wall_ms() + WAIT_MS; chime_test_wall_ms() < end;
       chime_test_sleep_ms(20))
    if (query_ll("SELECT COUNT(*) FROM chime_sc_history WHERE "
                 "sched_name = 'sc' AND trigger_name = 'once'") > 0)
      return true;
  return false;
}

/* Starts node a through a new proxy (*ret_p), lets it claim app.once a
 * second ahead of its time, then cuts it off: from then on a can reach
 * nobody.  Returns a; *ret_due is the fire's time. */
static chime_scheduler *claimed_then_cut(cut_proxy **ret_p, int64_t *ret_due) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  *ret_p = proxy_start();
  chime_scheduler *a = node("sc-a", *ret_p, &on_a, true);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(a), 0);
  *ret_due = chime_test_wall_ms() + 2500;
  schedule_once(a, *ret_due);
  CU_ASSERT_FATAL(wait_claimed_by("sc-a"));
  cut_proxy_cut_all(*ret_p);
  return a;
}

static void test_mysql_start_check_waits_for_the_answer(void) {
  cut_proxy *p;
  int64_t due;
  chime_scheduler *a = claimed_then_cut(&p, &due);
  chime_test_sleep_ms(due + 1500 - chime_test_wall_ms());
  CU_ASSERT_EQUAL(atomic_load(&on_a.started), 0); /* not on a guess */
  int64_t back = chime_test_wall_ms();
  cut_proxy_refuse(p, false);
  CU_ASSERT_FATAL(wait_started(&on_a, 1));
  CU_ASSERT(atomic_load(&on_a.first_ms) >= back);
  CU_ASSERT(wait_history());
  chime_test_sleep_ms(500);
  CU_ASSERT_EQUAL(atomic_load(&on_a.started), 1);
  chime_scheduler_free(a);
  cut_proxy_stop(p);
}

static void test_mysql_start_check_taken_over_is_not_run(void) {
  cut_proxy *p;
  int64_t due;
  chime_scheduler *a = claimed_then_cut(&p, &due);
  (void)due;
  /* b declares a dead once its lease ran out, gets the fire back and runs
   * it; a hears of it only when the database answers it again. */
  chime_scheduler *b = node("sc-b", NULL, &on_b, false);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(b), 0);
  CU_ASSERT_FATAL(wait_started(&on_b, 1));
  CU_ASSERT(wait_history());
  chime_test_sleep_ms(500);
  cut_proxy_refuse(p, false);
  /* a asks, hears "taken over" and drops it (a fencing refusal). */
  uint64_t refusals = 0;
  for (int64_t end = chime_test_wall_ms() + WAIT_MS;
       refusals == 0 && chime_test_wall_ms() < end; chime_test_sleep_ms(20)) {
    chime_metrics *m = NULL;
    CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(a, &m), 0);
    refusals = chime_metrics_get_counter(m, CHIME_METRIC_FENCING_REFUSALS);
    chime_metrics_free(m);
  }
  CU_ASSERT(refusals > 0);
  chime_test_sleep_ms(500);
  CU_ASSERT_EQUAL(atomic_load(&on_a.started), 0);
  CU_ASSERT_EQUAL(atomic_load(&on_b.started), 1);
  CU_ASSERT_EQUAL(query_ll("SELECT COUNT(*) FROM chime_sc_history WHERE "
                           "sched_name = 'sc' AND trigger_name = 'once'"),
                  1);
  chime_scheduler_free(b);
  chime_scheduler_free(a);
  cut_proxy_stop(p);
}

int main(void) {
  static CU_TestInfo tests[] = {
      {"a fire claimed ahead waits while the store cannot tell it is the "
       "node's",
       test_mysql_start_check_waits_for_the_answer},
      {"a fire taken over while its node was cut off is not started",
       test_mysql_start_check_taken_over_is_not_run},
      CU_TEST_INFO_NULL};
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-start-check", .pTests = tests},
      CU_SUITE_INFO_NULL};
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
