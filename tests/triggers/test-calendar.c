/*
 * test-calendar.c: calendars (triggers/calendar.h): each kind's excluded
 * instants at the edges of days and windows, zones across DST changes,
 * chains of base calendars, the next included instant across excluded
 * spans, calendars that exclude everything, the text form's round trips,
 * and invalid input grouped by kind.
 */
#include "harness.h"
#include "triggers/calendar.h"
#include "triggers/civil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An instant given as UTC fields. */
static int64_t utc(int y, int mo, int d, int h, int mi, int s, int ms) {
  chime_civil c = {.year = y,
                   .month = mo,
                   .day = d,
                   .hour = h,
                   .minute = mi,
                   .second = s,
                   .millisecond = ms};
  return chime__civil_to_ms(&c);
}

static const chime_zone *zone(const char *name) {
  const chime_zone *z = NULL;
  int rc = chime_zone_get(name, &z);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  return z;
}

/* A row: an instant and whether the calendar includes it. */
typedef struct inc_row {
  int64_t t;
  bool included;
  int line;
} inc_row;

static void check_rows(const chime_calendar *cal, const inc_row *rows,
                       size_t n) {
  for (size_t i = 0; i < n; i++) {
    bool got = chime__calendar_includes(cal, rows[i].t);
    if (got != rows[i].included)
      fprintf(stderr, "row at line %d: includes(%lld) = %d\n", rows[i].line,
              (long long)rows[i].t, got);
    CU_ASSERT_EQUAL(got, rows[i].included);
  }
}
#define CHECK_ROWS(cal, rows)                                                  \
  check_rows(cal, rows, sizeof rows / sizeof rows[0])

/* A row: next_included(from) is want. */
typedef struct next_row {
  int64_t from, want;
  int line;
} next_row;

static void check_next(const chime_calendar *cal, const next_row *rows,
                       size_t n) {
  for (size_t i = 0; i < n; i++) {
    int64_t got = -1;
    int rc = chime__calendar_next_included(cal, rows[i].from, &got);
    if (rc != 0 || got != rows[i].want)
      fprintf(stderr, "row at line %d: next_included = %d, %lld, want %lld\n",
              rows[i].line, rc, (long long)got, (long long)rows[i].want);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(got, rows[i].want);
    if (rc == 0)
      CU_ASSERT(chime__calendar_includes(cal, got));
  }
}
#define CHECK_NEXT(cal, rows)                                                  \
  check_next(cal, rows, sizeof rows / sizeof rows[0])

static chime_calendar *weekly(const chime_calendar_opts *o, unsigned mask) {
  chime_calendar *cal = NULL;
  char err[200] = "";
  int rc = chime__calendar_weekly_new(o, mask, &cal, err, sizeof err);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  return cal;
}

static chime_calendar *daily(const chime_calendar_opts *o, const char *start,
                             const char *end, bool invert) {
  int32_t s, e;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_time_of_day_from_string(start, &s, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_time_of_day_from_string(end, &e, NULL, 0), 0);
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_daily_new(o, s, e, invert, &cal, NULL, 0), 0);
  return cal;
}

static chime_calendar *cron_cal(const chime_calendar_opts *o,
                                const char *expr) {
  chime_calendar *cal = NULL;
  char err[200] = "";
  int rc = chime__calendar_cron_new(o, expr, &cal, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "cron calendar '%s': %s\n", expr, err);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  return cal;
}

/* ------------------------------------------------------------ day rules */

