/*
 * test-trigger-calint.c: the calendar-interval trigger against Quartz's
 * CalendarIntervalTriggerImpl and the java.util.GregorianCalendar
 * arithmetic it is defined by: DST in America/New_York and Europe/London
 * with and without preserve-hour-of-day and skip-day, month-end clamping,
 * the leap Quartz takes for long day intervals, final fire times,
 * calendars and validation.
 *
 * Expected instants are written out (`TZ=... date -d ... +%s`).  Where the
 * result follows from Java's Calendar.add rather than from the wall clock,
 * the comment derives it: add(DAY_OF_YEAR, 1) keeps the wall-clock time,
 * subtracts the old UTC offset, then corrects by the offset change unless
 * the correction changes the date; a spring-forward gap time therefore
 * lands one hour EARLIER (02:30 -> 01:30 standard time), while set() and
 * add(MONTH) move a gap time one hour LATER (02:30 -> 03:30 daylight time).
 */
#include "harness.h"
#include "trigger-corpus.h"
#include "triggers/calendar.h"
#include "triggers/trigger.h"

#include <string.h>

#define ROW_ASSERT(cond, line)                                                 \
  CU_assertImplementation((cond), (unsigned)(line), #cond, __FILE__, "",       \
                          CU_FALSE)

static chime_schedule calint(const char *zname, int64_t start, int32_t n,
                             chime_interval_unit unit) {
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_CALENDAR_INTERVAL;
  s.start_ms = start;
  s.end_ms = CHIME_END_NONE;
  s.misfire = CHIME_MISFIRE_SMART;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get(zname, &s.zone), 0);
  s.u.calint.interval = n;
  s.u.calint.unit = unit;
  return s;
}

/* Checks the first fires of s, one by one through triggered(). */
static void expect_fires(const chime_schedule *s, const int64_t *want, int n,
                         int line) {
  chime_fire_state st;
  int rc = chime__trigger_first_fire(s, &st);
  ROW_ASSERT(rc == 0, line);
  for (int i = 0; rc == 0 && i < n; i++) {
    ROW_ASSERT(st.next_fire_ms == want[i], line);
    chime__trigger_triggered(s, &st);
  }
}

/* America/New_York, spring forward 2024-03-10 02:00 EST -> 03:00 EDT. */
#define NY_MAR08_0230 INT64_C(1709883000000)
#define NY_MAR09_0230 INT64_C(1709969400000)
#define UTC_MAR10_0630 INT64_C(1710052200000) /* 01:30 EST */
#define UTC_MAR10_0730 INT64_C(1710055800000) /* 03:30 EDT */
#define UTC_MAR11_0530 INT64_C(1710135000000) /* 01:30 EDT */
#define UTC_MAR12_0530 INT64_C(1710221400000) /* 01:30 EDT */
#define NY_MAR11_0230 INT64_C(1710138600000)
#define NY_MAR12_0230 INT64_C(1710225000000)

static void test_trigger_calint_ny_spring_daily(void) {
  /* Without preserve: Mar 9 02:30 EST + 1 day = Mar 10 02:30 - (-5h) =
   * 07:30Z, where the offset is -4h; corrected by -1h: 06:30Z = 01:30 EST,
   * still Mar 10, so kept.  Later steps start from 01:30 and keep it. */
  chime_schedule s =
      calint("America/New_York", NY_MAR08_0230, 1, CHIME_UNIT_DAY);
  const int64_t plain[] = {NY_MAR08_0230, NY_MAR09_0230, UTC_MAR10_0630,
                           UTC_MAR11_0530, UTC_MAR12_0530};
  expect_fires(&s, plain, 5, __LINE__);

  /* Preserve, no skip: 01:30 has the wrong hour, so 02:30 is set, which
   * the gap moves to 03:30 EDT; from Mar 11 the hour 2 exists again. */
  s.u.calint.preserve_hour_of_day = true;
  const int64_t keep[] = {NY_MAR08_0230, NY_MAR09_0230, UTC_MAR10_0730,
                          NY_MAR11_0230, NY_MAR12_0230};
  expect_fires(&s, keep, 5, __LINE__);

  /* Preserve and skip: the day without 02:30 is skipped. */
  s.u.calint.skip_day_if_hour_missing = true;
  const int64_t skip[] = {NY_MAR08_0230, NY_MAR09_0230, NY_MAR11_0230,
                          NY_MAR12_0230};
  expect_fires(&s, skip, 4, __LINE__);
}

