/*
 * test-trigger-daily.c: the daily-time-interval trigger against Quartz's
 * DailyTimeIntervalTriggerImpl: windows, days of the week, repeat count,
 * windows crossing DST in America/New_York and Europe/London, the end
 * time, final fire, calendars and validation.  Expected instants are
 * written out (`TZ=... date -d ... +%s`).
 */
#include "harness.h"
#include "trigger-corpus.h"
#include "triggers/calendar.h"
#include "triggers/trigger.h"

#include <stdio.h>
#include <string.h>

#define ROW_ASSERT(cond, line)                                                 \
  CU_assertImplementation((cond), (unsigned)(line), #cond, __FILE__, "",       \
                          CU_FALSE)

#define H INT64_C(3600000)
#define M INT64_C(60000)
#define WEEKDAYS 0x3Eu /* Monday .. Friday */

/* 2024-01-05 (Friday) 00:00Z, 09:00Z, 10:30Z; Monday 2024-01-08 09:00Z. */
#define FRI_00 INT64_C(1704412800000)
#define FRI_09 INT64_C(1704445200000)
#define FRI_1030 INT64_C(1704450600000)
#define MON_09 INT64_C(1704704400000)
#define TUE_09 INT64_C(1704790800000)
#define WED_12 INT64_C(1704888000000)
#define WED_1230 INT64_C(1704889800000)

static chime_schedule daily(const char *zname, int64_t start, int32_t from_s,
                            int32_t to_s, unsigned days, int32_t n,
                            chime_interval_unit unit) {
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_DAILY_TIME_INTERVAL;
  s.start_ms = start;
  s.end_ms = CHIME_END_NONE;
  s.misfire = CHIME_MISFIRE_SMART;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get(zname, &s.zone), 0);
  s.u.daily.start_sec_of_day = from_s;
  s.u.daily.end_sec_of_day = to_s;
  s.u.daily.days_of_week = days;
  s.u.daily.interval = n;
  s.u.daily.unit = unit;
  s.u.daily.repeat_count = CHIME_REPEAT_INDEFINITELY;
  return s;
}

static void test_trigger_daily_window_and_weekdays(void) {
  chime_schedule s =
      daily("UTC", FRI_00, 9 * 3600, 17 * 3600, WEEKDAYS, 1, CHIME_UNIT_HOUR);
  int64_t f[12];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 12), 12);
  for (int i = 0; i < 9; i++) /* 09:00 .. 17:00, the end inclusive */
    CU_ASSERT_EQUAL(f[i], FRI_09 + i * H);
  CU_ASSERT_EQUAL(f[9], MON_09); /* the weekend is not chosen */
  CU_ASSERT_EQUAL(f[10], MON_09 + H);
  /* A start inside the window fires on the window's grid. */
  s.start_ms = FRI_1030;
  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, FRI_09 + 2 * H);
}

static void test_trigger_daily_interval_not_dividing_window(void) {
  chime_schedule s =
      daily("UTC", FRI_00, 9 * 3600, 10 * 3600, 0x7Fu, 25, CHIME_UNIT_MINUTE);
  int64_t f[4];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 4), 4);
  CU_ASSERT_EQUAL(f[0], FRI_09);
  CU_ASSERT_EQUAL(f[1], FRI_09 + 25 * M);
  CU_ASSERT_EQUAL(f[2], FRI_09 + 50 * M);
  CU_ASSERT_EQUAL(f[3], FRI_09 + 24 * H); /* Saturday 09:00 */
}

static void test_trigger_daily_repeat_count(void) {
  chime_schedule s =
      daily("UTC", FRI_00, 9 * 3600, 17 * 3600, WEEKDAYS, 1, CHIME_UNIT_HOUR);
  s.u.daily.repeat_count = 2; /* 1 + 2 fires */
  int64_t f[10];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 10), 3);
  CU_ASSERT_EQUAL(f[2], FRI_09 + 2 * H);
  s.u.daily.repeat_count = 0;
  CU_ASSERT_EQUAL(chime_test_trigger_fires(&s, f, 10), 1);
  /* A finished state stays finished (Quartz's "complete"), even for a
   * search from before its last fire; a fresh state still answers. */
  s.u.daily.repeat_count = CHIME_REPEAT_INDEFINITELY;
  s.end_ms = FRI_09 + 2 * H;
  chime_fire_state st;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
  while (chime__trigger_may_fire_again(&st))
    chime__trigger_triggered(&s, &st);
  CU_ASSERT_EQUAL(st.times_triggered, 3);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, &st, FRI_00, &t),
                  CHIME_ENEVERFIRES);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, FRI_00, &t), 0);
  CU_ASSERT_EQUAL(t, FRI_09);
}