static void test_calendar_annual_boundaries(void) {
  const chime_calendar_date days[] = {
      {0, 12, 25}, {0, 2, 29}, {0, 1, 1}, {0, 12, 25}};
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_annual_new(NULL, days, 4, &cal, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime__calendar_kind(cal), CHIME_CALENDAR_ANNUAL);
  const inc_row rows[] = {
      {utc(2026, 12, 24, 23, 59, 59, 999), true, __LINE__},
      {utc(2026, 12, 25, 0, 0, 0, 0), false, __LINE__},
      {utc(2026, 12, 25, 23, 59, 59, 999), false, __LINE__},
      {utc(2026, 12, 26, 0, 0, 0, 0), true, __LINE__},
      {utc(1999, 12, 25, 12, 0, 0, 0), false, __LINE__},
      {utc(2028, 2, 29, 12, 0, 0, 0), false, __LINE__},
      {utc(2028, 2, 28, 23, 59, 59, 999), true, __LINE__},
      {utc(2027, 3, 1, 0, 0, 0, 0), true, __LINE__},
      {utc(2027, 1, 1, 0, 0, 0, 0), false, __LINE__},
      {utc(2026, 12, 31, 23, 59, 59, 999), true, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 12, 24, 10, 0, 0, 0), utc(2026, 12, 24, 10, 0, 0, 0),
       __LINE__},
      {utc(2026, 12, 25, 10, 0, 0, 0), utc(2026, 12, 26, 0, 0, 0, 0), __LINE__},
      {utc(2028, 2, 29, 0, 0, 0, 0), utc(2028, 3, 1, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);
}

static void test_calendar_holiday_boundaries(void) {
  const chime_calendar_date dates[] = {
      {2026, 12, 31}, {2024, 2, 29}, {2026, 5, 1}, {2026, 5, 2}};
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_holiday_new(NULL, dates, 4, &cal, NULL, 0), 0);
  const inc_row rows[] = {
      {utc(2026, 4, 30, 23, 59, 59, 999), true, __LINE__},
      {utc(2026, 5, 1, 0, 0, 0, 0), false, __LINE__},
      {utc(2026, 5, 2, 23, 59, 59, 999), false, __LINE__},
      {utc(2026, 5, 3, 0, 0, 0, 0), true, __LINE__},
      {utc(2025, 5, 1, 12, 0, 0, 0), true, __LINE__},
      {utc(2024, 2, 29, 0, 0, 0, 0), false, __LINE__},
      {utc(2028, 2, 29, 0, 0, 0, 0), true, __LINE__},
      {utc(2026, 12, 31, 23, 59, 59, 999), false, __LINE__},
      {utc(2027, 1, 1, 0, 0, 0, 0), true, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 5, 1, 8, 0, 0, 0), utc(2026, 5, 3, 0, 0, 0, 0), __LINE__},
      {utc(2026, 5, 3, 8, 0, 0, 0), utc(2026, 5, 3, 8, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);
}

static void test_calendar_monthly_boundaries(void) {
  uint32_t mask = 1u << 1 | 1u << 29 | 1u << 31;
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_monthly_new(NULL, mask, &cal, NULL, 0),
                        0);
  const inc_row rows[] = {
      {utc(2026, 1, 31, 0, 0, 0, 0), false, __LINE__},
      {utc(2026, 1, 30, 23, 59, 59, 999), true, __LINE__},
      {utc(2026, 2, 28, 23, 59, 59, 999), true, __LINE__},
      {utc(2026, 3, 1, 0, 0, 0, 0), false, __LINE__},
      {utc(2024, 2, 29, 12, 0, 0, 0), false, __LINE__},
      {utc(2026, 4, 30, 12, 0, 0, 0), true, __LINE__},
      {utc(2026, 5, 31, 23, 59, 59, 999), false, __LINE__},
      {utc(2026, 6, 2, 0, 0, 0, 0), true, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 5, 31, 6, 0, 0, 0), utc(2026, 6, 2, 0, 0, 0, 0), __LINE__},
      {utc(2024, 2, 29, 6, 0, 0, 0), utc(2024, 3, 2, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);
}

static void test_calendar_weekly_boundaries(void) {
  chime_calendar *cal = weekly(NULL, CHIME__CALENDAR_WEEKEND);
  const inc_row rows[] = {
      {utc(2026, 11, 27, 23, 59, 59, 999), true, __LINE__}, /* Friday */
      {utc(2026, 11, 28, 0, 0, 0, 0), false, __LINE__},     /* Saturday */
      {utc(2026, 11, 29, 23, 59, 59, 999), false, __LINE__},
      {utc(2026, 11, 30, 0, 0, 0, 0), true, __LINE__}, /* Monday */
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 11, 28, 13, 0, 0, 0), utc(2026, 11, 30, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);

  /* In Berlin, Saturday begins at 23:00 UTC on Friday (CET). */
  chime_calendar_opts o = {.zone = zone("Europe/Berlin")};
  cal = weekly(&o, CHIME__CALENDAR_WEEKEND);
  const inc_row berlin[] = {
      {utc(2026, 11, 27, 22, 59, 59, 999), true, __LINE__},
      {utc(2026, 11, 27, 23, 0, 0, 0), false, __LINE__},
      {utc(2026, 11, 29, 22, 59, 59, 999), false, __LINE__},
      {utc(2026, 11, 29, 23, 0, 0, 0), true, __LINE__},
  };
  CHECK_ROWS(cal, berlin);
  const next_row bnext[] = {
      {utc(2026, 11, 28, 13, 0, 0, 0), utc(2026, 11, 29, 23, 0, 0, 0),
       __LINE__},
  };
  CHECK_NEXT(cal, bnext);
  chime__calendar_unref(cal);
}

/* --------------------------------------------------------------- daily */

static void test_calendar_daily_window(void) {
  chime_calendar *cal = daily(NULL, "09:00", "17:00", false);
  const inc_row rows[] = {
      {utc(2026, 6, 1, 8, 59, 59, 999), true, __LINE__},
      {utc(2026, 6, 1, 9, 0, 0, 0), false, __LINE__},
      {utc(2026, 6, 1, 12, 0, 0, 0), false, __LINE__},
      {utc(2026, 6, 1, 17, 0, 0, 0), false, __LINE__},
      {utc(2026, 6, 1, 17, 0, 0, 1), true, __LINE__},
      /* Quartz also excludes these two; chime does not (calendar.h). */
      {utc(2026, 6, 1, 0, 0, 0, 0), true, __LINE__},
      {utc(2026, 6, 1, 23, 59, 59, 999), true, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 6, 1, 9, 0, 0, 0), utc(2026, 6, 1, 17, 0, 0, 1), __LINE__},
      {utc(2026, 6, 1, 8, 0, 0, 0), utc(2026, 6, 1, 8, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);

  /* Millisecond precision: a quarter-second window. */
  cal = daily(NULL, "10:00:00:250", "10:00:00.500", false);
  const inc_row ms[] = {
      {utc(2026, 6, 1, 10, 0, 0, 249), true, __LINE__},
      {utc(2026, 6, 1, 10, 0, 0, 250), false, __LINE__},
      {utc(2026, 6, 1, 10, 0, 0, 500), false, __LINE__},
      {utc(2026, 6, 1, 10, 0, 0, 501), true, __LINE__},
  };
  CHECK_ROWS(cal, ms);
  chime__calendar_unref(cal);

  /* The widest window ends at the last millisecond of the day. */
  cal = daily(NULL, "23:00", "23:59:59:999", false);
  const next_row late[] = {
      {utc(2026, 12, 31, 23, 30, 0, 0), utc(2027, 1, 1, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, late);
  chime__calendar_unref(cal);
}

static void test_calendar_daily_inverted(void) {
  chime_calendar *cal = daily(NULL, "09:00", "17:00", true);
  const inc_row rows[] = {
      {utc(2026, 6, 1, 8, 59, 59, 999), false, __LINE__},
      {utc(2026, 6, 1, 9, 0, 0, 0), true, __LINE__},
      {utc(2026, 6, 1, 17, 0, 0, 0), true, __LINE__},
      {utc(2026, 6, 1, 17, 0, 0, 1), false, __LINE__},
      {utc(2026, 6, 1, 0, 0, 0, 0), false, __LINE__},
      {utc(2026, 6, 1, 23, 59, 59, 999), false, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 6, 1, 3, 0, 0, 0), utc(2026, 6, 1, 9, 0, 0, 0), __LINE__},
      {utc(2026, 6, 1, 17, 0, 0, 1), utc(2026, 6, 2, 9, 0, 0, 0), __LINE__},
      {utc(2026, 6, 1, 12, 0, 0, 0), utc(2026, 6, 1, 12, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);
}

static void test_calendar_daily_berlin_dst(void) {
  chime_calendar_opts o = {.zone = zone("Europe/Berlin")};
  /* 08:00-17:00 local: 07:00Z in winter, 06:00Z from 2026-03-29. */
  chime_calendar *cal = daily(&o, "08:00", "17:00", false);
  const inc_row rows[] = {
      {utc(2026, 3, 28, 6, 59, 59, 999), true, __LINE__},
      {utc(2026, 3, 28, 7, 0, 0, 0), false, __LINE__},
      {utc(2026, 3, 28, 16, 0, 0, 0), false, __LINE__},
      {utc(2026, 3, 28, 16, 0, 0, 1), true, __LINE__},
      {utc(2026, 3, 29, 5, 59, 59, 999), true, __LINE__},
      {utc(2026, 3, 29, 6, 0, 0, 0), false, __LINE__},
      {utc(2026, 3, 29, 15, 0, 0, 0), false, __LINE__},
      {utc(2026, 3, 29, 15, 0, 0, 1), true, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 3, 29, 6, 30, 0, 0), utc(2026, 3, 29, 15, 0, 0, 1), __LINE__},
      {utc(2026, 10, 25, 12, 0, 0, 0), utc(2026, 10, 25, 16, 0, 0, 1),
       __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);

  /* A window inside the skipped hour excludes nothing that day. */
  cal = daily(&o, "02:00", "02:59:59:999", false);
  const inc_row gap[] = {
      {utc(2026, 3, 29, 0, 59, 59, 999), true, __LINE__}, /* 01:59 CET */
      {utc(2026, 3, 29, 1, 0, 0, 0), true, __LINE__},     /* 03:00 CEST */
      {utc(2026, 3, 30, 0, 30, 0, 0), false, __LINE__},   /* 02:30 CEST */
  };
  CHECK_ROWS(cal, gap);
  chime__calendar_unref(cal);

  /* A window inside the repeated hour excludes both passes. */
  cal = daily(&o, "02:00", "02:30", false);
  const inc_row overlap[] = {
      {utc(2026, 10, 25, 0, 10, 0, 0), false, __LINE__}, /* 02:10 CEST */
      {utc(2026, 10, 25, 0, 45, 0, 0), true, __LINE__},  /* 02:45 CEST */
      {utc(2026, 10, 25, 1, 10, 0, 0), false, __LINE__}, /* 02:10 CET */
      {utc(2026, 10, 25, 1, 31, 0, 0), true, __LINE__},  /* 02:31 CET */
  };
  CHECK_ROWS(cal, overlap);
  const next_row onext[] = {
      {utc(2026, 10, 25, 0, 10, 0, 0), utc(2026, 10, 25, 0, 30, 0, 1),
       __LINE__},
      {utc(2026, 10, 25, 1, 0, 0, 0), utc(2026, 10, 25, 1, 30, 0, 1), __LINE__},
  };
  CHECK_NEXT(cal, onext);
  chime__calendar_unref(cal);
}

/* ---------------------------------------------------------------- cron */

static void test_calendar_cron(void) {
  chime_calendar *cal = cron_cal(NULL, "* * 0-7 * * ?");
  const inc_row rows[] = {
      {utc(2026, 6, 1, 0, 0, 0, 0), false, __LINE__},
      {utc(2026, 6, 1, 7, 59, 59, 999), false, __LINE__},
      {utc(2026, 6, 1, 8, 0, 0, 0), true, __LINE__},
      {utc(2026, 6, 1, 23, 59, 59, 999), true, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 6, 1, 3, 0, 0, 0), utc(2026, 6, 1, 8, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);

  /* One second a day: every millisecond of it is excluded. */
  chime_calendar_opts o = {.zone = zone("Europe/Berlin")};
  cal = cron_cal(&o, "0 0 12 * * ?");
  const inc_row noon[] = {
      {utc(2026, 6, 1, 9, 59, 59, 999), true, __LINE__},
      {utc(2026, 6, 1, 10, 0, 0, 0), false, __LINE__}, /* 12:00 CEST */
      {utc(2026, 6, 1, 10, 0, 0, 999), false, __LINE__},
      {utc(2026, 6, 1, 10, 0, 1, 0), true, __LINE__},
      {utc(2026, 6, 1, 12, 0, 0, 0), true, __LINE__},
  };
  CHECK_ROWS(cal, noon);
  const next_row nnext[] = {
      {utc(2026, 6, 1, 10, 0, 0, 500), utc(2026, 6, 1, 10, 0, 1, 0), __LINE__},
  };
  CHECK_NEXT(cal, nnext);
  chime__calendar_unref(cal);
}

/* Runs of matching seconds end where the first field stops matching. */
static void test_calendar_cron_runs(void) {
  const struct {
    const char *expr;
    int64_t from, want;
    int line;
  } rows[] = {
      {"0-29 * * * * ?", utc(2026, 6, 1, 10, 0, 5, 0),
       utc(2026, 6, 1, 10, 0, 30, 0), __LINE__},
      {"30-59 * * * * ?", utc(2026, 6, 1, 10, 0, 45, 0),
       utc(2026, 6, 1, 10, 1, 0, 0), __LINE__},
      {"0-9,50-59 * * * * ?", utc(2026, 6, 1, 10, 0, 55, 0),
       utc(2026, 6, 1, 10, 1, 10, 0), __LINE__},
      {"* 0-9,50-59 * * * ?", utc(2026, 6, 1, 10, 55, 0, 0),
       utc(2026, 6, 1, 11, 10, 0, 0), __LINE__},
      {"* 50-59 10 * * ?", utc(2026, 6, 1, 10, 55, 0, 0),
       utc(2026, 6, 1, 11, 0, 0, 0), __LINE__},
      {"* * 0-5,22-23 * * ?", utc(2026, 6, 1, 23, 0, 0, 0),
       utc(2026, 6, 2, 6, 0, 0, 0), __LINE__},
      {"* * 22-23 * * ?", utc(2026, 6, 1, 23, 0, 0, 0),
       utc(2026, 6, 2, 0, 0, 0, 0), __LINE__},
      {"* * * ? * SAT,SUN", utc(2026, 11, 28, 13, 0, 0, 0),
       utc(2026, 11, 30, 0, 0, 0, 0), __LINE__},
      {"* * * * 12 ?", utc(2026, 12, 5, 13, 0, 0, 0),
       utc(2027, 1, 1, 0, 0, 0, 0), __LINE__},
      {"* * * * * ? 2026-2030", utc(2026, 12, 5, 13, 0, 0, 0),
       utc(2031, 1, 1, 0, 0, 0, 0), __LINE__},
      {"* * * L * ?", utc(2026, 2, 28, 13, 0, 0, 0),
       utc(2026, 3, 1, 0, 0, 0, 0), __LINE__},
      {"0 0 12 * * ?", utc(2026, 6, 1, 12, 0, 0, 500),
       utc(2026, 6, 1, 12, 0, 1, 0), __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_calendar *cal = cron_cal(NULL, rows[i].expr);
    const next_row r[] = {{rows[i].from, rows[i].want, rows[i].line}};
    CHECK_NEXT(cal, r);
    CU_ASSERT_FALSE(chime__calendar_includes(cal, rows[i].from));
    CU_ASSERT_FALSE(chime__calendar_includes(cal, rows[i].want - 1));
    chime__calendar_unref(cal);
  }
}

/*
 * In UTC (no repeated hours) the cron rule agrees with chime_cron_next:
 * a second is excluded when the first fire after the second before it is
 * this second, and next_included agrees with a second-by-second search.
 */
static void test_calendar_cron_agrees_with_cron_next(void) {
  static const char *const exprs[] = {
      "*/5 * 9-17 ? * MON-FRI", "0 0 12 L * ?",   "* * * ? * 6#3",
      "* * * LW * ?",           "0-29 * * * * ?", "* 0-9,50-59 * * * ?",
      "* * 1-3 15W * ?",        "* * * ? 2 5L",   "10,20 */7 * * * ?",
      "* * 23 L-2 * ? 2026",
  };
  chime_cron *cron = NULL;
  const chime_zone *z = zone("UTC");
  for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
    chime_calendar *cal = cron_cal(NULL, exprs[i]);
    CU_ASSERT_EQUAL_FATAL(
        chime_cron_from_string(exprs[i], &cron, NULL, NULL, 0), 0);
    int64_t step = 7 * CHIME_MS_PER_MINUTE + 1001;
    for (int64_t t = utc(2026, 1, 1, 0, 0, 0, 0);
         t < utc(2027, 1, 1, 0, 0, 0, 0); t += step) {
      int64_t sec = t / 1000 * 1000, fire = 0;
      bool matched =
          chime_cron_next(cron, z, sec - 1000, &fire) == 0 && fire == sec;
      if (chime__calendar_includes(cal, t) == matched) {
        fprintf(stderr, "'%s' at %lld\n", exprs[i], (long long)t);
        CU_FAIL("the cron rule disagrees with chime_cron_next");
        break;
      }
    }
    /* next_included against a second-by-second search from some starts. */
    for (int64_t t = utc(2026, 3, 1, 0, 0, 0, 250);
         t < utc(2026, 3, 3, 0, 0, 0, 0); t += 3 * CHIME_MS_PER_HOUR + 7001) {
      int64_t want = t;
      for (int k = 0; k < 200000 && !chime__calendar_includes(cal, want); k++)
        want = (want / 1000 + 1) * 1000;
      const next_row r[] = {{t, want, __LINE__}};
      CHECK_NEXT(cal, r);
    }
    chime_cron_free(cron);
    chime__calendar_unref(cal);
  }
}

/* A cron rule excludes both passes of a repeated hour (wall-clock time). */
static void test_calendar_cron_berlin_dst(void) {
  chime_calendar_opts o = {.zone = zone("Europe/Berlin")};
  chime_calendar *cal = cron_cal(&o, "* * 2 * * ?");
  const inc_row rows[] = {
      {utc(2026, 10, 24, 23, 59, 59, 999), true, __LINE__}, /* 01:59 CEST */
      {utc(2026, 10, 25, 0, 0, 0, 0), false, __LINE__},     /* 02:00 CEST */
      {utc(2026, 10, 25, 1, 30, 0, 0), false, __LINE__},    /* 02:30 CET */
      {utc(2026, 10, 25, 2, 0, 0, 0), true, __LINE__},      /* 03:00 CET */
      {utc(2026, 3, 29, 0, 59, 59, 999), true, __LINE__},   /* 01:59 CET */
      {utc(2026, 3, 29, 1, 0, 0, 0), true, __LINE__},       /* 03:00 CEST */
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 10, 25, 0, 30, 0, 0), utc(2026, 10, 25, 2, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);
  chime__calendar_unref(cal);
}

/* -------------------------------------------------------------- chains */

static void test_calendar_chain_with_base(void) {
  const chime_calendar_date christmas[] = {{2026, 12, 25}};
  chime_calendar *holidays = NULL;
  chime_calendar_opts ho = {.description = "Christmas"};
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_holiday_new(&ho, christmas, 1, &holidays, NULL, 0), 0);
  chime_calendar_opts o = {.base = holidays};
  chime_calendar *cal = weekly(&o, CHIME__CALENDAR_WEEKEND);
  /* The child keeps the base alive after the caller lets go of it. */
  chime__calendar_unref(holidays);
  CU_ASSERT_PTR_EQUAL(chime__calendar_base(cal), holidays);
  CU_ASSERT_STRING_EQUAL(chime__calendar_description(chime__calendar_base(cal)),
                         "Christmas");
  const inc_row rows[] = {
      {utc(2026, 12, 24, 12, 0, 0, 0), true, __LINE__},
      {utc(2026, 12, 25, 12, 0, 0, 0), false, __LINE__}, /* base only */
      {utc(2026, 12, 26, 12, 0, 0, 0), false, __LINE__}, /* child only */
      {utc(2026, 12, 28, 0, 0, 0, 0), true, __LINE__},
  };
  CHECK_ROWS(cal, rows);
  const next_row next[] = {
      {utc(2026, 12, 25, 10, 0, 0, 0), utc(2026, 12, 28, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, next);

  /* A daily window on top of both: the chain meets at Monday 09:00. */
  chime_calendar_opts d = {.base = cal};
  chime_calendar *top = daily(&d, "00:00", "08:59:59:999", false);
  const next_row tnext[] = {
      {utc(2026, 12, 25, 10, 0, 0, 0), utc(2026, 12, 28, 9, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(top, tnext);
  chime__calendar_unref(cal);
  chime__calendar_unref(top);
}

static void test_calendar_chain_depth_limit(void) {
  chime_calendar *cal = NULL;
  for (int i = 0; i < CHIME__CALENDAR_MAX_DEPTH; i++) {
    chime_calendar_opts o = {.base = cal};
    chime_calendar *next = weekly(&o, 0);
    chime__calendar_unref(cal);
    cal = next;
  }
  chime_calendar_opts o = {.base = cal};
  chime_calendar *too_deep = NULL;
  char err[200] = "";
  CU_ASSERT_EQUAL(chime__calendar_weekly_new(&o, 0, &too_deep, err, sizeof err),
                  CHIME_ELIMIT);
  CU_ASSERT_PTR_NULL(too_deep);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "chain"));
  CU_ASSERT(chime__calendar_includes(cal, 0));
  chime__calendar_unref(cal);
}

static void test_calendar_null_includes_everything(void) {
  int64_t got = 0;
  CU_ASSERT(chime__calendar_includes(NULL, 12345));
  CU_ASSERT_EQUAL(chime__calendar_next_included(NULL, 12345, &got), 0);
  CU_ASSERT_EQUAL(got, 12345);
  CU_ASSERT_PTR_NULL(chime__calendar_ref(NULL));
  chime__calendar_unref(NULL);
  CU_ASSERT_EQUAL(chime__calendar_next_included(NULL, 0, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime__calendar_next_included(NULL, CHIME__CALENDAR_MAX_MS + 1, &got),
      CHIME_EINVAL);
}

/* Instants past year 9999 are excluded by any calendar, never computed. */
static void test_calendar_far_instants_are_excluded(void) {
  chime_calendar *cal = weekly(NULL, 0);
  CU_ASSERT(chime__calendar_includes(cal, CHIME__CALENDAR_MAX_MS));
  CU_ASSERT(chime__calendar_includes(cal, CHIME__CALENDAR_MIN_MS));
  CU_ASSERT_FALSE(chime__calendar_includes(cal, CHIME__CALENDAR_MAX_MS + 1));
  CU_ASSERT_FALSE(chime__calendar_includes(cal, INT64_MIN));
  CU_ASSERT_FALSE(chime__calendar_includes(cal, INT64_MAX));
  int64_t got;
  CU_ASSERT_EQUAL(chime__calendar_next_included(cal, INT64_MIN, &got),
                  CHIME_EINVAL);
  chime__calendar_unref(cal);

  /* The last Saturday before the limit is excluded up to the end. */
  cal = weekly(NULL, CHIME__CALENDAR_WEEKEND | 1u << 5);
  CU_ASSERT_EQUAL(
      chime__calendar_next_included(cal, utc(9999, 12, 31, 0, 0, 0, 0), &got),
      CHIME_ENEVERFIRES);
  chime__calendar_unref(cal);
}

/* Threads share one calendar: references and questions at once. */
static void *share_calendar(void *arg) {
  chime_calendar *cal = arg;
  for (int i = 0; i < 20000; i++) {
    chime_calendar *mine = chime__calendar_ref(cal);
    int64_t t = utc(2026, 12, 24, 0, 0, 0, 0) + i * CHIME_MS_PER_HOUR;
    int64_t next;
    if (chime__calendar_next_included(mine, t, &next) != 0 ||
        !chime__calendar_includes(mine, next))
      return (void *)1;
    chime__calendar_unref(mine);
  }
  return NULL;
}

static void test_calendar_shared_by_threads(void) {
  const chime_calendar_date days[] = {{2026, 12, 25}, {2027, 1, 1}};
  chime_calendar *base = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_holiday_new(NULL, days, 2, &base, NULL, 0), 0);
  chime_calendar_opts o = {.base = base, .zone = zone("Europe/Berlin")};
  chime_calendar *cal = weekly(&o, CHIME__CALENDAR_WEEKEND);
  chime__calendar_unref(base);
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, share_calendar, cal), 0);
  for (int i = 0; i < 4; i++) {
    void *res = (void *)1;
    pthread_join(th[i], &res);
    CU_ASSERT_PTR_NULL(res);
  }
  chime__calendar_unref(cal);
}

/* ------------------------------------------------- next across spans */

static void test_calendar_next_included_across_spans(void) {
  /* Only the 31st is included: from February to March 31st. */
  chime_calendar *cal = NULL;
  uint32_t all_but_31 = 0;
  for (int d = 1; d <= 30; d++)
    all_but_31 |= UINT32_C(1) << d;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_monthly_new(NULL, all_but_31, &cal, NULL, 0), 0);
  const next_row m[] = {
      {utc(2026, 2, 1, 0, 0, 0, 0), utc(2026, 3, 31, 0, 0, 0, 0), __LINE__},
      {utc(2026, 3, 31, 5, 0, 0, 0), utc(2026, 3, 31, 5, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, m);
  chime__calendar_unref(cal);

  /* Only February 29th is included: up to eight years away. */
  chime_calendar_date days[366];
  size_t n = 0;
  for (int mo = 1; mo <= 12; mo++)
    for (int d = 1; d <= chime__days_in_month(2001, mo); d++)
      days[n++] = (chime_calendar_date){0, mo, d};
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_annual_new(NULL, days, n, &cal, NULL, 0), 0);
  const next_row a[] = {
      {utc(2026, 1, 1, 0, 0, 0, 0), utc(2028, 2, 29, 0, 0, 0, 0), __LINE__},
      {utc(2097, 1, 1, 0, 0, 0, 0), utc(2104, 2, 29, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, a);
  chime__calendar_unref(cal);

  /* A run of 100 holidays. */
  chime_calendar_date run[100];
  for (int i = 0; i < 100; i++) {
    int64_t y;
    int mo, d;
    chime__civil_from_days(chime__days_from_civil(2026, 1, 1) + i, &y, &mo, &d);
    run[i] = (chime_calendar_date){(int)y, mo, d};
  }
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_holiday_new(NULL, run, 100, &cal, NULL, 0), 0);
  const next_row h[] = {
      {utc(2026, 1, 1, 5, 0, 0, 0), utc(2026, 4, 11, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, h);
  chime__calendar_unref(cal);
}

/* Asserts next_included fails with CHIME_ENEVERFIRES within a second. */
static void check_never(chime_calendar *cal, int line) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  int64_t got = 0;
  int rc =
      chime__calendar_next_included(cal, utc(2026, 1, 1, 0, 0, 0, 0), &got);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
  if (rc != CHIME_ENEVERFIRES || s > 1.0)
    fprintf(stderr, "row at line %d: rc %d after %.3f s\n", line, rc, s);
  CU_ASSERT_EQUAL(rc, CHIME_ENEVERFIRES);
  CU_ASSERT(s < 1.0);
  chime__calendar_unref(cal);
}

static void test_calendar_excluding_everything_never_fires(void) {
  check_never(weekly(NULL, CHIME__CALENDAR_ALL_WEEK), __LINE__);

  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_monthly_new(NULL, 0xFFFFFFFEu, &cal, NULL, 0), 0);
  check_never(cal, __LINE__);

  chime_calendar_date days[366];
  size_t n = 0;
  for (int mo = 1; mo <= 12; mo++)
    for (int d = 1; d <= chime__days_in_month(2000, mo); d++)
      days[n++] = (chime_calendar_date){0, mo, d};
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_annual_new(NULL, days, n, &cal, NULL, 0), 0);
  check_never(cal, __LINE__);

  check_never(daily(NULL, "00:00", "23:59:59:999", false), __LINE__);

  /* Weekdays excluded on top of weekends excluded: nothing meets. */
  chime_calendar *weekend = weekly(NULL, CHIME__CALENDAR_WEEKEND);
  chime_calendar_opts o = {.base = weekend};
  cal = weekly(&o, CHIME__CALENDAR_ALL_WEEK & ~CHIME__CALENDAR_WEEKEND);
  chime__calendar_unref(weekend);
  check_never(cal, __LINE__);

  /*
   * A cron calendar matching every second: cron years end with 2199, so
   * the first included instant is 2200-01-01, found in one step.
   */
  cal = cron_cal(NULL, "* * * * * ?");
  const next_row all[] = {
      {utc(2026, 1, 1, 0, 0, 0, 0), utc(2200, 1, 1, 0, 0, 0, 0), __LINE__},
  };
  CHECK_NEXT(cal, all);
  chime__calendar_unref(cal);
}

/* -------------------------------------------------------- text form */

/* to_string, from_string, to_string: the texts are equal. */
static void check_round_trip(const chime_calendar *cal, int line) {
  char *text = NULL, *again = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(chime__calendar_to_string(cal, &text), 0);
  chime_calendar *back = NULL;
  int rc = chime__calendar_from_string(text, &back, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "row at line %d: %s\n%s", line, err, text);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_EQUAL_FATAL(chime__calendar_to_string(back, &again), 0);
  if (strcmp(text, again) != 0)
    fprintf(stderr, "row at line %d:\n%s---\n%s", line, text, again);
  CU_ASSERT_STRING_EQUAL(text, again);
  /* Same answers at a spread of instants through two years. */
  int64_t step = 7 * CHIME_MS_PER_HOUR + 13 * CHIME_MS_PER_MINUTE + 17;
  for (int64_t t = utc(2026, 1, 1, 0, 0, 0, 0); t < utc(2028, 1, 1, 0, 0, 0, 0);
       t += step)
    if (chime__calendar_includes(cal, t) != chime__calendar_includes(back, t)) {
      CU_FAIL("round trip changed an answer");
      fprintf(stderr, "row at line %d: differs at %lld\n", line, (long long)t);
      break;
    }
  chime_free(text);
  chime_free(again);
  chime__calendar_unref(back);
}

static void test_calendar_text_round_trip(void) {
  /* Exact text of a small chain. */
  const chime_calendar_date days[] = {{0, 12, 25}, {0, 1, 1}};
  chime_calendar *annual = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_annual_new(NULL, days, 2, &annual, NULL, 0), 0);
  chime_calendar_opts o = {.base = annual,
                           .zone = zone("Europe/Berlin"),
                           .description = "Office days"};
  chime_calendar *cal = weekly(&o, CHIME__CALENDAR_WEEKEND);
  char *text = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_to_string(cal, &text), 0);
  CU_ASSERT_STRING_EQUAL(text, "chime-calendar 1\n"
                               "weekly zone=Europe/Berlin desc=Office%20days "
                               "days=sun,sat\n"
                               "annual days=01-01,12-25\n");
  chime_free(text);
  check_round_trip(cal, __LINE__);
  chime__calendar_unref(cal);

  /* Every kind in one chain, with awkward descriptions. */
  const chime_calendar_date dates[] = {
      {2026, 5, 1}, {2024, 2, 29}, {9999, 12, 31}, {1, 1, 1}};
  chime_calendar *c = NULL, *next = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_holiday_new(&(chime_calendar_opts){.base = annual}, dates,
                                  4, &c, NULL, 0),
      0);
  chime__calendar_unref(annual);
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_monthly_new(
          &(chime_calendar_opts){.base = c, .description = "100% = off, ok"},
          1u << 1 | 1u << 31, &next, NULL, 0),
      0);
  chime__calendar_unref(c);
  c = next;
  next = daily(&(chime_calendar_opts){.base = c,
                                      .zone = zone("Europe/Berlin"),
                                      .description = "line\nbreak\ttab"},
               "07:30:15:250", "19:00", true);
  chime__calendar_unref(c);
  c = next;
  next = cron_cal(&(chime_calendar_opts){.base = c,
                                         .zone = zone("America/New_York"),
                                         .description = "\xc3\xa9t\xc3\xa9"},
                  "0 0/30 9-17 ? * MON-FRI");
  chime__calendar_unref(c);
  c = next;
  next = weekly(&(chime_calendar_opts){.base = c, .description = ""}, 0);
  chime__calendar_unref(c);
  c = next;
  check_round_trip(c, __LINE__);
  CU_ASSERT_EQUAL_FATAL(chime__calendar_to_string(c, &text), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "weekly desc= days=\n"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, "cron zone=America/New_York desc=%C3%A9t%C3%A9 "
                   "expr=0%200/30%209-17%20%3F%20%2A%20MON-FRI\n"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, "daily zone=Europe/Berlin desc=line%0Abreak%09tab "
                   "start=07:30:15.250 end=19:00:00.000 invert=1\n"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, "monthly desc=100%25%20%3D%20off%2C%20ok days=1,31\n"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, "holiday dates=0001-01-01,2024-02-29,2026-05-01,"
                   "9999-12-31\n"));
  chime_free(text);
  chime__calendar_unref(c);
}

/* ----------------------------------------------------- invalid input */

static void test_calendar_invalid_day_rules(void) {
  static const struct {
    chime_calendar_date date;
    bool holiday;
    int code;
    const char *says;
    int line;
  } rows[] = {
      {{0, 13, 1}, false, CHIME_EINVAL, "month 13", __LINE__},
      {{0, 0, 1}, false, CHIME_EINVAL, "month 0", __LINE__},
      {{0, 1, 32}, false, CHIME_EINVAL, "day 32", __LINE__},
      {{0, 1, 0}, false, CHIME_EINVAL, "day 0", __LINE__},
      {{0, 2, 30}, false, CHIME_EINVAL, "day 30", __LINE__},
      {{0, 4, 31}, false, CHIME_EINVAL, "day 31", __LINE__},
      {{2026, 2, 29}, true, CHIME_EINVAL, "day 29", __LINE__},
      {{1900, 2, 29}, true, CHIME_EINVAL, "day 29", __LINE__},
      {{0, 1, 1}, true, CHIME_EINVAL, "year 0", __LINE__},
      {{10000, 1, 1}, true, CHIME_EINVAL, "year 10000", __LINE__},
      {{2026, 13, 1}, true, CHIME_EINVAL, "month 13", __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_calendar *cal = NULL;
    char err[200] = "";
    int rc = rows[i].holiday
                 ? chime__calendar_holiday_new(NULL, &rows[i].date, 1, &cal,
                                               err, sizeof err)
                 : chime__calendar_annual_new(NULL, &rows[i].date, 1, &cal, err,
                                              sizeof err);
    if (rc != rows[i].code || strstr(err, rows[i].says) == NULL)
      fprintf(stderr, "row at line %d: %d '%s'\n", rows[i].line, rc, err);
    CU_ASSERT_EQUAL(rc, rows[i].code);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].says));
    CU_ASSERT_PTR_NULL(cal);
  }

  /* Too many holidays. */
  size_t n = CHIME__CALENDAR_MAX_HOLIDAYS + 1;
  chime_calendar_date *many = calloc(n, sizeof *many);
  CU_ASSERT_PTR_NOT_NULL_FATAL(many);
  for (size_t i = 0; i < n; i++)
    many[i] = (chime_calendar_date){2026, 1, 1};
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL(chime__calendar_holiday_new(NULL, many, n, &cal, NULL, 0),
                  CHIME_ELIMIT);
  CU_ASSERT_EQUAL(chime__calendar_holiday_new(NULL, many, n - 1, &cal, NULL, 0),
                  0);
  chime__calendar_unref(cal);
  free(many);
  cal = NULL;
  CU_ASSERT_EQUAL(chime__calendar_annual_new(NULL, NULL, 1, &cal, NULL, 0),
                  CHIME_EINVAL);

  /* Monthly: day 0; weekly: bits past Saturday. */
  char err[200] = "";
  CU_ASSERT_EQUAL(chime__calendar_monthly_new(NULL, 1u, &cal, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "day 0"));
  CU_ASSERT_EQUAL(
      chime__calendar_weekly_new(NULL, 0x80u, &cal, err, sizeof err),
      CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(cal);
}