#define NY_APR16_0230 INT64_C(1713249000000)
#define UTC_APR15_1200 INT64_C(1713182400000)

static void test_trigger_calint_long_day_interval_leaps(void) {
  /* 38 days after the start Quartz leaps 30 days (80 %) in one add, which
   * lands on Apr 7 02:30 EDT, then steps: the hour lost on Mar 10 (see
   * above) comes back, as in Quartz. */
  chime_schedule s =
      calint("America/New_York", NY_MAR08_0230, 1, CHIME_UNIT_DAY);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, UTC_APR15_1200, &t), 0);
  CU_ASSERT_EQUAL(t, NY_APR16_0230);
  /* Daily from 2020-01-01 09:00 London: a leap over 54 DST changes still
   * lands on 09:00 BST on 2024-07-02. */
  s = calint("Europe/London", INT64_C(1577869200000), 1, CHIME_UNIT_DAY);
  CU_ASSERT_EQUAL(
      chime__trigger_fire_after(&s, NULL, INT64_C(1719835200000), &t), 0);
  CU_ASSERT_EQUAL(t, INT64_C(1719907200000));
}

/* America/New_York, fall back 2024-11-03 02:00 EDT -> 01:00 EST. */
#define NY_NOV01_0130 INT64_C(1730439000000)
#define UTC_NOV02_0530 INT64_C(1730525400000) /* 01:30 EDT */
#define UTC_NOV03_0530 INT64_C(1730611800000) /* 01:30 EDT, first pass */
#define UTC_NOV04_0630 INT64_C(1730701800000) /* 01:30 EST */
#define UTC_NOV03_0400 INT64_C(1730606400000) /* 00:00 EDT */

static void test_trigger_calint_ny_fall_back(void) {
  /* Adding a day to Nov 2 01:30 EDT keeps the offset: the first pass. */
  chime_schedule s =
      calint("America/New_York", NY_NOV01_0130, 1, CHIME_UNIT_DAY);
  const int64_t daily[] = {NY_NOV01_0130, UTC_NOV02_0530, UTC_NOV03_0530,
                           UTC_NOV04_0630};
  expect_fires(&s, daily, 4, __LINE__);
  s.u.calint.preserve_hour_of_day = true; /* the hour never changes */
  expect_fires(&s, daily, 4, __LINE__);

  /* Hours are exact durations: 01:00 fires twice (EDT, then EST). */
  s = calint("America/New_York", UTC_NOV03_0400, 1, CHIME_UNIT_HOUR);
  const int64_t hourly[] = {UTC_NOV03_0400, UTC_NOV03_0400 + 3600000,
                            UTC_NOV03_0400 + 7200000,
                            UTC_NOV03_0400 + 10800000};
  expect_fires(&s, hourly, 4, __LINE__);
}

/* Europe/London, spring forward 2024-03-31 01:00 GMT -> 02:00 BST. */
#define LON_MAR29_0130 INT64_C(1711675800000)
#define UTC_MAR30_0130 INT64_C(1711762200000)
#define UTC_MAR31_0030 INT64_C(1711845000000) /* 00:30 GMT */
#define UTC_MAR31_0130 INT64_C(1711848600000) /* 02:30 BST */
#define UTC_MAR31_2330 INT64_C(1711927800000) /* Apr 1 00:30 BST */
#define UTC_APR01_0030 INT64_C(1711931400000) /* Apr 1 01:30 BST */

static void test_trigger_calint_london_spring(void) {
  chime_schedule s = calint("Europe/London", LON_MAR29_0130, 1, CHIME_UNIT_DAY);
  const int64_t plain[] = {LON_MAR29_0130, UTC_MAR30_0130, UTC_MAR31_0030,
                           UTC_MAR31_2330};
  expect_fires(&s, plain, 4, __LINE__);
  s.u.calint.preserve_hour_of_day = true;
  const int64_t keep[] = {LON_MAR29_0130, UTC_MAR30_0130, UTC_MAR31_0130,
                          UTC_APR01_0030};
  expect_fires(&s, keep, 4, __LINE__);
  s.u.calint.skip_day_if_hour_missing = true;
  const int64_t skip[] = {LON_MAR29_0130, UTC_MAR30_0130, UTC_APR01_0030};
  expect_fires(&s, skip, 3, __LINE__);
}

