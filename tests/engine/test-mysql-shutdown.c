/*
 * test-mysql-shutdown.c: issue 13 on the MySQL store (table prefix
 * chime_sd_), two schedulers of one cluster in this process.
 *
 * A node that misses its shutdown deadline (chime_scheduler_shutdown_within
 * returns CHIME_ETIMEDOUT) leaves its running fire to recovery exactly as
 * if it had died: another node recovers it once the lease ran out, and the
 * recovered run carries the fire's data (a fire-now's '"sleep"', as
 * `chimectl fire app.ping --data '"sleep"'` would give it), while the
 * abandoned run, returning later, completes nothing.
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
  char data[64];
  int sleep_ms;
} seen;

static seen on_a = {.sleep_ms = 2500}, on_b;

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

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
  atomic_fetch_add(&w->started, 1);
  sleep_ms(w->sleep_ms);
  atomic_fetch_add(&w->returned, 1);
}

static bool wait_atomic(atomic_int *v, int n, int timeout_ms) {
  for (int64_t end = wall_ms() + timeout_ms;
       atomic_load(v) < n && wall_ms() < end;)
    sleep_ms(10);
  return atomic_load(v) >= n;
}

static chime_scheduler *node(const char *id, seen *w, bool clear) {
  chime_config *cfg =
      chime_test_mysql_config(clear ? "prefix=chime_sd_&auto_create=1&clear=1"
                                    : "prefix=chime_sd_&auto_create=1",
                              id);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "sd"), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "ping", ping, w, NULL), 0);
  return s;
}

static void test_mysql_shutdown_abandoned_fire_recovered_with_data(void) {
  chime_scheduler *a = node("sd-a", &on_a, true);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("app", "ping", "ping", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_requests_recovery(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_add_job(a, job, false), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(a), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_trigger_job(a, "app", "ping", "\"sleep\"", 7), 0);
  CU_ASSERT_FATAL(wait_atomic(&on_a.started, 1, WAIT_MS));
  CU_ASSERT_STRING_EQUAL(on_a.data, "\"sleep\"");
  CU_ASSERT_FALSE(atomic_load(&on_a.recovering));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown_within(a, 100), CHIME_ETIMEDOUT);

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
  sleep_ms(1500);
  CU_ASSERT_EQUAL(atomic_load(&on_a.started), 1);
  CU_ASSERT_EQUAL(atomic_load(&on_b.started), 1);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown_within(b, 10000), 0);
  chime_scheduler_free(b);
}

static CU_TestInfo tests[] = {
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
