/*
 * test-mysql-drain.c: issue 35, draining a node, on the MySQL store
 * (table prefix chime_dr_), two schedulers of one cluster in this
 * process.
 *
 * A node asked to drain (chime_scheduler_drain, from the other node: from
 * outside) stops claiming at its next check-in: the other node takes every
 * fire of a frequent trigger from then on; its running fire finishes and
 * is recorded OK on it; then it says it is drained (its state, its
 * drain-state gauge); undrained, it claims again.  With a timeout shorter
 * than its run, the run is handed over as a stopping node hands it (run
 * again on the other node: the job requests recovery).  A node restarted
 * under a drained id claims nothing until it is undrained.
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 20000
#define CHECKIN_MS 300

typedef struct seen {
  atomic_int ticks;    /* runs of app.tick */
  atomic_int started;  /* runs of app.long */
  atomic_int returned; /* runs of app.long that returned */
  atomic_bool recovering;
  int long_ms;
} seen;

static seen on_a, on_b;

static void tick(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  atomic_fetch_add(&((seen *)user_data)->ticks, 1);
}

/* Runs long_ms, or until told to stop. */
static void long_run(chime_ctx *ctx, void *user_data) {
  seen *w = user_data;
  atomic_store(&w->recovering, chime_ctx_is_recovering(ctx));
  atomic_fetch_add(&w->started, 1);
  (void)chime_ctx_wait_cancelled(ctx, w->long_ms);
  atomic_fetch_add(&w->returned, 1);
}

static bool wait_atomic(atomic_int *v, int n, int timeout_ms) {
  for (int64_t end = chime_test_wall_ms() + timeout_ms;
       atomic_load(v) < n && chime_test_wall_ms() < end;)
    chime_test_sleep_ms(10);
  return atomic_load(v) >= n;
}

/* dr-a's nodes.held_ids as its last check-in wrote it ("" none). */
static void held_of_a(char *buf, size_t len) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  buf[0] = '\0';
  if (mysql_query(db, "SELECT held_ids FROM chime_dr_nodes WHERE "
                      "instance_id = 'dr-a'") == 0) {
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    snprintf(buf, len, "%s", row && row[0] ? row[0] : "");
    if (res)
      mysql_free_result(res);
  }
  mysql_close(db);
}

static chime_node_state state_of(chime_scheduler *s, const char *id) {
  chime_node_state st = CHIME_NODE_ACTIVE;
  CU_ASSERT_EQUAL(chime_scheduler_node_state(s, id, &st), 0);
  return st;
}

static double gauge(chime_scheduler *s) {
  chime_metrics *m = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(s, &m), 0);
  double v = chime_metrics_get_gauge(m, CHIME_GAUGE_DRAIN_STATE);
  chime_metrics_free(m);
  return v;
}

/* Until s's own gauge says state (it acted on its check-in). */
static bool wait_gauge(chime_scheduler *s, int state, int timeout_ms) {
  for (int64_t end = chime_test_wall_ms() + timeout_ms;
       gauge(s) != state && chime_test_wall_ms() < end;)
    chime_test_sleep_ms(20);
  return gauge(s) == state;
}

static void log_line(void *user_data, chime_log_level level,
                     const char *message) {
  fprintf(stderr, "%lld %s %d %s\n", (long long)chime_test_wall_ms(),
          (const char *)user_data, (int)level, message);
}

static chime_scheduler *node(const char *id, seen *w, bool clear) {
  chime_config *cfg =
      chime_test_mysql_config(clear ? "prefix=chime_dr_&auto_create=1&clear=1"
                                    : "prefix=chime_dr_&auto_create=1",
                              id);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "dr"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_checkin_interval_ms(cfg, CHECKIN_MS),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  if (getenv("CHIME_TEST_LOG"))
    chime_config_set_log(cfg, log_line, (void *)id, CHIME_LOG_DEBUG);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "tick", tick, w, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "long", long_run, w, NULL), 0);
  return s;
}

/* The jobs: app.tick every 100 ms, app.long (recovery as asked) run once
 * now on a; b started after.  Returns a and b. */
static void cluster(chime_scheduler **a, chime_scheduler **b, bool recovery) {
  *a = node("dr-a", &on_a, true);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "long", "long", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_requests_recovery(job, recovery), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_add_job(*a, job, false), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(*a), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_run_job(*a, "app", "long", NULL, 0, NULL), 0);
  CU_ASSERT_FATAL(wait_atomic(&on_a.started, 1, WAIT_MS));
  *b = node("dr-b", &on_b, false);
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "tick", "tick", &job, NULL, 0), 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("app", "tick", 100,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "app", "tick"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(*b, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(*b), 0);
}

