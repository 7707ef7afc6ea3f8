/*
 * test-mysql-restart.c: a MariaDB restart while a scheduler runs on the
 * MySQL store (table prefix chime_mr_) is survived with no lost and no
 * doubled fire: a trigger fires every 200 ms (misfire IGNORE, so a late
 * fire still runs as scheduled) while `$CHIME_DEV db-restart` restarts the
 * shared server; afterwards every scheduled time from the first to the
 * last ran exactly once.  It restarts the server that the other
 * MariaDB-backed tests use, so it is registered as a 'cluster' test, which
 * meson runs alone.  CHIME_DEV is set by ./dev test (by hand:
 * CHIME_DEV=/work/main/dev).
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INTERVAL_MS 200
#define MAX_RUNS 1024

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int nruns;
static int64_t sched[MAX_RUNS];

static void record(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&mu);
  if (nruns < MAX_RUNS)
    sched[nruns] = chime_ctx_get_scheduled_ms(ctx);
  nruns++;
  pthread_mutex_unlock(&mu);
}

static int runs(void) {
  pthread_mutex_lock(&mu);
  int n = nruns;
  pthread_mutex_unlock(&mu);
  return n;
}

static int compare(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static chime_scheduler *start(void) {
  chime_config *cfg = chime_test_mysql_config(
      "prefix=chime_mr_&auto_create=1&clear=1", "restart-node");
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "record", record, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  return s;
}

static void test_mysql_restart_loses_and_doubles_nothing(void) {
  chime_test_need_dev();
  chime_scheduler *s = start();
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "tick", "record", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", "tick", INTERVAL_MS,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "tick"), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_set_start_ms(t, chime_test_wall_ms() + 300), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_misfire(t, CHIME_MISFIRE_IGNORE), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  chime_test_sleep_ms(1500);
  CU_ASSERT(runs() >= 3);
  CU_ASSERT_EQUAL(chime_test_dev_run("db-restart"), 0);
  int before = runs();
  /* Fires resume once the store reconnected. */
  for (int64_t end = chime_test_wall_ms() + 30000;
       chime_test_wall_ms() < end && runs() < before + 10;)
    chime_test_sleep_ms(50);
  CU_ASSERT(runs() >= before + 10);
  chime_scheduler_free(s);
  pthread_mutex_lock(&mu);
  int n = nruns < MAX_RUNS ? nruns : MAX_RUNS;
  qsort(sched, (size_t)n, sizeof sched[0], compare);
  int doubled = 0, lost = 0;
  for (int i = 1; i < n; i++) {
    doubled += sched[i] == sched[i - 1];
    if (sched[i] > sched[i - 1])
      lost += (int)((sched[i] - sched[i - 1]) / INTERVAL_MS) - 1;
  }
  pthread_mutex_unlock(&mu);
  if (doubled || lost)
    fprintf(stderr, "%d runs: %d doubled, %d lost\n", n, doubled, lost);
  CU_ASSERT_EQUAL(doubled, 0);
  CU_ASSERT_EQUAL(lost, 0);
}

static CU_TestInfo tests[] = {
    {"a MariaDB restart loses and doubles no fire",
     test_mysql_restart_loses_and_doubles_nothing},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-restart", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
