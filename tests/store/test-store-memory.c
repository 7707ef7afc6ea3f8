/*
 * test-store-memory.c: the store conformance suite against the memory
 * store, and opening stores by URL (mysql:// URLs are the MySQL runner's).
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/memory/memory.h"
#include "jobstore/store.h"
#include "store/store-conformance.h"

#include <stdlib.h>
#include <string.h>

static void test_store_memory_open_urls(void) {
  static const struct {
    const char *url;
    int code;
    int line;
  } rows[] = {
      {"memory:", 0, __LINE__},
      {"memory:x", CHIME_EURL, __LINE__},
      {"postgres://localhost/db", CHIME_EURL, __LINE__},
      {"", CHIME_EURL, __LINE__},
  };
  chime_store_options o = {.misfire_threshold_ms = 60000};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_store *st = NULL;
    char err[256] = "";
    int r = chime__store_open(rows[i].url, &o, &st, err, sizeof err);
    CU_ASSERT_EQUAL(r, rows[i].code);
    if (r == 0) {
      CU_ASSERT_PTR_NOT_NULL_FATAL(st);
      CU_ASSERT_STRING_EQUAL(st->ops->name, "memory");
      st->ops->free(st);
    } else {
      CU_ASSERT(strlen(err) > 0);
    }
  }
  chime_store *st = NULL;
  CU_ASSERT_EQUAL(chime__store_open(NULL, &o, &st, NULL, 0), CHIME_EINVAL);
}

static void test_store_memory_clock_offset(void) {
  chime_store_options plain = {.misfire_threshold_ms = 60000};
  chime_store_options skewed = plain;
  skewed.test_clock_offset_ms = INT64_C(3600000);
  chime_store *a = NULL, *b = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__memory_store_open(&plain, &a), 0);
  CU_ASSERT_EQUAL_FATAL(chime__memory_store_open(&skewed, &b), 0);
  int64_t d = b->ops->now(b) - a->ops->now(a);
  CU_ASSERT(d >= INT64_C(3600000) - 1000 && d <= INT64_C(3600000) + 1000);
  a->ops->free(a);
  b->ops->free(b);
}

static void test_store_memory_type_set(void) {
  static const char *const names[] = {"alpha", "beta", "gamma"};
  chime_type_set set = {names, 3};
  chime_type_set empty = {names, 0};
  CU_ASSERT_TRUE(chime__type_set_has(&set, "alpha"));
  CU_ASSERT_TRUE(chime__type_set_has(&set, "gamma"));
  CU_ASSERT_FALSE(chime__type_set_has(&set, "delta"));
  CU_ASSERT_FALSE(chime__type_set_has(&empty, "alpha"));
  CU_ASSERT_TRUE(chime__type_set_has(NULL, "anything"));
}

/* A job that becomes FORBID while two of its triggers are claimed runs
 * only one of them (the other claim is lost when the first fires). */
static void test_store_memory_job_becomes_forbid(void) {
  chime_store_options o = {.misfire_threshold_ms = 60000};
  chime_store *st = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime__memory_store_open(&o, &st), 0);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  const int64_t t0 = INT64_C(1893456000000);
  static const char *const names[] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    chime_trigger *t = NULL;
    CU_ASSERT_EQUAL_FATAL(
        chime_trigger_simple_new("tg", names[i], 0, 0, &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, t0), 0);
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
  }
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->acquire(st, t0, t0, 10, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_EQUAL_FATAL(
      chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, true), 0);
  chime_job_free(job);
  CU_ASSERT_EQUAL(st->ops->fire(st, fires, n, t0), 0);
  CU_ASSERT_EQUAL(fires[0]->result, 0);
  CU_ASSERT_NOT_EQUAL(fires[1]->result, 0);
  chime_trigger_status status;
  CU_ASSERT_EQUAL(st->ops->trigger_status(st, "tg", "b", &status), 0);
  CU_ASSERT_EQUAL(status, CHIME_TRIGGER_BLOCKED);
  chime_run_result out = {.started_ms = t0, .finished_ms = t0};
  CU_ASSERT_EQUAL(st->ops->complete(st, fires[0], &out), 0);
  CU_ASSERT_EQUAL(st->ops->trigger_status(st, "tg", "b", &status), 0);
  CU_ASSERT_EQUAL(status, CHIME_TRIGGER_NORMAL);
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
  st->ops->free(st);
}

/* Issue 34: a lease name whose lease ran out a day ago is dropped by the
 * check-in's sweep (the map stays bounded by the names in use), one held
 * or recent stays, and the dropped name's next token is still greater. */
static void test_store_memory_leases_swept(void) {
  chime_store_options o = {.misfire_threshold_ms = 60000};
  chime_store *st = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__memory_store_open(&o, &st), 0);
  mem_store *s = (mem_store *)st;
  chime_lease_info old, held, again;
  CU_ASSERT_EQUAL_FATAL(st->ops->lease_acquire(st, "old", 1000, 0, &old), 0);
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "old", old.token), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->lease_acquire(st, "held",
                                               10 * CHIME__MEM_LEASE_KEEP_MS, 0,
                                               &held),
                        0);
  int64_t now = st->ops->now(st);
  chime__mem_lock(s);
  CU_ASSERT_EQUAL(chime__mem_leases_sweep(s, now), 0);
  CU_ASSERT_EQUAL(
      chime__mem_leases_sweep(s, now + CHIME__MEM_LEASE_KEEP_MS + 2000), 1);
  CU_ASSERT_EQUAL(s->leases.count, 1);
  chime__mem_unlock(s);
  /* A real sweep comes a day later: here the clock has only to move on
   * (the next token starts from it). */
  while (st->ops->now(st) <= old.acquired_ms) {
  }
  CU_ASSERT_EQUAL(st->ops->lease_acquire(st, "old", 1000, 0, &again), 0);
  CU_ASSERT(again.token > old.token);
  /* The check-in sweeps (its first at once): nothing is due here. */
  CU_ASSERT_EQUAL(st->ops->checkin(st, now, NULL), 0);
  CU_ASSERT_EQUAL(s->leases.count, 2);
  st->ops->free(st);
}

static CU_TestInfo open_tests[] = {
    {"lease names no longer used are swept (issue 34)",
     test_store_memory_leases_swept},
    {"open by URL", test_store_memory_open_urls},
    {"test clock offset", test_store_memory_clock_offset},
    {"job type sets", test_store_memory_type_set},
    {"a job becoming FORBID loses extra claims",
     test_store_memory_job_becomes_forbid},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "store/memory",
       .pTests = chime_store_conformance_tests("memory:")},
      {.pName = "store/open", .pTests = open_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
