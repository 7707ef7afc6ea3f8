/*
 * test-trigger-simple.c: the simple trigger (start, interval, repeat
 * count, end) against Quartz's SimpleTriggerImpl semantics, the shared
 * trigger model (first fire, triggered, final fire), calendar exclusion
 * with its search bound, and schedule validation.  Expected instants are
 * written out (computed with `date -u -d ... +%s`).
 */
#include "harness.h"
#include "trigger-corpus.h"
#include "triggers/calendar.h"
#include "triggers/trigger.h"

#include <stdio.h>
#include <string.h>

/* An assertion that reports the table row's line. */
#define ROW_ASSERT(cond, line)                                                 \
  CU_assertImplementation((cond), (unsigned)(line), #cond, __FILE__, "",       \
                          CU_FALSE)

#define MIN_MS INT64_C(60000)
#define HOUR_MS INT64_C(3600000)
/* 2024-01-01T00:00:00Z, a Monday. */
#define T_2024 INT64_C(1704067200000)
/* 2024-01-05T22:00:00Z, a Friday, and 2024-01-08T00:00:00Z, the Monday. */
#define T_FRI_22 INT64_C(1704492000000)
#define T_MON_00 INT64_C(1704672000000)
/* 2024-01-06T10:00:00Z, a Saturday. */
#define T_SAT_10 INT64_C(1704535200000)

static chime_schedule simple(int64_t start, int64_t interval, int32_t repeat) {
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_SIMPLE;
  s.start_ms = start;
  s.end_ms = CHIME_END_NONE;
  s.misfire = CHIME_MISFIRE_SMART;
  s.u.simple.interval_ms = interval;
  s.u.simple.repeat_count = repeat;
  return s;
}

static void test_trigger_simple_repeat_count(void) {
  chime_schedule s = simple(T_2024, MIN_MS, 3);
  int64_t f[10];
  int n = chime_test_trigger_fires(&s, f, 10);
  CU_ASSERT_EQUAL_FATAL(n, 4); /* 1 + repeat count */
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(f[i], T_2024 + i * MIN_MS);

  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.prev_fire_ms, CHIME_NO_FIRE);
  CU_ASSERT_EQUAL(st.times_triggered, 0);
  for (int i = 0; i < 4; i++)
    chime__trigger_triggered(&s, &st);
  CU_ASSERT_EQUAL(st.times_triggered, 4);
  CU_ASSERT_EQUAL(st.prev_fire_ms, T_2024 + 3 * MIN_MS);
  CU_ASSERT_EQUAL(st.next_fire_ms, CHIME_NO_FIRE);
  CU_ASSERT_FALSE(chime__trigger_may_fire_again(&st));
}

static void test_trigger_simple_indefinitely(void) {
  chime_schedule s = simple(T_2024, 15 * MIN_MS, CHIME_REPEAT_INDEFINITELY);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_2024 + 20 * MIN_MS, &t),
                  0);
  CU_ASSERT_EQUAL(t, T_2024 + 30 * MIN_MS);
  /* Strictly after: a fire time itself gives the next one. */
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_2024 + 30 * MIN_MS, &t),
                  0);
  CU_ASSERT_EQUAL(t, T_2024 + 45 * MIN_MS);
  /* Ten years on, still firing on the grid: 2034-01-01T00:00:00Z. */
  CU_ASSERT_EQUAL(
      chime__trigger_fire_after(&s, NULL, INT64_C(2019686400000) - 1, &t), 0);
  CU_ASSERT_EQUAL(t, INT64_C(2019686400000));
  /* Before the start: the start. */
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_2024 - HOUR_MS, &t), 0);
  CU_ASSERT_EQUAL(t, T_2024);
}

static void test_trigger_simple_end_is_exclusive(void) {
  chime_schedule s = simple(T_2024, HOUR_MS, CHIME_REPEAT_INDEFINITELY);
  s.end_ms = T_2024 + 3 * HOUR_MS;
  int64_t f[10];
  int n = chime_test_trigger_fires(&s, f, 10);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT_EQUAL(f[2], T_2024 + 2 * HOUR_MS);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_2024 + 2 * HOUR_MS, &t),
                  CHIME_ENEVERFIRES);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, s.end_ms, &t),
                  CHIME_ENEVERFIRES);
}

