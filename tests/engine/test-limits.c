/*
 * test-limits.c: the limits of job types through running schedulers
 * (engine/limits.c, the loop's wait for a limit; docs/queue.md,
 * "Limits"), in real time: chime_scheduler_set_limit, _get_limit and
 * _clear_limit with their errors; a concurrency limit of 2 never exceeded
 * by 12 runs on nodes with 4 workers each, every run done; a rate limit of
 * 20 a second spreading 24 starts over more than a second; the
 * per-partition half (_set_partition_limit, _get_partition_limit) and a
 * rate of 20 a second per tenant, the tenant read from each run's data.
 *
 * The same source builds two runners (tests/meson.build): engine/limits on
 * the memory store (one node) and, with CHIME_TEST_MYSQL,
 * engine/limits-mysql on the throwaway MariaDB (tables prefixed
 * chime_el_), where two nodes of this process share the limit.
 *
 * Timing: every wait is on a condition variable with a wide deadline
 * (WAIT_MS); the only timing assertion is a lower bound (the rate).
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifdef CHIME_TEST_MYSQL
#include <mysql.h>
#define NODES 2
#else
#define NODES 1
#endif

#define WAIT_MS 30000

static char store_url[2048] = "memory:";

/* What the runs saw, across the nodes of this process. */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int active, most, done;
  int64_t first_ms, last_ms; /* the first and last start */
} S;

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void reset(void) {
  pthread_mutex_lock(&S.mu);
  S.active = S.most = S.done = 0;
  S.first_ms = S.last_ms = 0;
  pthread_mutex_unlock(&S.mu);
}

/* Runs for 30 ms, counting how many run at once. */
static void limited_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  int64_t now = mono_ms();
  if (!S.first_ms)
    S.first_ms = now;
  S.last_ms = now;
  if (++S.active > S.most)
    S.most = S.active;
  pthread_mutex_unlock(&S.mu);
  struct timespec d = {0, 30 * 1000000L};
  nanosleep(&d, NULL);
  pthread_mutex_lock(&S.mu);
  S.active--;
  S.done++;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
}

static bool wait_done(int n) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&S.mu);
  while (S.done < n)
    if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) == ETIMEDOUT)
      break;
  bool ok = S.done >= n;
  pthread_mutex_unlock(&S.mu);
  return ok;
}

static chime_scheduler *node(int i) {
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, store_url), 0);
  CU_ASSERT_EQUAL(chime_config_set_workers(cfg, 4), 0);
  CU_ASSERT_EQUAL(chime_config_set_checkin_interval_ms(cfg, 500), 0);
  char id[32];
  snprintf(id, sizeof id, "limits-%d", i);
  CU_ASSERT_EQUAL(chime_config_set_instance_id(cfg, id), 0);
  chime_scheduler *s = NULL;
  char err[256] = "";
  int r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r != 0)
    fprintf(stderr, "chime_scheduler_new: %s\n", err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "limited", limited_job, NULL, NULL),
      0);
  return s;
}

/* Starts NODES nodes, the first of which stores job g.j. */
static void start(chime_scheduler **ns) {
  for (int i = 0; i < NODES; i++)
    ns[i] = node(i);
  chime_job *j = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "limited", &j, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(j, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_add_job(ns[0], j, true), 0);
  chime_job_free(j);
}

static void stop(chime_scheduler **ns) {
  for (int i = 0; i < NODES; i++) {
    chime_scheduler_shutdown(ns[i], CHIME_SHUTDOWN_WAIT_FOREVER);
    chime_scheduler_free(ns[i]);
  }
}

