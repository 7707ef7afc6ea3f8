/*
 * test-mysql-shutdown.c: issue 13 on the MySQL store (table prefix
 * chime_sd_), two schedulers of one cluster in this process.
 *
 * A node that misses its shutdown deadline (chime_scheduler_shutdown with a
 * deadline returns CHIME_ETIMEDOUT) leaves its running fire to recovery exactly
 * as if it had died: another node recovers it once the lease ran out, and the
 * recovered run carries the fire's data (a fire-now's '"sleep"', as
 * `chimectl fire app.ping --data '"sleep"'` would give it), while the
 * abandoned run, returning later, completes nothing.
 *
 * A graceful stop is not a death (DESIGN.md promise 10): a node stopping
 * with a run longer than its lease keeps checking in, so the other node
 * never runs that fire; past a shutdown deadline the node hands
 * its fire to the cluster at once (not a lease later) and
 * chime_scheduler_free returns without waiting for a job that ignores the
 * cancellation; a job that honours the cancellation is recorded as cut
 * short (REQUEUED or CANCELLED, never OK) and, when it requests recovery,
 * runs again exactly once on the other node.
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 20000

typedef struct seen {
  atomic_int started;
  atomic_int returned;
  atomic_bool recovering;
  atomic_llong scheduled_ms;
  atomic_llong started_at; /* wall ms of the last start */
  char data[64];
  int sleep_ms;
  bool honour; /* returns as soon as it is told to stop */
} seen;

static seen on_a, on_b;

/* Records what the run saw; on node a it ignores cancellation (a hung
 * job) for sleep_ms. */
static void ping(chime_ctx *ctx, void *user_data) {
  seen *w = user_data;
  size_t len = 0;
  const void *data = chime_ctx_get_data(ctx, &len);
  snprintf(w->data, sizeof w->data, "%.*s", (int)len,
           data ? (const char *)data : "");
  atomic_store(&w->recovering, chime_ctx_is_recovering(ctx));
  atomic_store(&w->scheduled_ms, chime_ctx_get_scheduled_ms(ctx));
  atomic_store(&w->started_at, chime_test_wall_ms());
  atomic_fetch_add(&w->started, 1);
  if (w->honour)
    (void)chime_ctx_wait_cancelled(ctx, w->sleep_ms);
  else
    chime_test_sleep_ms(w->sleep_ms);
  atomic_fetch_add(&w->returned, 1);
}

static bool wait_atomic(atomic_int *v, int n, int timeout_ms) {
  for (int64_t end = chime_test_wall_ms() + timeout_ms;
       atomic_load(v) < n && chime_test_wall_ms() < end;)
    chime_test_sleep_ms(10);
  return atomic_load(v) >= n;
}

/* CHIME_TEST_LOG=1 prints the nodes' log lines (debugging). */
static void log_line(void *user_data, chime_log_level level,
                     const char *message) {
  fprintf(stderr, "%lld %s %d %s\n", (long long)chime_test_wall_ms(),
          (const char *)user_data, (int)level, message);
}

static chime_scheduler *node(const char *id, seen *w, bool clear) {
  chime_config *cfg =
      chime_test_mysql_config(clear ? "prefix=chime_sd_&auto_create=1&clear=1"
                                    : "prefix=chime_sd_&auto_create=1",
                              id);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "sd"), 0);
  if (getenv("CHIME_TEST_LOG"))
    chime_config_set_log(cfg, log_line, (void *)id, CHIME_LOG_DEBUG);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "ping", ping, w, NULL), 0);
  return s;
}