static void test_trigger_simple_one_shot(void) {
  /* Repeat count 0 may have interval 0 (Quartz's default one-shot). */
  chime_schedule s = simple(T_2024, 0, 0);
  CU_ASSERT_EQUAL(chime__schedule_validate(&s, NULL, 0), 0);
  int64_t f[4];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 4), 1);
  CU_ASSERT_EQUAL(f[0], T_2024);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_2024 - 1, &t), 0);
  CU_ASSERT_EQUAL(t, T_2024);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_2024, &t),
                  CHIME_ENEVERFIRES);
}

static void test_trigger_simple_final_fire(void) {
  static const struct {
    int line;
    int64_t interval;
    int32_t repeat;
    int64_t end;
    int64_t want;
  } rows[] = {
      {__LINE__, MIN_MS, 3, CHIME_END_NONE, T_2024 + 3 * MIN_MS},
      {__LINE__, MIN_MS, 0, CHIME_END_NONE, T_2024},
      {__LINE__, MIN_MS, CHIME_REPEAT_INDEFINITELY, CHIME_END_NONE,
       CHIME_NO_FIRE},
      {__LINE__, HOUR_MS, CHIME_REPEAT_INDEFINITELY,
       T_2024 + 3 * HOUR_MS + 30 * MIN_MS, T_2024 + 3 * HOUR_MS},
      /* The repeats run past the end: the last grid time at or before it
       * (Quartz's getFireTimeBefore). */
      {__LINE__, MIN_MS, 10, T_2024 + 5 * MIN_MS + 1, T_2024 + 5 * MIN_MS},
      {__LINE__, MIN_MS, 10, T_2024 + 20 * MIN_MS, T_2024 + 10 * MIN_MS},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_schedule s = simple(T_2024, rows[i].interval, rows[i].repeat);
    s.end_ms = rows[i].end;
    int64_t t = 42;
    CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
    ROW_ASSERT(t == rows[i].want, rows[i].line);
  }
}

static chime_calendar *weekly(unsigned mask) {
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_weekly_new(NULL, mask, &cal, NULL, 0),
                        0);
  return cal;
}

static void test_trigger_simple_calendar_skips_excluded(void) {
  chime_calendar *weekend = weekly(CHIME__CALENDAR_WEEKEND);
  chime_schedule s = simple(T_FRI_22, HOUR_MS, CHIME_REPEAT_INDEFINITELY);
  s.calendar = weekend;
  int64_t f[3];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 3), 3);
  CU_ASSERT_EQUAL(f[0], T_FRI_22);
  CU_ASSERT_EQUAL(f[1], T_FRI_22 + HOUR_MS);
  CU_ASSERT_EQUAL(f[2], T_MON_00); /* the weekend is skipped */

  /* A start on Saturday: the first fire is Monday 00:00. */
  s.start_ms = T_SAT_10;
  chime_fire_state st;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, T_MON_00);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_SAT_10, &t), 0);
  CU_ASSERT_EQUAL(t, T_MON_00);
  chime__calendar_unref(weekend);
}

static void test_trigger_simple_calendar_excluding_all_is_bounded(void) {
  chime_calendar *never = weekly(CHIME__CALENDAR_ALL_WEEK);
  static const int64_t intervals[] = {1000, HOUR_MS, 24 * HOUR_MS};
  for (size_t i = 0; i < 3; i++) {
    chime_schedule s = simple(T_2024, intervals[i], CHIME_REPEAT_INDEFINITELY);
    s.calendar = never;
    chime_fire_state st;
    int64_t t;
    CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
    CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, T_2024, &t),
                    CHIME_ENEVERFIRES);
  }
  chime__calendar_unref(never);

  /* Included instants exist (23:59:59.999 each day) but no fire is one:
   * the search meets the 100-year bound instead of the calendar's. */
  chime_calendar *day = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_daily_new(NULL, 0, 86399998, false, &day, NULL, 0), 0);
  chime_schedule s = simple(T_2024, 1000, CHIME_REPEAT_INDEFINITELY);
  s.calendar = day;
  chime_fire_state st;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
  chime__calendar_unref(day);
}