static void test_trigger_calint_london_fall_back(void) {
  /* 2024-10-27 02:00 BST -> 01:00 GMT: Oct 27 01:30 is the first pass
   * (00:30Z), Oct 28 01:30 GMT is 01:30Z. */
  chime_schedule s =
      calint("Europe/London", INT64_C(1729816200000), 1, CHIME_UNIT_DAY);
  const int64_t want[] = {INT64_C(1729816200000), INT64_C(1729902600000),
                          INT64_C(1729989000000), INT64_C(1730079000000)};
  expect_fires(&s, want, 4, __LINE__);
}

static void test_trigger_calint_weeks_across_dst(void) {
  /* Every 2 weeks from Mon 2024-01-01 09:00 GMT: Apr 8 is 09:00 BST. */
  chime_schedule s =
      calint("Europe/London", INT64_C(1704099600000), 2, CHIME_UNIT_WEEK);
  int64_t t;
  CU_ASSERT_EQUAL(
      chime__trigger_fire_after(&s, NULL, INT64_C(1711972800000), &t), 0);
  CU_ASSERT_EQUAL(t, INT64_C(1712563200000));
}

static void test_trigger_calint_month_end_clamps(void) {
  /* Jan 31 + 1 month = Feb 29 (2024), and later steps keep the 29th. */
  chime_schedule s = calint("UTC", INT64_C(1706695200000), 1, CHIME_UNIT_MONTH);
  const int64_t monthly[] = {INT64_C(1706695200000), INT64_C(1709200800000),
                             INT64_C(1711706400000), INT64_C(1714384800000)};
  expect_fires(&s, monthly, 4, __LINE__);
  /* The same from fire_after alone (it restarts from the start). */
  int64_t t;
  CU_ASSERT_EQUAL(
      chime__trigger_fire_after(&s, NULL, INT64_C(1711706400000), &t), 0);
  CU_ASSERT_EQUAL(t, INT64_C(1714384800000));
  /* Feb 29 + 1 year = Feb 28, and 2028 stays on the 28th. */
  s = calint("UTC", INT64_C(1709200800000), 1, CHIME_UNIT_YEAR);
  const int64_t yearly[] = {INT64_C(1709200800000), INT64_C(1740736800000),
                            INT64_C(1772272800000)};
  expect_fires(&s, yearly, 3, __LINE__);
  CU_ASSERT_EQUAL(
      chime__trigger_fire_after(&s, NULL, INT64_C(1835344800000) - 1, &t), 0);
  CU_ASSERT_EQUAL(t, INT64_C(1835344800000));
}

static void test_trigger_calint_month_over_gap(void) {
  /* Monthly at 02:30 New York from Feb 10: Mar 10 02:30 does not exist and
   * add(MONTH) moves it to 03:30 EDT; April keeps 03:30 unless the hour is
   * preserved. */
  chime_schedule s =
      calint("America/New_York", INT64_C(1707550200000), 1, CHIME_UNIT_MONTH);
  const int64_t plain[] = {INT64_C(1707550200000), UTC_MAR10_0730,
                           INT64_C(1712734200000)};
  expect_fires(&s, plain, 3, __LINE__);
  s.u.calint.preserve_hour_of_day = true;
  const int64_t keep[] = {INT64_C(1707550200000), UTC_MAR10_0730,
                          INT64_C(1712730600000)};
  expect_fires(&s, keep, 3, __LINE__);
}