static void test_mysql_shutdown_abandoned_fire_recovered_with_data(void) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  on_a.sleep_ms = 2500;
  chime_scheduler *a = node("sd-a", &on_a, true);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "ping", "ping", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_requests_recovery(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_add_job(a, job, false), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(a), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_run_job(a, "app", "ping", "\"sleep\"", 7, NULL), 0);
  CU_ASSERT_FATAL(wait_atomic(&on_a.started, 1, WAIT_MS));
  CU_ASSERT_STRING_EQUAL(on_a.data, "\"sleep\"");
  CU_ASSERT_FALSE(atomic_load(&on_a.recovering));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(a, 100), CHIME_ETIMEDOUT);

  /* Another node of the cluster recovers the fire once a's lease ran out. */
  chime_scheduler *b = node("sd-b", &on_b, false);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(b), 0);
  CU_ASSERT_FATAL(wait_atomic(&on_b.returned, 1, WAIT_MS));
  CU_ASSERT(atomic_load(&on_b.recovering));
  CU_ASSERT_STRING_EQUAL(on_b.data, "\"sleep\"");
  CU_ASSERT_EQUAL(atomic_load(&on_b.scheduled_ms),
                  atomic_load(&on_a.scheduled_ms));
  /* The abandoned run returns; nothing more runs anywhere. */
  CU_ASSERT(wait_atomic(&on_a.returned, 1, WAIT_MS));
  chime_scheduler_free(a);
  chime_test_sleep_ms(1500);
  CU_ASSERT_EQUAL(atomic_load(&on_a.started), 1);
  CU_ASSERT_EQUAL(atomic_load(&on_b.started), 1);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(b, 10000), 0);
  chime_scheduler_free(b);
}

/* The ping job (durable, recovery as asked) on a new cluster whose first
 * node, a, is started and runs one fire-now of it; b is created (not
 * started) beside it. */
static void start_one_run(chime_scheduler **a, chime_scheduler **b,
                          bool recovery) {
  *a = node("sd-a", &on_a, true);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "ping", "ping", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_requests_recovery(job, recovery), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_add_job(*a, job, false), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(*a), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_run_job(*a, "app", "ping", "\"long\"", 6, NULL), 0);
  CU_ASSERT_FATAL(wait_atomic(&on_a.started, 1, WAIT_MS));
  *b = node("sd-b", &on_b, false);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(*b), 0);
}

/* The outcome and message of the newest history row of the ping job run
 * on node. */
static int outcome_on(chime_scheduler *s, const char *node_id, char *msg,
                      size_t len) {
  chime_history *h = NULL;
  int outcome = -1;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, "app", "ping", NULL, NULL,
                                                -1, 0, 0, 0, 100, &h),
                        0);
  for (size_t i = 0; i < chime_history_get_count(h); i++)
    if (strcmp(chime_history_get_node(h, i), node_id) == 0) {
      outcome = (int)chime_history_get_outcome(h, i);
      const char *m = chime_history_get_message(h, i);
      snprintf(msg, len, "%s", m ? m : "");
      break;
    }
  chime_history_free(h);
  return outcome;
}

/* A run longer than the lease (2 s): a graceful stop, plain or within a
 * deadline longer than the run, waits for it while checking in, so b never
 * takes the fire and a's run is recorded OK. */
static void keeps_its_fire(bool within) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  on_a.sleep_ms = 4500; /* over twice the lease */
  chime_scheduler *a, *b;
  start_one_run(&a, &b, true);
  CU_ASSERT_EQUAL(
      within ? chime_scheduler_shutdown(a, 15000)
             : chime_scheduler_shutdown(a, CHIME_SHUTDOWN_WAIT_FOREVER),
      0);
  CU_ASSERT_EQUAL(atomic_load(&on_a.returned), 1);
  chime_scheduler_free(a);
  /* b had every chance: a's lease would have run out twice over. */
  CU_ASSERT_FALSE(wait_atomic(&on_b.started, 1, 3000));
  char msg[256];
  CU_ASSERT_EQUAL(outcome_on(b, "sd-a", msg, sizeof msg), CHIME_OUTCOME_OK);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(b, 10000), 0);
  chime_scheduler_free(b);
}

static void test_mysql_shutdown_graceful_stop_keeps_its_fire(void) {
  keeps_its_fire(false);
}

static void test_mysql_shutdown_deadline_waits_while_checking_in(void) {
  keeps_its_fire(true);
}

/* A job that ignores the cancellation past the deadline: nobody else runs
 * the fire before the deadline, b runs it at once after it (a hand-over,
 * not a lease later), and shutdown + free return within the
 * deadline and the hand-over's margin. */