/* New York, 2024-03-10: 02:00 EST -> 03:00 EDT. */
#define UTC_MAR10_05 INT64_C(1710046800000) /* 00:00 EST */
#define UTC_MAR11_04 INT64_C(1710129600000) /* 00:00 EDT */

static void test_trigger_daily_ny_spring_forward(void) {
  /* Hours count real time from the window start: 00:00, 01:00 EST, then
   * 03:00 .. 23:00 EDT: 23 fires on the short day. */
  chime_schedule s = daily("America/New_York", UTC_MAR10_05, 0, 86399, 0x7Fu, 1,
                           CHIME_UNIT_HOUR);
  int64_t f[25];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 25), 25);
  CU_ASSERT_EQUAL(f[0], UTC_MAR10_05);
  CU_ASSERT_EQUAL(f[1], UTC_MAR10_05 + H);
  CU_ASSERT_EQUAL(f[2], UTC_MAR10_05 + 2 * H);   /* 03:00 EDT */
  CU_ASSERT_EQUAL(f[22], UTC_MAR10_05 + 22 * H); /* 23:00 EDT */
  CU_ASSERT_EQUAL(f[23], UTC_MAR11_04);
  CU_ASSERT_EQUAL(f[24], UTC_MAR11_04 + H);
}

static void test_trigger_daily_ny_window_in_gap(void) {
  /*
   * Window 02:30-04:00 every 30 minutes.  On Mar 10 02:30 does not exist
   * and resolves to 03:30 EDT: fires 03:30 and 04:00.  Quartz then reaches
   * Mar 11 by adding a day to Mar 10's resolved window start (03:30), so
   * Mar 11 starts at 03:30 EDT, not 02:30; Mar 12 is normal again.
   */
  chime_schedule s = daily("America/New_York", INT64_C(1709985600000), 9000,
                           14400, 0x7Fu, 30, CHIME_UNIT_MINUTE);
  int64_t f[5];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 5), 5);
  CU_ASSERT_EQUAL(f[0], INT64_C(1710055800000)); /* Mar 10 03:30 EDT */
  CU_ASSERT_EQUAL(f[1], INT64_C(1710057600000)); /* Mar 10 04:00 EDT */
  CU_ASSERT_EQUAL(f[2], INT64_C(1710142200000)); /* Mar 11 03:30 EDT */
  CU_ASSERT_EQUAL(f[3], INT64_C(1710142200000) + 30 * M);
  CU_ASSERT_EQUAL(f[4], INT64_C(1710225000000)); /* Mar 12 02:30 EDT */
}

static void test_trigger_daily_ny_fall_back(void) {
  /* 2024-11-03 02:00 EDT -> 01:00 EST.  Window 00:00-03:00 every 30 min:
   * 00:00 EDT and eight more real half hours up to 03:00 EST, inclusive;
   * 01:00 and 01:30 fire in both passes. */
  const int64_t t0 = INT64_C(1730606400000); /* 00:00 EDT */
  chime_schedule s = daily("America/New_York", INT64_C(1730548800000), 0,
                           3 * 3600, 0x7Fu, 30, CHIME_UNIT_MINUTE);
  int64_t f[10];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 10), 10);
  for (int i = 0; i < 9; i++)
    CU_ASSERT_EQUAL(f[i], t0 + i * 30 * M);
  CU_ASSERT_EQUAL(f[9], INT64_C(1730696400000)); /* Nov 4 00:00 EST */
}

static void test_trigger_daily_london_spring_forward(void) {
  /* 2024-03-31 01:00 GMT -> 02:00 BST.  Window 00:00-03:00 hourly:
   * 00:00 GMT, 02:00 BST, 03:00 BST; then Apr 1 00:00 BST. */
  const int64_t t0 = INT64_C(1711843200000);
  chime_schedule s = daily("Europe/London", INT64_C(1711800000000), 0, 3 * 3600,
                           0x7Fu, 1, CHIME_UNIT_HOUR);
  int64_t f[4];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 4), 4);
  CU_ASSERT_EQUAL(f[0], t0);
  CU_ASSERT_EQUAL(f[1], t0 + H);
  CU_ASSERT_EQUAL(f[2], t0 + 2 * H);
  CU_ASSERT_EQUAL(f[3], INT64_C(1711926000000));
}

