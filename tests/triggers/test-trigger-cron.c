/*
 * test-trigger-cron.c: the cron trigger (a cron expression in a zone with
 * start and end) against Quartz's CronTriggerImpl semantics: first fire
 * from one second before the start, the end time inclusive, the final fire
 * time, calendars, and validation.  Expected instants are written out
 * (computed with `TZ=... date -d ... +%s`).
 */
#include "harness.h"
#include "triggers/calendar.h"
#include "triggers/trigger.h"

#include <string.h>

/* Noon in New York, March 2024 (EST until the 10th, then EDT). */
#define NY_MAR01_12 INT64_C(1709312400000)
#define NY_MAR02_12 INT64_C(1709398800000)
#define NY_MAR03_12 INT64_C(1709485200000)
#define NY_MAR05_12 INT64_C(1709658000000)
#define NY_MAR05_13 INT64_C(1709661600000)
#define NY_MAR08_12 INT64_C(1709917200000) /* a Friday */
#define NY_MAR09_12 INT64_C(1710003600000)
#define NY_MAR10_12 INT64_C(1710086400000) /* first day of EDT */
#define NY_MAR11_12 INT64_C(1710172800000) /* Monday */
/* 2024-03-01T00:00:00Z. */
#define UTC_MAR01 INT64_C(1709251200000)
/* Europe/London: 2024-10-27 01:30 BST (first pass), 2024-10-28 01:30 GMT. */
#define LON_OCT27_0130_BST INT64_C(1729989000000)
#define LON_OCT28_0130 INT64_C(1730079000000)
#define UTC_OCT26_12 INT64_C(1729944000000)

static const chime_zone *zone(const char *name) {
  const chime_zone *z = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get(name, &z), 0);
  return z;
}

static chime_cron *cron(const char *expr) {
  chime_cron *c = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_cron_from_string(expr, &c, NULL, NULL, 0), 0);
  return c;
}

static chime_schedule cron_schedule(const chime_cron *c, const char *zname,
                                    int64_t start) {
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_CRON;
  s.start_ms = start;
  s.end_ms = CHIME_END_NONE;
  s.misfire = CHIME_MISFIRE_SMART;
  s.zone = zone(zname);
  s.u.cron.cron = c;
  return s;
}

static void test_trigger_cron_daily_noon_across_dst(void) {
  chime_cron *c = cron("0 0 12 * * ?");
  chime_schedule s = cron_schedule(c, "America/New_York", UTC_MAR01);
  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, NY_MAR01_12);
  static const int64_t want[] = {NY_MAR01_12, NY_MAR02_12, NY_MAR03_12};
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(st.next_fire_ms, want[i]);
    chime__trigger_triggered(&s, &st);
  }
  CU_ASSERT_EQUAL(st.times_triggered, 3);
  CU_ASSERT_EQUAL(st.prev_fire_ms, NY_MAR03_12);
  /* Across the spring-forward: noon EST, then noon EDT 23 hours later. */
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, NY_MAR09_12, &t), 0);
  CU_ASSERT_EQUAL(t, NY_MAR10_12);
  CU_ASSERT_EQUAL(NY_MAR10_12 - NY_MAR09_12, INT64_C(23) * 3600000);
  chime_cron_free(c);
}

static void test_trigger_cron_start_and_end(void) {
  chime_cron *c = cron("0 0 12 * * ?");
  chime_schedule s = cron_schedule(c, "America/New_York", NY_MAR01_12);
  /* The start itself fires (searching from one second before it). */
  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, NY_MAR01_12);
  /* The end time is inclusive for cron triggers. */
  s.end_ms = NY_MAR03_12;
  int n = 0;
  while (chime__trigger_may_fire_again(&st) && n < 10) {
    n++;
    chime__trigger_triggered(&s, &st);
  }
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_EQUAL(st.prev_fire_ms, NY_MAR03_12);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, NY_MAR03_12, &t),
                  CHIME_ENEVERFIRES);
  chime_cron_free(c);
}