static void test_mysql_shutdown_deadline_bounds_free_and_hands_over(void) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  on_a.sleep_ms = 6500;
  chime_scheduler *a, *b;
  start_one_run(&a, &b, true);
  int64_t t0 = chime_test_wall_ms();
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(a, 3000), CHIME_ETIMEDOUT);
  chime_scheduler_free(a);
  int64_t took = chime_test_wall_ms() - t0;
  CU_ASSERT(took >= 2900);
  CU_ASSERT(took < 3000 + 1500);
  if (took >= 3000 + 1500)
    fprintf(stderr, "shutdown(3000) + free took %lld ms\n", (long long)took);
  CU_ASSERT_EQUAL(atomic_load(&on_a.returned), 0); /* still running */
  CU_ASSERT_FATAL(wait_atomic(&on_b.started, 1, WAIT_MS));
  int64_t b_after = atomic_load(&on_b.started_at) - t0;
  CU_ASSERT(b_after >= 2900);       /* not while a kept its fire */
  CU_ASSERT(b_after < 3000 + 1900); /* handed over, not a lease later */
  if (b_after < 2900 || b_after >= 3000 + 1900)
    fprintf(stderr, "b started the fire %lld ms after the shutdown began\n",
            (long long)b_after);
  CU_ASSERT(atomic_load(&on_b.recovering));
  /* a's job returns in the end; its completion is not written. */
  CU_ASSERT(wait_atomic(&on_a.returned, 1, WAIT_MS));
  CU_ASSERT(wait_atomic(&on_b.returned, 1, WAIT_MS));
  char msg[256];
  CU_ASSERT_EQUAL(outcome_on(b, "sd-a", msg, sizeof msg),
                  CHIME_OUTCOME_REQUEUED);
  CU_ASSERT_EQUAL(atomic_load(&on_b.started), 1);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(b, 10000), 0);
  chime_scheduler_free(b);
}

/* A job that returns when told to stop was cut short: never recorded OK;
 * with recovery it runs again exactly once on b, without it is recorded
 * CANCELLED and not run again. */
static void cut_short(bool recovery) {
  memset(&on_a, 0, sizeof on_a);
  memset(&on_b, 0, sizeof on_b);
  on_a.sleep_ms = 20000;
  on_a.honour = true;
  chime_scheduler *a, *b;
  start_one_run(&a, &b, recovery);
  int64_t t0 = chime_test_wall_ms();
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(a, 10000), 0);
  chime_scheduler_free(a);
  CU_ASSERT(chime_test_wall_ms() - t0 < 5000);
  CU_ASSERT_EQUAL(atomic_load(&on_a.returned), 1);
  char msg[256] = "";
  if (recovery) {
    CU_ASSERT_FATAL(wait_atomic(&on_b.returned, 1, WAIT_MS));
    CU_ASSERT(atomic_load(&on_b.recovering));
    CU_ASSERT_STRING_EQUAL(on_b.data, "\"long\"");
    CU_ASSERT_EQUAL(outcome_on(b, "sd-a", msg, sizeof msg),
                    CHIME_OUTCOME_REQUEUED);
  } else {
    CU_ASSERT_EQUAL(outcome_on(b, "sd-a", msg, sizeof msg),
                    CHIME_OUTCOME_CANCELLED);
  }
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cut short"));
  /* Nothing more anywhere. */
  CU_ASSERT_FALSE(wait_atomic(&on_b.started, recovery ? 2 : 1, 2500));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(b, 10000), 0);
  chime_scheduler_free(b);
}

static void test_mysql_shutdown_cut_run_requeued_once(void) {
  cut_short(true);
}

static void test_mysql_shutdown_cut_run_recorded_cancelled(void) {
  cut_short(false);
}

static CU_TestInfo tests[] = {
    {"a graceful stop keeps its fire while its run goes on",
     test_mysql_shutdown_graceful_stop_keeps_its_fire},
    {"a shutdown deadline keeps checking in while it waits",
     test_mysql_shutdown_deadline_waits_while_checking_in},
    {"the deadline bounds shutdown and free; the fire is handed over",
     test_mysql_shutdown_deadline_bounds_free_and_hands_over},
    {"a run cut short by shutdown runs again once elsewhere",
     test_mysql_shutdown_cut_run_requeued_once},
    {"a run cut short without recovery is recorded CANCELLED",
     test_mysql_shutdown_cut_run_recorded_cancelled},
    {"an abandoned fire is recovered elsewhere, with its data",
     test_mysql_shutdown_abandoned_fire_recovered_with_data},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-shutdown", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