static void test_limits_api(void) {
  chime_scheduler *ns[NODES];
  start(ns);
  chime_scheduler *s = ns[0];
  int max = -1, per = -1, rate = -1;
  int64_t period = -1;
  CU_ASSERT_EQUAL(
      chime_scheduler_get_limit(s, "limited", &max, &per, &rate, &period),
      CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(NULL, "limited", 1, 0, 0, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(s, NULL, 1, 0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(s, "", 1, 0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(s, "limited", -1, 0, 0, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(s, "limited", 0, 0, 0, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(s, "limited", 0, 0, 5, 0),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_scheduler_errmsg(s), "count and"));
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(s, "limited", 3, 1, 5, 1000), 0);
  CU_ASSERT_EQUAL(
      chime_scheduler_get_limit(s, "limited", &max, &per, &rate, &period), 0);
  CU_ASSERT_EQUAL(max, 3);
  CU_ASSERT_EQUAL(per, 1);
  CU_ASSERT_EQUAL(rate, 5);
  CU_ASSERT_EQUAL(period, 1000);
  /* Another node reads the same limit: it is the store's. */
  CU_ASSERT_EQUAL(chime_scheduler_get_limit(ns[NODES - 1], "limited", NULL,
                                            NULL, NULL, NULL),
                  0);
  CU_ASSERT_EQUAL(chime_scheduler_clear_limit(s, "limited"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_clear_limit(s, "limited"), CHIME_ENOTFOUND);
  stop(ns);
}

/* The per-partition half: set apart from the type's figures, read back. */
static void test_limits_partition_api(void) {
  chime_scheduler *ns[NODES];
  start(ns);
  chime_scheduler *s = ns[0];
  char field[CHIME_MAX_NAME_LEN + 1] = "x", small[4];
  int max = -1, per = -1, rate = -1;
  int64_t period = -1;
  CU_ASSERT_EQUAL(chime_scheduler_get_partition_limit(
                      s, "limited", field, sizeof field, &per, &rate, &period),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(
      chime_scheduler_set_partition_limit(NULL, "limited", NULL, 1, 0, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_set_partition_limit(s, "limited", "", 1, 0, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_set_partition_limit(s, "limited", NULL, 0, 5, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_set_partition_limit(s, "limited", NULL, -1, 0, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(s, "limited", 3, 0, 50, 1000), 0);
  CU_ASSERT_EQUAL(
      chime_scheduler_set_partition_limit(s, "limited", "tenant", 1, 5, 1000),
      0);
  CU_ASSERT_EQUAL(chime_scheduler_get_partition_limit(
                      s, "limited", field, sizeof field, &per, &rate, &period),
                  0);
  CU_ASSERT_STRING_EQUAL(field, "tenant");
  CU_ASSERT_EQUAL(per, 1);
  CU_ASSERT_EQUAL(rate, 5);
  CU_ASSERT_EQUAL(period, 1000);
  CU_ASSERT_EQUAL(chime_scheduler_get_partition_limit(
                      s, "limited", small, sizeof small, NULL, NULL, NULL),
                  CHIME_ELIMIT);
  /* The type's own figures stayed, max_per_partition is the shared one. */
  CU_ASSERT_EQUAL(
      chime_scheduler_get_limit(s, "limited", &max, &per, &rate, &period), 0);
  CU_ASSERT_EQUAL(max, 3);
  CU_ASSERT_EQUAL(per, 1);
  CU_ASSERT_EQUAL(rate, 50);
  CU_ASSERT_EQUAL(chime_scheduler_clear_limit(s, "limited"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_get_partition_limit(
                      ns[NODES - 1], "limited", NULL, 0, NULL, NULL, NULL),
                  CHIME_ENOTFOUND);
  stop(ns);
}

static void test_limits_running(void) {
  reset();
  chime_scheduler *ns[NODES];
  start(ns);
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(ns[0], "limited", 2, 0, 0, 0), 0);
  for (int i = 0; i < NODES; i++)
    CU_ASSERT_EQUAL(chime_scheduler_start(ns[i]), 0);
  for (int i = 0; i < 12; i++)
    CU_ASSERT_EQUAL(
        chime_scheduler_run_job(ns[i % NODES], "g", "j", NULL, 0, NULL), 0);
  CU_ASSERT(wait_done(12));
  CU_ASSERT(S.most >= 1 && S.most <= 2);
  stop(ns);
}

static void test_limits_rate(void) {
  reset();
  chime_scheduler *ns[NODES];
  start(ns);
  /* 20 a second: one start every 50 ms (a burst of two). */
  CU_ASSERT_EQUAL(chime_scheduler_set_limit(ns[0], "limited", 0, 0, 20, 1000),
                  0);
  for (int i = 0; i < NODES; i++)
    CU_ASSERT_EQUAL(chime_scheduler_start(ns[i]), 0);
  for (int i = 0; i < 24; i++)
    CU_ASSERT_EQUAL(
        chime_scheduler_run_job(ns[i % NODES], "g", "j", NULL, 0, NULL), 0);
  CU_ASSERT(wait_done(24));
  /* 24 starts with a burst of two: at least 21 intervals of 50 ms. */
  CU_ASSERT(S.last_ms - S.first_ms >= 21 * 50 - 20);
  stop(ns);
}

/* A rate per partition key, the key taken from the runs' data as they are
 * handed in (chime_scheduler_run_job) on every node. */
static void test_limits_partition_rate(void) {
  reset();
  chime_scheduler *ns[NODES];
  start(ns);
  /* 20 a second per tenant: one start every 50 ms (a burst of two). */
  CU_ASSERT_EQUAL(chime_scheduler_set_partition_limit(ns[0], "limited",
                                                      "tenant", 0, 20, 1000),
                  0);
  for (int i = 0; i < NODES; i++)
    CU_ASSERT_EQUAL(chime_scheduler_start(ns[i]), 0);
  for (int i = 0; i < 24; i++) {
    const char *data = i % 2 ? "{\"tenant\":\"a\"}" : "{\"tenant\":\"b\"}";
    CU_ASSERT_EQUAL(chime_scheduler_run_job(ns[i % NODES], "g", "j", data,
                                            strlen(data), NULL),
                    0);
  }
  CU_ASSERT(wait_done(24));
  /* 12 starts of each tenant with a burst of two: at least 9 intervals. */
  CU_ASSERT(S.last_ms - S.first_ms >= 9 * 50 - 20);
  stop(ns);
}

static CU_TestInfo tests[] = {
    {"set, get and clear a limit; bad figures refused", test_limits_api},
    {"a concurrency limit of 2 across the nodes", test_limits_running},
    {"a rate limit spreads the starts", test_limits_rate},
    {"the per-partition half: set, get, errors", test_limits_partition_api},
    {"a rate per partition key taken from the runs' data",
     test_limits_partition_rate},
    CU_TEST_INFO_NULL,
};

static int init(void) {
  pthread_mutex_init(&S.mu, NULL);
  pthread_cond_init(&S.cv, NULL);
#ifdef CHIME_TEST_MYSQL
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_el_");
#else
  return 0;
#endif
}

int main(void) {
  CU_SuiteInfo suites[] = {
#ifdef CHIME_TEST_MYSQL
      {.pName = "engine/limits-mysql", .pInitFunc = init, .pTests = tests},
#else
      {.pName = "engine/limits", .pInitFunc = init, .pTests = tests},
#endif
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
#ifdef CHIME_TEST_MYSQL
  mysql_library_end();
#endif
  return r;
}