static void test_trigger_cron_subsecond_start(void) {
  /* Quartz drops the start's milliseconds (CronTriggerImpl.setStartTime):
   * a start at .500 fires at .000 of the same second, and only once. */
  chime_cron *c = cron("* * * * * ?");
  chime_schedule s = cron_schedule(c, "UTC", UTC_MAR01 + 500);
  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, UTC_MAR01);
  chime__trigger_triggered(&s, &st);
  CU_ASSERT_EQUAL(st.next_fire_ms, UTC_MAR01 + 1000);
  chime_cron_free(c);
}

static void test_trigger_cron_final_fire(void) {
  chime_cron *c = cron("0 0 12 * * ?");
  chime_schedule s = cron_schedule(c, "America/New_York", UTC_MAR01);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, CHIME_NO_FIRE); /* no end */
  s.end_ms = NY_MAR05_13;
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, NY_MAR05_12);
  s.end_ms = NY_MAR05_12; /* inclusive */
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, NY_MAR05_12);
  s.end_ms = NY_MAR01_12 - 1; /* before the first fire */
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, CHIME_NO_FIRE);
  chime_fire_state st;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
  chime_cron_free(c);
}

static void test_trigger_cron_fall_back_passes_through(void) {
  /* The cron layer fires a fixed-hour expression once, in the first pass
   * of the repeated hour; the trigger adds nothing. */
  chime_cron *c = cron("0 30 1 * * ?");
  chime_schedule s = cron_schedule(c, "Europe/London", UTC_OCT26_12);
  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, LON_OCT27_0130_BST);
  chime__trigger_triggered(&s, &st);
  CU_ASSERT_EQUAL(st.next_fire_ms, LON_OCT28_0130);
  chime_cron_free(c);
}

static void test_trigger_cron_calendar(void) {
  chime_cron *c = cron("0 0 12 * * ?");
  chime_schedule s = cron_schedule(c, "America/New_York", NY_MAR08_12);
  chime_calendar_opts o = {.zone = s.zone};
  chime_calendar *weekend = NULL, *never = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_weekly_new(&o, CHIME__CALENDAR_WEEKEND,
                                                   &weekend, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_weekly_new(&o, CHIME__CALENDAR_ALL_WEEK, &never, NULL, 0),
      0);
  s.calendar = weekend;
  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, NY_MAR08_12);
  chime__trigger_triggered(&s, &st);
  CU_ASSERT_EQUAL(st.next_fire_ms, NY_MAR11_12); /* Saturday, Sunday skipped */
  s.calendar = never;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
  chime__calendar_unref(weekend);
  chime__calendar_unref(never);
  chime_cron_free(c);
}

static void test_trigger_cron_validation(void) {
  chime_cron *c = cron("0 0 12 * * ?");
  chime_schedule s = cron_schedule(c, "UTC", UTC_MAR01);
  char err[200];
  CU_ASSERT_EQUAL(chime__schedule_validate(&s, err, sizeof err), 0);
  CU_ASSERT_STRING_EQUAL(err, "");
  s.u.cron.cron = NULL;
  CU_ASSERT_EQUAL(chime__schedule_validate(&s, err, sizeof err), CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs a cron expression"));
  s.u.cron.cron = c;
  s.zone = NULL;
  CU_ASSERT_EQUAL(chime__schedule_validate(&s, err, sizeof err), CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "time zone is required"));
  s.zone = zone("UTC");
  static const chime_misfire bad[] = {
      CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT,
      CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT,
      CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT,
      CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT};
  for (int i = 0; i < 4; i++) {
    s.misfire = bad[i];
    CU_ASSERT_EQUAL(chime__schedule_validate(&s, err, sizeof err),
                    CHIME_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not valid for a cron trigger"));
  }
  chime_cron_free(c);
}

static CU_TestInfo cron_tests[] = {
    {"daily noon across DST", test_trigger_cron_daily_noon_across_dst},
    {"start fires, end is inclusive", test_trigger_cron_start_and_end},
    {"sub-second start", test_trigger_cron_subsecond_start},
    {"final fire time", test_trigger_cron_final_fire},
    {"fall-back hour passes through",
     test_trigger_cron_fall_back_passes_through},
    {"calendar exclusion and bound", test_trigger_cron_calendar},
    {"validation errors", test_trigger_cron_validation},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/trigger-cron", .pTests = cron_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