static void test_trigger_simple_triggered_with_excluding_calendar(void) {
  /* A trigger whose remaining fires are all excluded finishes. */
  chime_calendar *weekend = weekly(CHIME__CALENDAR_WEEKEND);
  chime_schedule s = simple(T_FRI_22, HOUR_MS, 5); /* Fri 22:00 .. Sat 03:00 */
  s.calendar = weekend;
  int64_t f[10];
  CU_ASSERT_EQUAL(chime_test_trigger_fires(&s, f, 10), 2);
  chime__calendar_unref(weekend);
}

static void expect_invalid(const chime_schedule *s, int code,
                           const char *words) {
  char err[256];
  CU_ASSERT_EQUAL(chime__schedule_validate(s, err, sizeof err), code);
  if (strstr(err, words) == NULL)
    fprintf(stderr, "\nerrbuf \"%s\" lacks \"%s\"\n", err, words);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, words));
  chime_fire_state st;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(s, &st), CHIME_EINVAL);
}

static void test_trigger_simple_validation(void) {
  chime_schedule s = simple(T_2024, MIN_MS, 3);
  CU_ASSERT_EQUAL(chime__schedule_validate(&s, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime__schedule_validate(NULL, NULL, 0), CHIME_EINVAL);

  s.end_ms = T_2024 - 1;
  expect_invalid(&s, CHIME_EINVAL, "end time is before start time");
  s = simple(T_2024, 0, 2);
  expect_invalid(&s, CHIME_EINVAL, "at least 1 ms");
  s = simple(T_2024, -5, 0);
  expect_invalid(&s, CHIME_EINVAL, "negative");
  s = simple(T_2024, MIN_MS, -2);
  expect_invalid(&s, CHIME_EINVAL, "repeat count -2");
  s = simple(T_2024, INT64_MAX / 2, 1);
  expect_invalid(&s, CHIME_ELIMIT, "exceeds the limit");
  s = simple(T_2024, MIN_MS, 3);
  s.misfire = CHIME_MISFIRE_DO_NOTHING;
  expect_invalid(&s, CHIME_EINVAL, "not valid for a simple trigger");
  s = simple(T_2024, MIN_MS, 3);
  s.misfire = (chime_misfire)99;
  expect_invalid(&s, CHIME_EINVAL, "misfire instruction 99");
  s = simple(INT64_C(-70000000000000), MIN_MS, 3);
  expect_invalid(&s, CHIME_ELIMIT, "outside years 1-9999");
  s = simple(T_2024, MIN_MS, 3);
  s.end_ms = INT64_C(300000000000000);
  expect_invalid(&s, CHIME_ELIMIT, "end time");
  s.kind = (chime_trigger_kind)9;
  s.end_ms = CHIME_END_NONE;
  expect_invalid(&s, CHIME_EINVAL, "unknown trigger kind 9");

  /* A tiny errbuf is truncated but terminated. */
  char small[8];
  s = simple(T_2024, 0, 2);
  CU_ASSERT_EQUAL(chime__schedule_validate(&s, small, sizeof small),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
}

static void test_trigger_simple_far_after_is_safe(void) {
  chime_schedule s = simple(T_2024, 1, CHIME_REPEAT_INDEFINITELY);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, INT64_MAX - 1, &t),
                  CHIME_ENEVERFIRES);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, INT64_MIN, &t), 0);
  CU_ASSERT_EQUAL(t, T_2024);
  CU_ASSERT_EQUAL(
      chime__trigger_fire_after(&s, NULL, CHIME__TRIGGER_MAX_MS, &t),
      CHIME_ENEVERFIRES);
}

static CU_TestInfo simple_tests[] = {
    {"repeat count fires 1 + count times", test_trigger_simple_repeat_count},
    {"repeats indefinitely on the grid", test_trigger_simple_indefinitely},
    {"end time is exclusive", test_trigger_simple_end_is_exclusive},
    {"one-shot trigger", test_trigger_simple_one_shot},
    {"final fire time", test_trigger_simple_final_fire},
    {"calendar skips excluded times",
     test_trigger_simple_calendar_skips_excluded},
    {"all-excluding calendar is bounded",
     test_trigger_simple_calendar_excluding_all_is_bounded},
    {"excluded remaining fires finish the trigger",
     test_trigger_simple_triggered_with_excluding_calendar},
    {"validation errors", test_trigger_simple_validation},
    {"extreme after times", test_trigger_simple_far_after_is_safe},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/trigger-simple", .pTests = simple_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