static void test_calendar_invalid_daily(void) {
  static const struct {
    int32_t start, end;
    const char *says;
    int line;
  } rows[] = {
      {9 * 3600000, 9 * 3600000, "not after", __LINE__},
      {17 * 3600000, 9 * 3600000, "not after", __LINE__},
      {-1, 9 * 3600000, "start", __LINE__},
      {0, 86400000, "end", __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_calendar *cal = NULL;
    char err[200] = "";
    int rc = chime__calendar_daily_new(NULL, rows[i].start, rows[i].end, false,
                                       &cal, err, sizeof err);
    if (rc != CHIME_EINVAL || strstr(err, rows[i].says) == NULL)
      fprintf(stderr, "row at line %d: %d '%s'\n", rows[i].line, rc, err);
    CU_ASSERT_EQUAL(rc, CHIME_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].says));
    CU_ASSERT_PTR_NULL(cal);
  }
}

static void test_calendar_time_of_day_strings(void) {
  static const struct {
    const char *text;
    int32_t want; /* -1: an error whose message holds says */
    const char *says;
    int line;
  } rows[] = {
      {"9:05", 9 * 3600000 + 5 * 60000, NULL, __LINE__},
      {"00:00", 0, NULL, __LINE__},
      {"23:59:59:999", 86399999, NULL, __LINE__},
      {"12:00:00.250", 12 * 3600000 + 250, NULL, __LINE__},
      {"12:00:01:5", 12 * 3600000 + 1005, NULL, __LINE__},
      {"24:00", -1, "hour 24", __LINE__},
      {"12:60", -1, "minute 60", __LINE__},
      {"12:00:60", -1, "second 60", __LINE__},
      {"12:00:00:1000", -1, "millisecond 1000", __LINE__},
      {"12", -1, "malformed", __LINE__},
      {"", -1, "malformed", __LINE__},
      {"ab:cd", -1, "malformed", __LINE__},
      {"-1:00", -1, "malformed", __LINE__},
      {"12:00:00.5", -1, "malformed", __LINE__},
      {"12:00:00:999x", -1, "malformed", __LINE__},
      {"12:00:00:00:00", -1, "malformed", __LINE__},
      {"12:00 ", -1, "malformed", __LINE__},
      {"00012:00", -1, "malformed", __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int32_t got = -7;
    char err[200] = "";
    int rc = chime__calendar_time_of_day_from_string(rows[i].text, &got, err,
                                                     sizeof err);
    bool ok = rows[i].want >= 0 ? rc == 0 && got == rows[i].want
                                : rc == CHIME_EINVAL && got == -7 &&
                                      strstr(err, rows[i].says) != NULL;
    if (!ok)
      fprintf(stderr, "row at line %d: %d %d '%s'\n", rows[i].line, rc,
              (int)got, err);
    CU_ASSERT(ok);
  }
}

static void test_calendar_invalid_common(void) {
  chime_calendar *cal = NULL;
  char err[300] = "";
  CU_ASSERT_EQUAL(chime__calendar_cron_new(NULL, "bad", &cal, err, sizeof err),
                  CHIME_EPARSE);
  CU_ASSERT(strlen(err) > 0);
  CU_ASSERT_EQUAL(chime__calendar_cron_new(NULL, NULL, &cal, NULL, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime__calendar_weekly_new(NULL, 0, NULL, NULL, 0),
                  CHIME_EINVAL);
  char desc[CHIME__CALENDAR_MAX_DESCRIPTION + 2];
  memset(desc, 'x', sizeof desc - 1);
  desc[sizeof desc - 1] = '\0';
  chime_calendar_opts o = {.description = desc};
  CU_ASSERT_EQUAL(chime__calendar_weekly_new(&o, 0, &cal, err, sizeof err),
                  CHIME_ELIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "description"));
  desc[sizeof desc - 2] = '\0';
  CU_ASSERT_EQUAL(chime__calendar_weekly_new(&o, 0, &cal, NULL, 0), 0);
  CU_ASSERT_STRING_EQUAL(chime__calendar_description(cal), desc);
  chime__calendar_unref(cal);
}

static void test_calendar_invalid_text(void) {
  static const struct {
    const char *text;
    int code;
    const char *says;
    int line;
  } rows[] = {
      {"", CHIME_EFORMAT, "line 1", __LINE__},
      {"chime-calendar 2\nweekly days=sun\n", CHIME_EFORMAT, "line 1",
       __LINE__},
      {"chime-calendar 1\n", CHIME_EFORMAT, "no calendar", __LINE__},
      {"chime-calendar 1\nfoo days=1\n", CHIME_EFORMAT, "kind 'foo'", __LINE__},
      {"chime-calendar 1\n\n", CHIME_EFORMAT, "line 2", __LINE__},
      {"chime-calendar 1\nweekly\n", CHIME_EFORMAT, "needs field days",
       __LINE__},
      {"chime-calendar 1\nweekly days=sun days=mon\n", CHIME_EFORMAT, "twice",
       __LINE__},
      {"chime-calendar 1\nweekly days=sunday\n", CHIME_EFORMAT, "day 'sunday'",
       __LINE__},
      {"chime-calendar 1\nweekly dates=2026-01-01\n", CHIME_EFORMAT,
       "unexpected field", __LINE__},
      {"chime-calendar 1\nweekly  days=sun\n", CHIME_EFORMAT,
       "unexpected field", __LINE__},
      {"chime-calendar 1\nweekly days=sun \n", CHIME_EFORMAT,
       "unexpected field", __LINE__},
      {"chime-calendar 1\nweekly days\n", CHIME_EFORMAT, "unexpected field",
       __LINE__},
      {"chime-calendar 1\nmonthly days=32\n", CHIME_EINVAL, "day 32", __LINE__},
      {"chime-calendar 1\nmonthly days=0\n", CHIME_EINVAL, "day 0", __LINE__},
      {"chime-calendar 1\nmonthly days=1,,2\n", CHIME_EFORMAT, "day ''",
       __LINE__},
      {"chime-calendar 1\nannual days=13-01\n", CHIME_EINVAL, "month 13",
       __LINE__},
      {"chime-calendar 1\nannual days=1-1-1\n", CHIME_EFORMAT, "date",
       __LINE__},
      {"chime-calendar 1\nholiday dates=2026-02-30\n", CHIME_EINVAL, "day 30",
       __LINE__},
      {"chime-calendar 1\nholiday dates=2026-01-01,\n", CHIME_EFORMAT, "date",
       __LINE__},
      {"chime-calendar 1\ndaily start=17:00 end=09:00\n", CHIME_EINVAL,
       "not after", __LINE__},
      {"chime-calendar 1\ndaily start=09:00 end=25:00\n", CHIME_EINVAL,
       "hour 25", __LINE__},
      {"chime-calendar 1\ndaily start=09:00 end=17:00 invert=yes\n",
       CHIME_EFORMAT, "invert", __LINE__},
      {"chime-calendar 1\ndaily start=09:00\n", CHIME_EFORMAT,
       "needs field end", __LINE__},
      {"chime-calendar 1\ncron expr=bad\n", CHIME_EPARSE, "", __LINE__},
      {"chime-calendar 1\nweekly zone=Mars/Olympus days=sun\n",
       CHIME_EUNKNOWNZONE, "Mars/Olympus", __LINE__},
      {"chime-calendar 1\nweekly desc=%zz days=sun\n", CHIME_EFORMAT, "escape",
       __LINE__},
      {"chime-calendar 1\nweekly desc=%00 days=sun\n", CHIME_EFORMAT, "escape",
       __LINE__},
      {"chime-calendar 1\nweekly desc=%4 days=sun\n", CHIME_EFORMAT, "escape",
       __LINE__},
      {"chime-calendar 1\nweekly days=sun\nbogus\n", CHIME_EFORMAT, "line 3",
       __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_calendar *cal = NULL;
    char err[300] = "";
    int rc = chime__calendar_from_string(rows[i].text, &cal, err, sizeof err);
    if (rc != rows[i].code || strstr(err, rows[i].says) == NULL)
      fprintf(stderr, "row at line %d: %d '%s'\n", rows[i].line, rc, err);
    CU_ASSERT_EQUAL(rc, rows[i].code);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].says));
    CU_ASSERT_PTR_NULL(cal);
  }
}

