/*
 * test-retry.c: the retry policy object (chime_retry), a job's
 * (chime_job_set_retry, chime_job_get_retry) and an enqueued run's
 * (chime_enqueue_set_retry, the run's trigger and its retry carrying it),
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
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(job)), 1);
  CU_ASSERT_DOUBLE_EQUAL(chime_retry_get_multiplier(chime_job_get_retry(job)),
                         1.0, 1e-9);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 5, 100, 2.0, 1000, 50), 0);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(job)), 5);
  CU_ASSERT_EQUAL(chime_retry_get_initial_delay_ms(chime_job_get_retry(job)),
                  100);
  CU_ASSERT_DOUBLE_EQUAL(chime_retry_get_multiplier(chime_job_get_retry(job)),
                         2.0, 1e-9);
  CU_ASSERT_EQUAL(chime_retry_get_max_delay_ms(chime_job_get_retry(job)), 1000);
  CU_ASSERT_EQUAL(chime_retry_get_jitter_ms(chime_job_get_retry(job)), 50);
  /* Out of range: refused, the job unchanged. */
  CU_ASSERT_EQUAL(chime_test_set_retry(job, -1, 0, 1.0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_test_set_retry(job, CHIME_MAX_RETRY_ATTEMPTS + 1, 0, 1.0, 0, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, -1, 1.0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, 0, 0.5, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, 0, NAN, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, 0, INFINITY, 0, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, 0, 1.0, -1, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, 0, 1.0, 0, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_test_set_retry(job, 2, CHIME_MAX_TIMEOUT_MS + 1, 1.0, 0, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(job)), 5);
  CU_ASSERT_EQUAL(chime_test_set_retry(NULL, 1, 0, 1.0, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(NULL)), 0);
  CU_ASSERT_EQUAL(chime_retry_get_initial_delay_ms(chime_job_get_retry(NULL)),
                  0);
  CU_ASSERT_DOUBLE_EQUAL(chime_retry_get_multiplier(chime_job_get_retry(NULL)),
                         1.0, 1e-9);
  CU_ASSERT_EQUAL(chime_retry_get_max_delay_ms(chime_job_get_retry(NULL)), 0);
  CU_ASSERT_EQUAL(chime_retry_get_jitter_ms(chime_job_get_retry(NULL)), 0);
  /* Copies keep it. */
  chime_job *c = chime__job_copy(job);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_EQUAL(chime_retry_get_jitter_ms(chime_job_get_retry(c)), 50);
  CU_ASSERT_EQUAL(chime__job_check(c), 0);
  chime_job_free(c);
  chime_job_free(job);
}

static void test_retry_back_off(void) {
  chime_job *job = new_job();
  /* No policy: no retry. */
  CU_ASSERT_FALSE(chime__retry_wanted(chime_job_get_retry(job), 1));
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 4, 100, 2.0, 300, 0), 0);
  CU_ASSERT_TRUE(chime__retry_wanted(chime_job_get_retry(job), 1));
  CU_ASSERT_TRUE(chime__retry_wanted(chime_job_get_retry(job), 3));
  CU_ASSERT_FALSE(
      chime__retry_wanted(chime_job_get_retry(job), 4)); /* the last attempt */
  CU_ASSERT_FALSE(chime__retry_wanted(chime_job_get_retry(job), 0));
  CU_ASSERT_EQUAL(chime__retry_delay_ms(chime_job_get_retry(job), 1, 7), 100);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(chime_job_get_retry(job), 2, 7), 200);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(chime_job_get_retry(job), 3, 7),
                  300); /* capped */
  CU_ASSERT_EQUAL(chime__retry_delay_ms(chime_job_get_retry(job), 900, 7), 300);
  /* A constant delay, and no cap: grows to the longest delay at most. */
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 9, 250, 1.0, 0, 0), 0);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(chime_job_get_retry(job), 8, 1), 250);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 999, 1000, 1000.0, 0, 0), 0);
  CU_ASSERT_EQUAL(chime__retry_delay_ms(chime_job_get_retry(job), 998, 1),
                  CHIME_MAX_TIMEOUT_MS);
  /* Jitter: in [0, J), the same for the same seed. */
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 3, 100, 1.5, 0, 40), 0);
  for (uint64_t seed = 0; seed < 200; seed++) {
    int64_t d = chime__retry_delay_ms(chime_job_get_retry(job), 2, seed);
    CU_ASSERT_TRUE(d >= 150 && d < 190);
    CU_ASSERT_EQUAL(d,
                    chime__retry_delay_ms(chime_job_get_retry(job), 2, seed));
  }
  chime_job_free(job);
}

