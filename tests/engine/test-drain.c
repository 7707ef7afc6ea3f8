/*
 * test-drain.c: draining a node on the memory store (engine/drain.c,
 * jobstore/memory/drain.c): its cluster is the one scheduler, drained
 * through the same public calls as a clustered node (test-mysql-drain.c).
 *
 * Drained, it claims nothing from its next check-in: a frequent trigger
 * stops firing; its running fire finishes; then it says it is drained
 * (its state, its drain-state gauge); undrained, it claims again.  With a
 * timeout shorter than its run, the run is handed over: asked to stop,
 * and the node is drained while nothing runs it elsewhere.
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 20000
#define CHECKIN_MS 200

typedef struct seen {
  atomic_int ticks;    /* runs of app.tick */
  atomic_int started;  /* runs of app.long */
  atomic_int returned; /* runs of app.long that returned */
  int long_ms;
} seen;

static seen w;

static void tick(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  atomic_fetch_add(&((seen *)user_data)->ticks, 1);
}

/* Runs long_ms, or until told to stop. */
static void long_run(chime_ctx *ctx, void *user_data) {
  seen *x = user_data;
  atomic_fetch_add(&x->started, 1);
  (void)chime_ctx_wait_cancelled(ctx, x->long_ms);
  atomic_fetch_add(&x->returned, 1);
}

static bool wait_atomic(atomic_int *v, int n, int timeout_ms) {
  for (int64_t end = chime_test_wall_ms() + timeout_ms;
       atomic_load(v) < n && chime_test_wall_ms() < end;)
    chime_test_sleep_ms(10);
  return atomic_load(v) >= n;
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

/* A started memory scheduler "solo" with app.tick every 100 ms and
 * app.long running once. */
static chime_scheduler *solo(int long_ms) {
  memset(&w, 0, sizeof w);
  w.long_ms = long_ms;
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, "memory:"), 0);
  CU_ASSERT_EQUAL(chime_config_set_instance_id(cfg, "solo"), 0);
  CU_ASSERT_EQUAL(chime_config_set_workers(cfg, 2), 0);
  CU_ASSERT_EQUAL(chime_config_set_checkin_interval_ms(cfg, CHECKIN_MS), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "tick", tick, &w, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "long", long_run, &w, NULL), 0);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "long", "long", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_add_job(s, job, false), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "tick", "tick", &job, NULL, 0), 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("app", "tick", 100,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "app", "tick"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_run_job(s, "app", "long", NULL, 0, NULL), 0);
  CU_ASSERT_FATAL(wait_atomic(&w.started, 1, WAIT_MS));
  CU_ASSERT_FATAL(wait_atomic(&w.ticks, 1, WAIT_MS));
  return s;
}

static void test_drain_finishes_runs_then_drained(void) {
  chime_scheduler *s = solo(1500);
  CU_ASSERT_EQUAL(state_of(s, "solo"), CHIME_NODE_ACTIVE);
  CU_ASSERT_EQUAL(chime_scheduler_drain(s, "solo", 0), 0);
  CU_ASSERT_EQUAL(state_of(s, NULL), CHIME_NODE_DRAINING);
  CU_ASSERT_FATAL(wait_gauge(s, CHIME_NODE_DRAINING, WAIT_MS));
  /* Its running fire goes on; no tick is claimed any more (one claimed
   * before may still be on its way to a worker). */
  chime_test_sleep_ms(300);
  int ticks = atomic_load(&w.ticks);
  chime_test_sleep_ms(800);
  CU_ASSERT_EQUAL(atomic_load(&w.ticks), ticks);
  CU_ASSERT_EQUAL(atomic_load(&w.returned), 0);
  CU_ASSERT_EQUAL(state_of(s, NULL), CHIME_NODE_DRAINING);
  /* It finishes its run, then says it is empty. */
  CU_ASSERT_FATAL(wait_atomic(&w.returned, 1, WAIT_MS));
  CU_ASSERT(wait_gauge(s, CHIME_NODE_DRAINED, WAIT_MS));
  CU_ASSERT_EQUAL(state_of(s, NULL), CHIME_NODE_DRAINED);
  CU_ASSERT_EQUAL(atomic_load(&w.ticks), ticks);
  /* Undrained: it claims again. */
  CU_ASSERT_EQUAL(chime_scheduler_undrain(s, NULL), 0);
  CU_ASSERT_EQUAL(chime_scheduler_undrain(s, NULL), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(state_of(s, NULL), CHIME_NODE_ACTIVE);
  CU_ASSERT(wait_gauge(s, CHIME_NODE_ACTIVE, WAIT_MS));
  CU_ASSERT(wait_atomic(&w.ticks, ticks + 1, WAIT_MS));
  CU_ASSERT_EQUAL(atomic_load(&w.started), 1);
  /* Bad input: the store's only node is this one. */
  CU_ASSERT_EQUAL(chime_scheduler_drain(s, "no-such-node", 0), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_scheduler_drain(s, NULL, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_node_state(s, NULL, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_drain(NULL, NULL, 0), CHIME_EINVAL);
  chime_scheduler_free(s);
}

static void test_drain_timeout_hands_over(void) {
  chime_scheduler *s = solo(60000); /* honours the stop */
  CU_ASSERT_EQUAL(chime_scheduler_drain(s, NULL, 300), 0);
  /* Past the timeout the run is asked to stop, and the node drained. */
  CU_ASSERT(wait_atomic(&w.returned, 1, WAIT_MS));
  CU_ASSERT(wait_gauge(s, CHIME_NODE_DRAINED, WAIT_MS));
  CU_ASSERT_EQUAL(state_of(s, NULL), CHIME_NODE_DRAINED);
  /* Recorded as not run to its end; nothing runs it again. */
  chime_history *h = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, "app", "long", NULL, NULL,
                                                -1, 0, 0, 0, 10, &h),
                        0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 1);
  if (chime_history_get_count(h) == 1)
    CU_ASSERT_EQUAL(chime_history_get_outcome(h, 0), CHIME_OUTCOME_CANCELLED);
  chime_history_free(h);
  chime_test_sleep_ms(500);
  CU_ASSERT_EQUAL(atomic_load(&w.started), 1);
  chime_scheduler_free(s);
}

static CU_TestInfo tests[] = {
    {"a drained node claims nothing, finishes its run, says so; undrained "
     "it claims again",
     test_drain_finishes_runs_then_drained},
    {"past its timeout a draining node hands its run over",
     test_drain_timeout_hands_over},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/drain", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