static void test_mysql_drain_other_node_takes_every_fire(void) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  on_a.long_ms = 3000;
  chime_scheduler *a, *b;
  cluster(&a, &b, true);
  CU_ASSERT_EQUAL(state_of(b, "dr-a"), CHIME_NODE_ACTIVE);
  /* Drained from outside: b asks for a. */
  CU_ASSERT_EQUAL(chime_scheduler_drain(b, "dr-a", 0), 0);
  CU_ASSERT_EQUAL(state_of(a, NULL), CHIME_NODE_DRAINING);
  CU_ASSERT_FATAL(wait_gauge(a, CHIME_NODE_DRAINING, WAIT_MS));
  /* A tick it claimed before it read the drain still runs: wait until its
   * check-ins list only the long run. */
  char held[256] = ",";
  for (int64_t end = chime_test_wall_ms() + WAIT_MS;
       strchr(held, ',') && chime_test_wall_ms() < end;) {
    chime_test_sleep_ms(20);
    held_of_a(held, sizeof held);
  }
  /* Its running fire goes on; every tick is b's from now on. */
  int a_ticks = atomic_load(&on_a.ticks), b_ticks = atomic_load(&on_b.ticks);
  chime_test_sleep_ms(1200);
  CU_ASSERT_EQUAL(atomic_load(&on_a.ticks), a_ticks);
  CU_ASSERT(atomic_load(&on_b.ticks) >= b_ticks + 5);
  CU_ASSERT_EQUAL(atomic_load(&on_a.returned), 0);
  CU_ASSERT_EQUAL(state_of(b, "dr-a"), CHIME_NODE_DRAINING);
  /* Its check-ins list the fire it runs (chimectl repair reads them). */
  held_of_a(held, sizeof held);
  CU_ASSERT(held[0] != '\0' && strchr(held, ',') == NULL);
  /* It finishes its run, then says it is empty. */
  CU_ASSERT_FATAL(wait_atomic(&on_a.returned, 1, WAIT_MS));
  for (int64_t end = chime_test_wall_ms() + WAIT_MS;
       state_of(b, "dr-a") != CHIME_NODE_DRAINED && chime_test_wall_ms() < end;)
    chime_test_sleep_ms(20);
  CU_ASSERT_EQUAL(state_of(b, "dr-a"), CHIME_NODE_DRAINED);
  CU_ASSERT(wait_gauge(a, CHIME_NODE_DRAINED, WAIT_MS));
  held_of_a(held, sizeof held);
  CU_ASSERT_STRING_EQUAL(held, ""); /* done with it */
  CU_ASSERT_EQUAL(atomic_load(&on_a.started), 1);
  CU_ASSERT_EQUAL(atomic_load(&on_b.started), 0); /* ran to its end on a */
  CU_ASSERT_EQUAL(atomic_load(&on_a.ticks), a_ticks);
  /* Undrained: a claims again. */
  CU_ASSERT_EQUAL(chime_scheduler_undrain(b, "dr-a"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_undrain(b, "dr-a"), CHIME_ENOTFOUND);
  CU_ASSERT(wait_gauge(a, CHIME_NODE_ACTIVE, WAIT_MS));
  CU_ASSERT(wait_atomic(&on_a.ticks, a_ticks + 1, WAIT_MS));
  chime_scheduler_free(b);
  chime_scheduler_free(a);
}

static void test_mysql_drain_timeout_hands_over(void) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  on_a.long_ms = 60000; /* longer than any test: honours the stop */
  on_b.long_ms = 100;
  chime_scheduler *a, *b;
  cluster(&a, &b, true);
  CU_ASSERT_EQUAL(chime_scheduler_drain(a, NULL, 500), 0);
  /* Past the timeout the run is handed over: asked to stop here, run
   * again on b (recovering), and a is drained. */
  CU_ASSERT(wait_atomic(&on_a.returned, 1, WAIT_MS));
  CU_ASSERT(wait_atomic(&on_b.returned, 1, WAIT_MS));
  CU_ASSERT(atomic_load(&on_b.recovering));
  CU_ASSERT(wait_gauge(a, CHIME_NODE_DRAINED, WAIT_MS));
  CU_ASSERT_EQUAL(state_of(b, "dr-a"), CHIME_NODE_DRAINED);
  chime_test_sleep_ms(1000);
  CU_ASSERT_EQUAL(atomic_load(&on_a.started), 1);
  CU_ASSERT_EQUAL(atomic_load(&on_b.started), 1);
  chime_scheduler_free(b);
  chime_scheduler_free(a);
}

static void test_mysql_drain_restarted_node_stays_drained(void) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  on_a.long_ms = 10;
  chime_scheduler *a, *b;
  cluster(&a, &b, false);
  CU_ASSERT_EQUAL(chime_scheduler_drain(b, "dr-a", 0), 0);
  CU_ASSERT(wait_gauge(a, CHIME_NODE_DRAINED, WAIT_MS));
  chime_scheduler_free(a);
  /* The same id again: drained from its start, it claims nothing. */
  memset(&on_a, 0, sizeof on_a);
  a = node("dr-a", &on_a, false);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(a), 0);
  CU_ASSERT(wait_gauge(a, CHIME_NODE_DRAINED, WAIT_MS));
  chime_test_sleep_ms(1000);
  CU_ASSERT_EQUAL(atomic_load(&on_a.ticks), 0);
  CU_ASSERT_EQUAL(chime_scheduler_undrain(a, NULL), 0);
  CU_ASSERT(wait_atomic(&on_a.ticks, 1, WAIT_MS));
  /* Bad input. */
  CU_ASSERT_EQUAL(chime_scheduler_drain(a, "no-such-node", 0), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_scheduler_drain(a, NULL, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_node_state(a, NULL, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_drain(NULL, NULL, 0), CHIME_EINVAL);
  chime_scheduler_free(b);
  chime_scheduler_free(a);
}

static CU_TestInfo tests[] = {
    {"a drained node claims nothing, finishes its run, says so; undrained "
     "it claims again",
     test_mysql_drain_other_node_takes_every_fire},
    {"past its timeout a draining node hands its run over",
     test_mysql_drain_timeout_hands_over},
    {"a node restarted under a drained id stays drained until undrained",
     test_mysql_drain_restarted_node_stays_drained},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-drain", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