/* The object: defaults, refusals, copied by whoever takes it; NULL
 * resets a job's; a run's own policy is its trigger's and its retry's. */
static void test_retry_object(void) {
  chime_retry *p = NULL;
  CU_ASSERT_EQUAL(chime_retry_new(NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL_FATAL(chime_retry_new(&p), 0);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(p), 1);
  CU_ASSERT_TRUE(chime_retry_get_timed_out(p));
  CU_ASSERT_EQUAL(chime_retry_set_max_attempts(NULL, 2), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_retry_set_jitter_ms(NULL, 2), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_retry_set_timed_out(NULL, false), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_retry_set_multiplier(p, 0.9), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_retry_set_max_attempts(p, 3), 0);
  CU_ASSERT_EQUAL(chime_retry_set_initial_delay_ms(p, 700), 0);
  CU_ASSERT_EQUAL(chime_retry_set_timed_out(p, false), 0);
  chime_job *job = new_job();
  CU_ASSERT_EQUAL(chime_job_set_retry(NULL, p), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, p), 0);
  CU_ASSERT_EQUAL(chime_retry_set_max_attempts(p, 9), 0); /* copied */
  const chime_retry *jp = chime_job_get_retry(job);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(jp), 3);
  CU_ASSERT_EQUAL(chime_retry_get_initial_delay_ms(jp), 700);
  CU_ASSERT_FALSE(chime_retry_get_timed_out(jp));
  /* An enqueued run's own: on its trigger, then on its retry. */
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_PTR_NULL(chime_enqueue_get_retry(o));
  CU_ASSERT_EQUAL(chime_enqueue_set_retry(NULL, p), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_set_retry(o, p), 0);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_enqueue_get_retry(o)), 9);
  CU_ASSERT_EQUAL(chime_enqueue_set_unique_key(o, "k"), 0);
  chime_trigger *t = NULL, *rt = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__enqueue_trigger("g", "j", o, 1, &t, NULL, 0), 0);
  CU_ASSERT_PTR_EQUAL(chime__run_retry(job, t), &t->retry);
  CU_ASSERT_EQUAL(t->retry.max_attempts, 9);
  CU_ASSERT_EQUAL_FATAL(chime__trigger_retry_new(t, 42, 1, 5, 6, &rt), 0);
  CU_ASSERT_EQUAL(rt->retry.max_attempts, 9);
  CU_ASSERT_STRING_EQUAL(rt->group, CHIME_QUEUE_GROUP); /* keyed: itself */
  CU_ASSERT_STRING_EQUAL(rt->name, "K_k");
  chime_trigger_free(rt);
  chime_trigger_free(t);
  /* 0 attempts: this run is not retried, whatever its job says. */
  CU_ASSERT_EQUAL(chime_retry_set_max_attempts(p, 0), 0);
  CU_ASSERT_EQUAL(chime_enqueue_set_retry(o, p), 0);
  CU_ASSERT_EQUAL_FATAL(chime__enqueue_trigger("g", "j", o, 1, &t, NULL, 0), 0);
  CU_ASSERT_FALSE(chime__retry_wanted(chime__run_retry(job, t), 1));
  chime_trigger_free(t);
  /* NULL: the job's again. */
  CU_ASSERT_EQUAL(chime_enqueue_set_retry(o, NULL), 0);
  CU_ASSERT_PTR_NULL(chime_enqueue_get_retry(o));
  CU_ASSERT_EQUAL_FATAL(chime__enqueue_trigger("g", "j", o, 1, &t, NULL, 0), 0);
  CU_ASSERT_PTR_EQUAL(chime__run_retry(job, t), jp);
  chime_trigger_free(t);
  chime_enqueue_free(o);
  CU_ASSERT_EQUAL(chime_job_set_retry(job, NULL), 0); /* none */
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(job)), 1);
  CU_ASSERT_TRUE(chime_retry_get_timed_out(chime_job_get_retry(job)));
  chime_job_free(job);
  chime_retry_free(p);
  chime_retry_free(NULL);
}

static CU_TestInfo retry_tests[] = {
    {"retry policy object, a job's and a run's", test_retry_object},
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
