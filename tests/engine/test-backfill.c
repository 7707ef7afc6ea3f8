/*
 * test-backfill.c: a backfill's throttle and its cancel (issue 23), on the
 * memory store and, built with CHIME_TEST_MYSQL, on the throwaway MariaDB
 * (engine/backfill and engine/backfill-mysql: the same tests on both).
 *
 * A paced backfill of five past fires stores them released one pace apart;
 * the fires run no earlier than their release, each reporting its
 * original scheduled time; a cancel after the first two removes the rest,
 * which never run.  Waits are on a condition with a wide deadline; the one
 * wait for something that must not happen (the cancelled fires) lasts
 * past their release times.
 */
#include "chime.h"
#include "harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 30000
#define PACE_MS 400
#define FIRES 5
#define MINUTE INT64_C(60000)

/* The runs of the "bf" job: scheduled time, start, backfill flag. */
typedef struct runs {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n;
  int64_t scheduled[FIRES * 2], started[FIRES * 2];
  bool backfill[FIRES * 2];
} runs;

static void bf_job(chime_ctx *ctx, void *user_data) {
  runs *r = user_data;
  pthread_mutex_lock(&r->mu);
  if (r->n < FIRES * 2) {
    r->scheduled[r->n] = chime_ctx_get_scheduled_ms(ctx);
    r->started[r->n] = chime_test_wall_ms();
    r->backfill[r->n] = chime_ctx_is_backfill(ctx);
    r->n++;
  }
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

/* Waits until n runs were recorded or deadline_ms (wall) passed. */
static int wait_runs(runs *r, int n, int64_t deadline_ms) {
  pthread_mutex_lock(&r->mu);
  while (r->n < n && chime_test_wall_ms() < deadline_ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000000;
    if (ts.tv_nsec >= 1000000000)
      ts.tv_sec++, ts.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&r->cv, &r->mu, &ts);
  }
  int got = r->n;
  pthread_mutex_unlock(&r->mu);
  return got;
}

static char store_url[2048] = "memory:";

/* A scheduler with the "bf" job and a minutely cron trigger g.minutely
 * that never fires by itself during the test (it starts in 2100). */
static chime_scheduler *make(runs *r) {
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, store_url), 0);
  CU_ASSERT_EQUAL(chime_config_set_workers(cfg, 4), 0);
  CU_ASSERT_EQUAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  chime_scheduler *s = NULL;
  char err[256] = "";
  int rc = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_EQUAL(chime_scheduler_register_job_type(s, "bf", bf_job, r, NULL),
                  0);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "bf", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("g", "minutely", "0 * * * * ?",
                                               "UTC", &t, err, sizeof err),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_start_ms(t, INT64_C(4102444800000)), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  return s;
}

/* The release times of the stored backfill fires, sorted; how many. */
static size_t releases(chime_scheduler *s, int64_t *out, size_t max) {
  chime_key *keys = NULL;
  size_t n = 0, k = 0;
  CU_ASSERT_EQUAL(chime_scheduler_list_triggers(
                      s, CHIME_MATCH_EQUALS, CHIME_BACKFILL_GROUP, &keys, &n),
                  0);
  for (size_t i = 0; i < n && k < max; i++) {
    chime_trigger *t = NULL;
    if (chime_scheduler_get_trigger(s, keys[i].group, keys[i].name, &t) == 0)
      out[k++] = chime_trigger_get_next_fire_ms(t);
    chime_trigger_free(t);
  }
  if (keys != NULL)
    chime_key_free_array(keys, n);
  for (size_t i = 1; i < k; i++) /* insertion sort: a handful */
    for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
      int64_t x = out[j];
      out[j] = out[j - 1], out[j - 1] = x;
    }
  return k;
}