static void test_trigger_daily_end_and_final_fire(void) {
  chime_schedule s =
      daily("UTC", FRI_00, 9 * 3600, 17 * 3600, WEEKDAYS, 1, CHIME_UNIT_HOUR);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, CHIME_NO_FIRE);
  s.end_ms = WED_1230;
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, NULL, &t), 0);
  CU_ASSERT_EQUAL(t, WED_12);
  /* Never past the end, even inside the end's window (unlike Quartz). */
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, WED_12, &t),
                  CHIME_ENEVERFIRES);
  /* The end itself may fire (after the previous fire; as in Quartz,
   * searching from less than a second before the end finds nothing). */
  s.end_ms = WED_12;
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, WED_12 - H, &t), 0);
  CU_ASSERT_EQUAL(t, WED_12);
  CU_ASSERT_EQUAL(chime__trigger_fire_after(&s, NULL, WED_12 - 1, &t),
                  CHIME_ENEVERFIRES);
}

static void test_trigger_daily_calendar(void) {
  chime_calendar *monday = NULL, *never = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_weekly_new(NULL, 1u << 1, &monday, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime__calendar_weekly_new(
                            NULL, CHIME__CALENDAR_ALL_WEEK, &never, NULL, 0),
                        0);
  chime_schedule s =
      daily("UTC", FRI_00, 9 * 3600, 10 * 3600, WEEKDAYS, 1, CHIME_UNIT_HOUR);
  s.calendar = monday;
  int64_t f[3];
  CU_ASSERT_EQUAL_FATAL(chime_test_trigger_fires(&s, f, 3), 3);
  CU_ASSERT_EQUAL(f[1], FRI_09 + H);
  CU_ASSERT_EQUAL(f[2], TUE_09); /* Monday excluded */
  s.calendar = never;
  chime_fire_state st;
  CU_ASSERT_EQUAL(chime__trigger_first_fire(&s, &st), CHIME_ENEVERFIRES);
  chime__calendar_unref(monday);
  chime__calendar_unref(never);
}

/* Quartz's loop: step through every fire, asking the calendar each time. */
static int sequential_after(const chime_schedule *s, int64_t after,
                            int64_t *ret) {
  chime_schedule bare = *s;
  bare.calendar = NULL;
  int64_t t;
  int rc = chime__trigger_fire_after(&bare, NULL, after, &t);
  for (int i = 0; rc == 0 && i < 100000; i++) {
    if (chime__calendar_includes(s->calendar, t)) {
      *ret = t;
      return 0;
    }
    rc = chime__trigger_fire_after(&bare, NULL, t, &t);
  }
  return rc != 0 ? rc : CHIME_ENEVERFIRES;
}

static void test_trigger_daily_calendar_jump_matches_stepping(void) {
  /* The calendar's next included instant lets the search skip excluded
   * fires; it must find what stepping through them finds.  Window
   * 08:00-18:00 every 7 minutes, a calendar excluding 10:00:00.000 to
   * 12:34:56.789 and (as base) Wednesdays. */
  chime_calendar *wed = NULL, *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_weekly_new(NULL, 1u << 3, &wed, NULL, 0), 0);
  chime_calendar_opts o = {.base = wed};
  CU_ASSERT_EQUAL_FATAL(chime__calendar_daily_new(
                            &o, 10 * 3600000, 12 * 3600000 + 34 * 60000 + 56789,
                            false, &cal, NULL, 0),
                        0);
  chime_schedule s = daily("Europe/London", FRI_00, 8 * 3600, 18 * 3600, 0x7F,
                           7, CHIME_UNIT_MINUTE);
  s.calendar = cal;
  for (int64_t after = FRI_00; after < FRI_00 + 8 * 24 * H;
       after += 13 * M + 17) {
    int64_t a = 0, b = 0;
    int ra = chime__trigger_fire_after(&s, NULL, after, &a);
    int rb = sequential_after(&s, after, &b);
    CU_ASSERT_EQUAL(ra, rb);
    CU_ASSERT_EQUAL(a, b);
  }
  chime__calendar_unref(cal);
  chime__calendar_unref(wed);
}