static void test_calendar_text_limits(void) {
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL(chime__calendar_from_string(NULL, &cal, NULL, 0),
                  CHIME_EINVAL);

  /* A chain one longer than the limit. */
  size_t cap = 64 + 16 * (CHIME__CALENDAR_MAX_DEPTH + 1);
  char *text = malloc(cap);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  size_t used = (size_t)snprintf(text, cap, "chime-calendar 1\n");
  for (int i = 0; i < CHIME__CALENDAR_MAX_DEPTH; i++)
    used += (size_t)snprintf(text + used, cap - used, "weekly days=\n");
  CU_ASSERT_EQUAL(chime__calendar_from_string(text, &cal, NULL, 0), 0);
  chime__calendar_unref(cal);
  cal = NULL;
  snprintf(text + used, cap - used, "weekly days=\n");
  CU_ASSERT_EQUAL(chime__calendar_from_string(text, &cal, NULL, 0),
                  CHIME_ELIMIT);
  free(text);

  /* Too many holiday dates. */
  size_t n = CHIME__CALENDAR_MAX_HOLIDAYS + 1;
  text = malloc(64 + 11 * n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  size_t len = (size_t)snprintf(text, 64, "chime-calendar 1\nholiday dates=");
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(text + len, 12, "%s2026-01-01", i ? "," : "");
  CU_ASSERT_EQUAL(chime__calendar_from_string(text, &cal, NULL, 0),
                  CHIME_ELIMIT);
  free(text);

  /* Text past the size limit. */
  text = malloc(CHIME__CALENDAR_MAX_STRING + 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  memset(text, 'x', CHIME__CALENDAR_MAX_STRING + 1);
  text[CHIME__CALENDAR_MAX_STRING + 1] = '\0';
  CU_ASSERT_EQUAL(chime__calendar_from_string(text, &cal, NULL, 0),
                  CHIME_ELIMIT);
  free(text);
  CU_ASSERT_PTR_NULL(cal);
}

/*
 * Damaged texts: bytes of a valid text replaced, dropped or repeated (a
 * fixed pseudo-random sequence).  Parsing never crashes, and whatever it
 * accepts writes back to a text that parses to the same text.
 */
static void test_calendar_text_mutations(void) {
  const char *good = "chime-calendar 1\n"
                     "daily zone=Europe/Berlin desc=a%20b start=09:00:00.000 "
                     "end=17:00:00.000 invert=1\n"
                     "cron expr=0%200%2012%20%2A%20%2A%20%3F\n"
                     "holiday dates=2026-01-01,2026-12-25\n"
                     "annual days=01-01,02-29\n"
                     "monthly days=1,31\n"
                     "weekly days=sun,sat\n";
  const char alphabet[] = "%=, \n0123456789:-.abcdefghijklmnopqrstuvwxyz";
  size_t len = strlen(good);
  char *text = malloc(2 * len + 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  uint64_t state = 0x9E3779B97F4A7C15u;
  int accepted = 0;
  for (int round = 0; round < 3000; round++) {
    memcpy(text, good, len + 1);
    size_t n = len;
    for (int k = 0; k < 1 + round % 3; k++) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      size_t at = (size_t)(state >> 33) % n;
      unsigned what = (unsigned)(state >> 20) % 3;
      char ch = alphabet[(state >> 40) % (sizeof alphabet - 1)];
      if (what == 0) {
        text[at] = ch;
      } else if (what == 1 && n > 1) {
        memmove(text + at, text + at + 1, n - at);
        n--;
      } else {
        memmove(text + at + 1, text + at, n - at + 1);
        text[at] = text[at + 1];
        n++;
      }
      text[n] = '\0';
    }
    chime_calendar *cal = NULL;
    char err[300];
    if (chime__calendar_from_string(text, &cal, err, sizeof err) == 0) {
      accepted++;
      char *again = NULL, *third = NULL;
      chime_calendar *back = NULL;
      CU_ASSERT_EQUAL(chime__calendar_to_string(cal, &again), 0);
      CU_ASSERT_EQUAL(chime__calendar_from_string(again, &back, NULL, 0), 0);
      CU_ASSERT_EQUAL(chime__calendar_to_string(back, &third), 0);
      CU_ASSERT(again != NULL && third != NULL && strcmp(again, third) == 0);
      chime_free(again);
      chime_free(third);
      chime__calendar_unref(back);
      chime__calendar_unref(cal);
    } else {
      CU_ASSERT_PTR_NULL(cal);
      CU_ASSERT(strlen(err) > 0);
    }
  }
  CU_ASSERT(accepted > 0);
  free(text);
}

static CU_TestInfo calendar_tests[] = {
    {"test_calendar_annual_boundaries", test_calendar_annual_boundaries},
    {"test_calendar_holiday_boundaries", test_calendar_holiday_boundaries},
    {"test_calendar_monthly_boundaries", test_calendar_monthly_boundaries},
    {"test_calendar_weekly_boundaries", test_calendar_weekly_boundaries},
    {"test_calendar_daily_window", test_calendar_daily_window},
    {"test_calendar_daily_inverted", test_calendar_daily_inverted},
    {"test_calendar_daily_berlin_dst", test_calendar_daily_berlin_dst},
    {"test_calendar_cron", test_calendar_cron},
    {"test_calendar_cron_runs", test_calendar_cron_runs},
    {"test_calendar_cron_agrees_with_cron_next",
     test_calendar_cron_agrees_with_cron_next},
    {"test_calendar_cron_berlin_dst", test_calendar_cron_berlin_dst},
    {"test_calendar_chain_with_base", test_calendar_chain_with_base},
    {"test_calendar_chain_depth_limit", test_calendar_chain_depth_limit},
    {"test_calendar_null_includes_everything",
     test_calendar_null_includes_everything},
    {"test_calendar_far_instants_are_excluded",
     test_calendar_far_instants_are_excluded},
    {"test_calendar_shared_by_threads", test_calendar_shared_by_threads},
    {"test_calendar_next_included_across_spans",
     test_calendar_next_included_across_spans},
    {"test_calendar_excluding_everything_never_fires",
     test_calendar_excluding_everything_never_fires},
    {"test_calendar_text_round_trip", test_calendar_text_round_trip},
    {"test_calendar_invalid_day_rules", test_calendar_invalid_day_rules},
    {"test_calendar_invalid_daily", test_calendar_invalid_daily},
    {"test_calendar_time_of_day_strings", test_calendar_time_of_day_strings},
    {"test_calendar_invalid_common", test_calendar_invalid_common},
    {"test_calendar_invalid_text", test_calendar_invalid_text},
    {"test_calendar_text_limits", test_calendar_text_limits},
    {"test_calendar_text_mutations", test_calendar_text_mutations},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/calendar", .pTests = calendar_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