static void test_trigger_calint_exact_units(void) {
  const int64_t t0 = INT64_C(1704067200000); /* 2024-01-01T00:00:00Z */
  chime_schedule s = calint("UTC", t0, 90, CHIME_UNIT_SECOND);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, t0 + 100000, &t), 0);
  CU_ASSERT_EQUAL(t, t0 + 180000);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, t0 + 180000, &t), 0);
  CU_ASSERT_EQUAL(t, t0 + 270000);
  s = calint("UTC", t0, 7, CHIME_UNIT_MINUTE);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, t0 + 7 * 60000 - 1, &t),
                  0);
  CU_ASSERT_EQUAL(t, t0 + 7 * 60000);
  s = calint("UTC", t0, 250, CHIME_UNIT_MILLISECOND);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, t0 + 250, &t), 0);
  CU_ASSERT_EQUAL(t, t0 + 500);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, t0 + 251, &t), 0);
  CU_ASSERT_EQUAL(t, t0 + 500);
  /* End is exclusive. */
  s.end_ms = t0 + 500;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, t0 + 251, &t),
                  CHIME_ENEVERFIRES);
}

static void test_trigger_calint_final_fire(void) {
  /* Quartz's testFinalFireTimes, in UTC. */
  const int64_t start = INT64_C(1268384400000); /* 2010-03-12 09:00 */
  chime_schedule s = calint("UTC", start, 5, CHIME_UNIT_DAY);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, CHIME_NO_FIRE);
  s.end_ms = INT64_C(1269248400000); /* + 10 days: on a fire time */
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, s.end_ms);
  s = calint("UTC", start, 5, CHIME_UNIT_MINUTE);
  s.end_ms = INT64_C(1269680280000); /* 2010-03-27 08:58 */
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, INT64_C(1269680100000)); /* 08:55 */
  /* An end just after the start: the start is the only fire. */
  s.end_ms = start + 500;
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, start);
}

static void test_trigger_calint_calendar(void) {
  chime_calendar *weekend = NULL, *never = NULL;
  chime_schedule s = calint("UTC", INT64_C(1704492000000), 1, CHIME_UNIT_DAY);
  CU_ASSERT_EQUAL_FATAL(chime__calendar_weekly_new(
                            NULL, CHIME__CALENDAR_WEEKEND, &weekend, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime__calendar_weekly_new(
                            NULL, CHIME__CALENDAR_ALL_WEEK, &never, NULL, 0),
                        0);
  /* Fri 2024-01-05 22:00Z daily: Sat and Sun skipped, Mon 22:00. */
  s.calendar = weekend;
  const int64_t want[] = {INT64_C(1704492000000),
                          INT64_C(1704492000000) + 3 * 86400000};
  expect_fires(&s, want, 2, __LINE__);
  /* All excluded: day steps cannot jump, so this meets the 100-year bound;
   * hours jump through the calendar and meet its bound. */
  s.calendar = never;
  chime_fire_state st;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
  s.u.calint.unit = CHIME_UNIT_HOUR;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
  chime__calendar_unref(weekend);
  chime__calendar_unref(never);

  /* Weekly at 10:00 with 09:00-11:00 excluded every day: the calendar
   * includes other times, so the stepping runs into the 100-year bound. */
  chime_calendar *morning = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_daily_new(NULL, 9 * 3600000,
                                                  11 * 3600000, false, &morning,
                                                  NULL, 0),
                        0);
  s = calint("UTC", INT64_C(1704103200000), 1, CHIME_UNIT_WEEK);
  s.calendar = morning;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
  chime__calendar_unref(morning);
}

static void test_trigger_calint_java_calendar_arithmetic(void) {
  /* Each value is what java.util.GregorianCalendar answers (OpenJDK 17). */
  const chime_zone *ny = NULL, *utc = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get("America/New_York", &ny), 0);
  CU_ASSERT_EQUAL_FATAL(chime_zone_get("UTC", &utc), 0);
  /* add(DAY_OF_YEAR, 1) from Mar 9 02:30 EST: 01:30 EST on Mar 10. */
  CU_ASSERT_EQUAL(chime__jcal_add_days(ny, NY_MAR09_0230, 1), UTC_MAR10_0630);
  /* add(DAY_OF_YEAR, -1) from Mar 11 02:30 EDT: 03:30 EDT on Mar 10. */
  CU_ASSERT_EQUAL(chime__jcal_add_days(ny, NY_MAR11_0230, -1), UTC_MAR10_0730);
  /* set(HOUR_OF_DAY, 2) on Mar 10: 03:30 EDT; in the repeated hour of
   * Nov 3, 01:30 is standard time (the second pass). */
  CU_ASSERT_EQUAL(chime__jcal_set_time_of_day(ny, UTC_MAR10_0630, 2, 30, 0, 0),
                  UTC_MAR10_0730);
  CU_ASSERT_EQUAL(chime__jcal_set_time_of_day(ny, UTC_NOV03_0400, 1, 30, 0, 0),
                  UTC_NOV04_0630 - 86400000);
  CU_ASSERT_EQUAL(chime__jcal_hour(ny, UTC_MAR10_0730), 3);
  /* add(MONTH, +-1) pins the day; add(YEAR, 1) from Feb 29. */
  CU_ASSERT_EQUAL(chime__jcal_add_months(utc, INT64_C(1706695200000), 1),
                  INT64_C(1709200800000));
  CU_ASSERT_EQUAL(chime__jcal_add_months(utc, INT64_C(1711879200000), -1),
                  INT64_C(1709200800000));
  CU_ASSERT_EQUAL(chime__jcal_add_months(utc, INT64_C(1709200800000), 12),
                  INT64_C(1740736800000));
}