static void test_trigger_daily_validation(void) {
  static const struct {
    int line;
    int32_t from, to;
    unsigned days;
    int32_t n;
    int unit;
    int32_t repeat;
    chime_misfire misfire;
    int code;
    const char *words;
  } rows[] = {
      {__LINE__, 0, 3600, 0x7F, 1, CHIME_UNIT_DAY, -1, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "must be SECOND, MINUTE or HOUR"},
      {__LINE__, 0, 3600, 0x7F, 0, CHIME_UNIT_MINUTE, -1, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "at least 1"},
      {__LINE__, 0, 3600, 0x7F, 25, CHIME_UNIT_HOUR, -1, CHIME_MISFIRE_SMART,
       CHIME_ELIMIT, "can not exceed 24 hours"},
      {__LINE__, 0, 3600, 0x7F, 1441, CHIME_UNIT_MINUTE, -1,
       CHIME_MISFIRE_SMART, CHIME_ELIMIT, "can not exceed 24 hours"},
      {__LINE__, 0, 3600, 0x7F, 86401, CHIME_UNIT_SECOND, -1,
       CHIME_MISFIRE_SMART, CHIME_ELIMIT, "can not exceed 24 hours"},
      {__LINE__, 7200, 3600, 0x7F, 1, CHIME_UNIT_HOUR, -1, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "window end 01:00:00 is before window start 02:00:00"},
      {__LINE__, -1, 3600, 0x7F, 1, CHIME_UNIT_HOUR, -1, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "window start -1"},
      {__LINE__, 0, 86400, 0x7F, 1, CHIME_UNIT_HOUR, -1, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "window end 86400"},
      {__LINE__, 0, 3600, 0, 1, CHIME_UNIT_HOUR, -1, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "no days of the week"},
      {__LINE__, 0, 3600, 0x80, 1, CHIME_UNIT_HOUR, -1, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "bits past Saturday"},
      {__LINE__, 0, 3600, 0x7F, 1, CHIME_UNIT_HOUR, -2, CHIME_MISFIRE_SMART,
       CHIME_EINVAL, "repeat count -2"},
      {__LINE__, 0, 3600, 0x7F, 1, CHIME_UNIT_HOUR, -1,
       CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT, CHIME_EINVAL,
       "not valid for a daily-time-interval trigger"},
      /* The same window start and end is allowed (Quartz: one fire a day). */
      {__LINE__, 3600, 3600, 0x01, 24, CHIME_UNIT_HOUR, 5,
       CHIME_MISFIRE_DO_NOTHING, 0, ""},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_schedule s =
        daily("UTC", FRI_00, rows[i].from, rows[i].to, rows[i].days, rows[i].n,
              (chime_interval_unit)rows[i].unit);
    s.u.daily.repeat_count = rows[i].repeat;
    s.misfire = rows[i].misfire;
    char err[200];
    ROW_ASSERT(chime__schedule_validate(&s, err, sizeof err) == rows[i].code,
               rows[i].line);
    ROW_ASSERT(strstr(err, rows[i].words) != NULL, rows[i].line);
    if (strstr(err, rows[i].words) == NULL)
      fprintf(stderr, "\nerrbuf \"%s\"\n", err);
  }
}

static void test_trigger_daily_quartz_corpus(void) {
  /* Fire times Quartz 2.3.2 computed (tests/data/triggers/README.md). */
  CU_ASSERT(chime_test_trigger_corpus("daily") > 200);
}

static CU_TestInfo daily_tests[] = {
    {"window and days of week", test_trigger_daily_window_and_weekdays},
    {"interval not dividing the window",
     test_trigger_daily_interval_not_dividing_window},
    {"repeat count", test_trigger_daily_repeat_count},
    {"New York spring forward", test_trigger_daily_ny_spring_forward},
    {"New York window inside the gap", test_trigger_daily_ny_window_in_gap},
    {"New York fall back", test_trigger_daily_ny_fall_back},
    {"London spring forward", test_trigger_daily_london_spring_forward},
    {"end time and final fire", test_trigger_daily_end_and_final_fire},
    {"calendar exclusion and bound", test_trigger_daily_calendar},
    {"calendar jumps match stepping",
     test_trigger_daily_calendar_jump_matches_stepping},
    {"validation errors", test_trigger_daily_validation},
    {"Quartz 2.3.2 corpus", test_trigger_daily_quartz_corpus},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/trigger-daily", .pTests = daily_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