static void test_backfill_paced_then_cancelled(void) {
  runs r = {.n = 0};
  pthread_mutex_init(&r.mu, NULL);
  pthread_cond_init(&r.cv, NULL);
  chime_scheduler *s = make(&r);
  int64_t now = chime_test_wall_ms(), top = now - now % MINUTE;
  int64_t first = top - FIRES * MINUTE, last = top - MINUTE;
  size_t created = 0;
  CU_ASSERT_EQUAL(chime_scheduler_backfill(s, "g", "minutely", first, last, 100,
                                           -1, &created),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_backfill(s, "g", "minutely", first, last, 100,
                                           CHIME_BACKFILL_MAX_PACE_MS + 1,
                                           &created),
                  CHIME_EINVAL);
  int64_t asked = chime_test_wall_ms();
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_backfill(s, "g", "minutely", first,
                                                 last, 100, PACE_MS, &created),
                        0);
  CU_ASSERT_EQUAL(created, FIRES);
  /* Stored one pace apart, the first at once. */
  int64_t rel[FIRES];
  CU_ASSERT_EQUAL_FATAL(releases(s, rel, FIRES), FIRES);
  CU_ASSERT(rel[0] >= asked && rel[0] <= chime_test_wall_ms());
  for (int i = 1; i < FIRES; i++)
    CU_ASSERT_EQUAL(rel[i] - rel[i - 1], PACE_MS);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(wait_runs(&r, 2, chime_test_wall_ms() + WAIT_MS), 2);
  /* The first two done (their one-shot triggers gone). */
  int64_t left[FIRES], deadline = chime_test_wall_ms() + WAIT_MS;
  while (releases(s, left, FIRES) > FIRES - 2 &&
         chime_test_wall_ms() < deadline) {
    struct timespec ts = {0, 10 * 1000000};
    nanosleep(&ts, NULL);
  }
  size_t removed = 0;
  CU_ASSERT_EQUAL(chime_scheduler_backfill_cancel(s, "g", "minutely", &removed),
                  0);
  /* The third may have been released meanwhile on a loaded machine; what
   * was not released is removed and never runs. */
  int ran = wait_runs(&r, FIRES, rel[FIRES - 1] + 2 * PACE_MS);
  CU_ASSERT((size_t)ran + removed == FIRES);
  CU_ASSERT(removed >= 1);
  CU_ASSERT_EQUAL(releases(s, left, FIRES), 0);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  /* In order, each no earlier than its release, with its own time. */
  for (int i = 0; i < ran; i++) {
    CU_ASSERT(r.backfill[i]);
    CU_ASSERT_EQUAL(r.scheduled[i], first + i * MINUTE);
    CU_ASSERT(r.started[i] >= rel[i] - 5); /* clock read granularity */
  }
  chime_scheduler_free(s);
  pthread_cond_destroy(&r.cv);
  pthread_mutex_destroy(&r.mu);
}

/* Without a pace the fires are released at their own (past) times. */
static void test_backfill_unpaced_keeps_times(void) {
  runs r = {.n = 0};
  pthread_mutex_init(&r.mu, NULL);
  pthread_cond_init(&r.cv, NULL);
  chime_scheduler *s = make(&r);
  int64_t now = chime_test_wall_ms(), top = now - now % MINUTE;
  size_t created = 0;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_backfill(s, "g", "minutely",
                                                 top - 3 * MINUTE, top - MINUTE,
                                                 100, 0, &created),
                        0);
  CU_ASSERT_EQUAL(created, 3);
  int64_t rel[3];
  CU_ASSERT_EQUAL_FATAL(releases(s, rel, 3), 3);
  for (int i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(rel[i], top - (3 - i) * MINUTE);
  size_t removed = 0;
  CU_ASSERT_EQUAL(chime_scheduler_backfill_cancel(s, "g", "minutely", &removed),
                  0);
  CU_ASSERT_EQUAL(removed, 3);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  pthread_cond_destroy(&r.cv);
  pthread_mutex_destroy(&r.mu);
}

static CU_TestInfo backfill_tests[] = {
    {"paced: one fire per pace, cancel stops the rest",
     test_backfill_paced_then_cancelled},
    {"unpaced: released at their own times, cancelled",
     test_backfill_unpaced_keeps_times},
    CU_TEST_INFO_NULL,
};

#ifdef CHIME_TEST_MYSQL
static int init_url(void) {
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_bf_");
}

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/backfill-mysql",
       .pInitFunc = init_url,
       .pTests = backfill_tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
#else
int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/backfill", .pTests = backfill_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
#endif