static void test_trigger_calint_validation(void) {
  static const struct {
    int line;
    int32_t interval;
    int unit;
    chime_misfire misfire;
    int code;
    const char *words;
  } rows[] = {
      {__LINE__, 0, CHIME_UNIT_DAY, CHIME_MISFIRE_SMART, CHIME_EINVAL,
       "at least 1"},
      {__LINE__, -3, CHIME_UNIT_DAY, CHIME_MISFIRE_SMART, CHIME_EINVAL,
       "at least 1"},
      {__LINE__, 1000001, CHIME_UNIT_SECOND, CHIME_MISFIRE_SMART, CHIME_ELIMIT,
       "exceeds the limit"},
      {__LINE__, 1, 8, CHIME_MISFIRE_SMART, CHIME_EINVAL, "interval unit 8"},
      {__LINE__, 1, -1, CHIME_MISFIRE_SMART, CHIME_EINVAL, "interval unit -1"},
      {__LINE__, 1, CHIME_UNIT_DAY, CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT,
       CHIME_EINVAL, "not valid for a calendar-interval trigger"},
      {__LINE__, 1000000, CHIME_UNIT_YEAR, CHIME_MISFIRE_DO_NOTHING, 0, ""},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_schedule s = calint("UTC", INT64_C(1704067200000), rows[i].interval,
                              (chime_interval_unit)rows[i].unit);
    s.misfire = rows[i].misfire;
    char err[200];
    ROW_ASSERT(chime__schedule_validate(&s, err, sizeof err) == rows[i].code,
               rows[i].line);
    ROW_ASSERT(strstr(err, rows[i].words) != NULL, rows[i].line);
  }
  chime_schedule s = calint("UTC", INT64_C(1704067200000), 1, CHIME_UNIT_DAY);
  s.zone = NULL;
  CU_ASSERT_EQUAL(chime__schedule_validate(&s, NULL, 0), CHIME_EINVAL);
}

static void test_trigger_calint_quartz_corpus(void) {
  /* Fire times Quartz 2.3.2 computed (tests/data/triggers/README.md). */
  CU_ASSERT(chime_test_trigger_corpus("calint") > 200);
}

static CU_TestInfo calint_tests[] = {
    {"New York spring forward, daily", test_trigger_calint_ny_spring_daily},
    {"long day intervals leap like Quartz",
     test_trigger_calint_long_day_interval_leaps},
    {"New York fall back", test_trigger_calint_ny_fall_back},
    {"London spring forward", test_trigger_calint_london_spring},
    {"London fall back", test_trigger_calint_london_fall_back},
    {"weeks across DST", test_trigger_calint_weeks_across_dst},
    {"month-end clamping", test_trigger_calint_month_end_clamps},
    {"months over a DST gap", test_trigger_calint_month_over_gap},
    {"exact units", test_trigger_calint_exact_units},
    {"final fire time", test_trigger_calint_final_fire},
    {"calendar exclusion and bound", test_trigger_calint_calendar},
    {"java.util.Calendar arithmetic",
     test_trigger_calint_java_calendar_arithmetic},
    {"validation errors", test_trigger_calint_validation},
    {"Quartz 2.3.2 corpus", test_trigger_calint_quartz_corpus},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/trigger-calint", .pTests = calint_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
