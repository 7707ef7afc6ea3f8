/*
 * test-soak-judge.c: the soak's rule for "grows" (bench/chime-bench/
 * soak-judge.c, issue 34): a bounded metric that swings passes however
 * wide its swing, a metric that keeps growing fails, the slack and the
 * samples a metric has no value for are honoured, a series too short to
 * judge is not judged.
 */
#include "bench/chime-bench/bench.h"
#include "harness.h"

#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define X BENCH_NO_SAMPLE

static bool grows(const int64_t *v, size_t n, int64_t slack, char *why,
                  size_t len) {
  bench_series s = {.v = v, .n = n};
  return bench_judge_grows(&s, slack, why, len);
}

static void test_growth_fails(void) {
  /* The history of a cluster whose trim falls behind: every sample of
   * the last third above every one of the middle third. */
  static const int64_t v[] = {10, 50, 90, 130, 170, 210, 250, 290, 330};
  char why[256];
  CU_ASSERT_TRUE(grows(v, N(v), 30, why, sizeof why));
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "130..210 in the middle third"));
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "250..330 in the last"));
  /* Not by more than the slack. */
  CU_ASSERT_FALSE(grows(v, N(v), 40, why, sizeof why));
}

static void test_a_swing_passes(void) {
  /* A table trimmed now and then: wide swings, no trend; one sample far
   * above the rest (a kill's minute) changes nothing. */
  static const int64_t v[] = {0, 500, 900, 400, 1000, 450, 950, 420, 990, 5000};
  char why[256];
  CU_ASSERT_FALSE(grows(v, N(v), 0, why, sizeof why));
  /* A flat metric does not grow, even with no slack. */
  static const int64_t flat[] = {69, 69, 69, 69, 69, 69};
  CU_ASSERT_FALSE(grows(flat, N(flat), 0, why, sizeof why));
}

static void test_the_first_third_is_not_judged(void) {
  /* Filling up in the first third, then settled. */
  static const int64_t v[] = {0, 1000, 5000, 5000, 5010, 5005};
  char why[256];
  CU_ASSERT_FALSE(grows(v, N(v), 100, why, sizeof why));
}

static void test_missing_samples(void) {
  char why[256];
  /* A process started in the middle third, warm only in the last. */
  static const int64_t late[] = {X, X, X, X, 9000, 9100};
  CU_ASSERT_FALSE(grows(late, N(late), 0, why, sizeof why));
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "not judged"));
  /* Gaps are skipped: 9000..9100 then 20000. */
  static const int64_t gaps[] = {X, X, 9000, X, X, 20000};
  CU_ASSERT_TRUE(grows(gaps, N(gaps), 4096, why, sizeof why));
  /* Fewer than three samples: no thirds. */
  static const int64_t two[] = {1, 1000};
  CU_ASSERT_FALSE(grows(two, N(two), 0, why, sizeof why));
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "not judged"));
}

static void test_median(void) {
  static const int64_t v[] = {5, X, 1, 9, 3};
  CU_ASSERT_EQUAL(bench_median(v, 0, N(v)), 3);
  CU_ASSERT_EQUAL(bench_median(v, 2, 4), 1);
  CU_ASSERT_EQUAL(bench_median(v, 1, 2), 0);
}

static CU_TestInfo tests[] = {
    {"a metric still growing in the last third fails", test_growth_fails},
    {"a bounded metric that swings passes", test_a_swing_passes},
    {"the first third is the warm-up", test_the_first_third_is_not_judged},
    {"missing samples and short series", test_missing_samples},
    {"the median skips missing samples", test_median},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "bench/soak-judge", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
