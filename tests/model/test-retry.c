/*
 * test-retry.c: a job's retry policy (chime_job_set_retry and its getters)
 * and the back-off it implies (chime__retry_delay_ms).
 */
#include "chime.h"
#include "harness.h"
#include "model/records.h"

#include <math.h>

static chime_job *new_job(void) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "x", &job, NULL, 0), 0);
  return job;
}

static void test_retry_setter_and_getters(void) {
  chime_job *job = new_job();
  CU_ASSERT_EQUAL(chime_job_get_retry_max_attempts(job), 0);
  CU_ASSERT_DOUBLE_EQUAL(chime_job_get_retry_multiplier(job), 1.0, 1e-9);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 5, 100, 2.0, 1000, 50), 0);
  CU_ASSERT_EQUAL(chime_job_get_retry_max_attempts(job), 5);
  CU_ASSERT_EQUAL(chime_job_get_retry_initial_delay_ms(job), 100);
  CU_ASSERT_DOUBLE_EQUAL(chime_job_get_retry_multiplier(job), 2.0, 1e-9);
  CU_ASSERT_EQUAL(chime_job_get_retry_max_delay_ms(job), 1000);
  CU_ASSERT_EQUAL(chime_job_get_retry_jitter_ms(job), 50);
  /* Out of range: refused, the job unchanged. */
  CU_ASSERT_EQUAL(chime_job_set_retry(job, -1, 0, 1.0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_job_set_retry(job, CHIME_MAX_RETRY_ATTEMPTS + 1, 0, 1.0, 0, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 2, -1, 1.0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 2, 0, 0.5, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 2, 0, NAN, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 2, 0, INFINITY, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 2, 0, 1.0, -1, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 2, 0, 1.0, 0, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_job_set_retry(job, 2, CHIME_MAX_TIMEOUT_MS + 1, 1.0, 0, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_get_retry_max_attempts(job), 5);
  CU_ASSERT_EQUAL(chime_job_set_retry(NULL, 1, 0, 1.0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_get_retry_max_attempts(NULL), 0);
  CU_ASSERT_EQUAL(chime_job_get_retry_initial_delay_ms(NULL), 0);
  CU_ASSERT_DOUBLE_EQUAL(chime_job_get_retry_multiplier(NULL), 1.0, 1e-9);
  CU_ASSERT_EQUAL(chime_job_get_retry_max_delay_ms(NULL), 0);
  CU_ASSERT_EQUAL(chime_job_get_retry_jitter_ms(NULL), 0);
  /* Copies keep it. */
  chime_job *c = chime__job_copy(job);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_EQUAL(chime_job_get_retry_jitter_ms(c), 50);
  CU_ASSERT_EQUAL(chime__job_check(c), 0);
  chime_job_free(c);
  chime_job_free(job);
}

static void test_retry_back_off(void) {
  chime_job *job = new_job();
  /* No policy: no retry. */
  CU_ASSERT_FALSE(chime__retry_wanted(job, 1));
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 4, 100, 2.0, 300, 0), 0);
  CU_ASSERT_TRUE(chime__retry_wanted(job, 1));
  CU_ASSERT_TRUE(chime__retry_wanted(job, 3));
  CU_ASSERT_FALSE(chime__retry_wanted(job, 4)); /* the last attempt */
  CU_ASSERT_FALSE(chime__retry_wanted(job, 0));
  CU_ASSERT_EQUAL(chime__retry_delay_ms(job, 1, 7), 100);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(job, 2, 7), 200);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(job, 3, 7), 300); /* capped */
  CU_ASSERT_EQUAL(chime__retry_delay_ms(job, 900, 7), 300);
  /* A constant delay, and no cap: grows to the longest delay at most. */
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 9, 250, 1.0, 0, 0), 0);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(job, 8, 1), 250);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 999, 1000, 1000.0, 0, 0), 0);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(job, 998, 1), CHIME_MAX_TIMEOUT_MS);
  /* Jitter: in [0, J), the same for the same seed. */
  CU_ASSERT_EQUAL(chime_job_set_retry(job, 3, 100, 1.5, 0, 40), 0);
  for (uint64_t seed = 0; seed < 200; seed++) {
    int64_t d = chime__retry_delay_ms(job, 2, seed);
    CU_ASSERT_TRUE(d >= 150 && d < 190);
    CU_ASSERT_EQUAL(d, chime__retry_delay_ms(job, 2, seed));
  }
  chime_job_free(job);
}

static CU_TestInfo retry_tests[] = {
    {"retry policy setter, getters, limits", test_retry_setter_and_getters},
    {"back-off: growth, cap, jitter", test_retry_back_off},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "model/retry", .pTests = retry_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
