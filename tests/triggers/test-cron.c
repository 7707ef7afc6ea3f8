/*
 * test-cron.c: cron expressions, the triggers/cron suite.  This file pins
 * chime's own rules on fire times (the DST overlap and gap rules, day forms
 * at month edges, leap days, wrapping ranges, the year range); the Quartz
 * conformance replay is in cron-quartz-cases.c and the parser's errors,
 * round trips and descriptions in cron-parse-cases.c.
 */
#include "chime.h"
#include "harness.h"
#include "triggers/civil.h"
#include "triggers/cron.h"
#include "test-cron.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Epoch milliseconds of a UTC civil time. */
static int64_t utc(int64_t y, int mo, int d, int h, int mi, int sec) {
  return chime__days_from_civil(y, mo, d) * CHIME_MS_PER_DAY +
         h * CHIME_MS_PER_HOUR + mi * CHIME_MS_PER_MINUTE +
         sec * CHIME_MS_PER_SECOND;
}

/*
 * A schedule row: the fires expected after `after`, in order; when `ends`
 * the expression never fires after the last one.  Instants in DST zones
 * were computed with Python's zoneinfo, an independent oracle.
 */
typedef struct fire_row {
  int line;
  const char *expr;
  const char *zone;
  int64_t after;
  int64_t want[8];
  int n;
  bool ends;
} fire_row;

static void check_rows(const fire_row *rows, size_t nrows) {
  for (size_t i = 0; i < nrows; i++) {
    const fire_row *row = &rows[i];
    chime_cron *cron = NULL;
    const chime_zone *zone = NULL;
    char err[200];
    int r = chime_cron_from_string(row->expr, &cron, NULL, err, sizeof err);
    if (r != 0)
      printf("\n  line %d: '%s': %s\n", row->line, row->expr, err);
    CU_ASSERT_EQUAL_FATAL(r, 0);
    CU_ASSERT_EQUAL_FATAL(chime_zone_get(row->zone, &zone), 0);
    int64_t t = row->after;
    for (int k = 0; k < row->n + (row->ends ? 1 : 0); k++) {
      int64_t next = -1;
      r = chime_cron_next(cron, zone, t, &next);
      int64_t want = k < row->n ? row->want[k] : -1;
      int want_r = k < row->n ? 0 : CHIME_ENEVERFIRES;
      if (r != want_r || (r == 0 && next != want)) {
        printf("\n  line %d: '%s' in %s, fire %d: want %" PRId64
               " (%d), got %" PRId64 " (%d)\n",
               row->line, row->expr, row->zone, k, want, want_r, next, r);
        CU_FAIL("wrong fire time");
        break;
      }
      t = next;
    }
    chime_cron_free(cron);
  }
}

static void test_cron_overlap_fires_both_passes_for_every_hour(void) {
  static const fire_row rows[] = {
      /* New York, 2026-11-01: 01:00-02:00 happens twice (EDT, then EST). */
      {__LINE__,
       "0 0/30 * * * ?",
       "America/New_York",
       1793508300000,
       {1793509200000, 1793511000000, 1793512800000, 1793514600000,
        1793516400000},
       5,
       false},
      /* From inside the first pass, the second pass from its start. */
      {__LINE__,
       "0 0 * * * ?",
       "America/New_York",
       1793509800000,
       {1793512800000, 1793516400000},
       2,
       false},
      {__LINE__,
       "* * * * * ?",
       "America/New_York",
       1793512799000,
       {1793512800000},
       1,
       false},
      /* From inside the second pass. */
      {__LINE__,
       "0 0/30 * * * ?",
       "America/New_York",
       1793513400000,
       {1793514600000, 1793516400000},
       2,
       false},
      /* Lord Howe, 2026-04-05: 01:30-02:00 happens twice (+11, +10:30). */
      {__LINE__,
       "0 0/15 * * * ?",
       "Australia/Lord_Howe",
       1775311800000,
       {1775312100000, 1775313000000, 1775313900000, 1775314800000,
        1775315700000, 1775316600000},
       6,
       false},
      /*
       * dst-overlap.tsv 11-444 (Auckland, 2029-04-01, 02:00-03:00 twice):
       * Quartz fires only at 02:42/02:44 +12:00; chime also at +13:00.
       */
      {__LINE__,
       "0 42,44 * ? APR SUN 2029-2030",
       "Pacific/Auckland",
       1794992380243,
       {1869651720000, 1869651840000, 1869655320000, 1869655440000,
        1869658920000, 1869659040000, 1869662520000, 1869662640000},
       8,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_overlap_fires_first_pass_otherwise(void) {
  static const fire_row rows[] = {
      {__LINE__,
       "0 30 1 * * ?",
       "America/New_York",
       1793508300000,
       {1793511000000, 1793601000000},
       2,
       false},
      /* Starting in the second pass: the next day. */
      {__LINE__,
       "0 30 1 * * ?",
       "America/New_York",
       1793513400000,
       {1793601000000},
       1,
       false},
      {__LINE__,
       "0 0/30 0-5 * * ?",
       "America/New_York",
       1793508300000,
       {1793509200000, 1793511000000, 1793516400000},
       3,
       false},
      {__LINE__,
       "0 45 1 * * ?",
       "Australia/Lord_Howe",
       1775311800000,
       {1775313900000, 1775402100000},
       2,
       false},
      /*
       * dst-overlap.tsv 11-619 (London, 2029-10-28, 01:00-02:00 twice):
       * Quartz fires at 01:52 GMT (second pass); chime at 01:52 BST.
       */
      {__LINE__,
       "0 52 9-4 25/1 MAY-APR ?",
       "Europe/London",
       1887829703498,
       {1887832320000, 1887835920000, 1887839520000, 1887843120000,
        1887850320000, 1887853920000, 1887857520000, 1887875520000},
       8,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_gap_times_are_skipped(void) {
  static const fire_row rows[] = {
      /* New York, 2026-03-08: 02:00-03:00 does not exist. */
      {__LINE__,
       "0 30 2 * * ?",
       "America/New_York",
       1772884800000,
       {1773037800000},
       1,
       false},
      {__LINE__,
       "0 0/30 * * * ?",
       "America/New_York",
       1772952300000,
       {1772953200000},
       1,
       false},
      /* Lord Howe, 2026-10-04: 02:00-02:30 does not exist. */
      {__LINE__,
       "0 15 2 * * ?",
       "Australia/Lord_Howe",
       1790991000000,
       {1791126900000},
       1,
       false},
      {__LINE__,
       "0 * * * * ?",
       "Australia/Lord_Howe",
       1791041340000 - 1,
       {1791041340000, 1791041400000},
       2,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_leap_days_and_impossible_dates(void) {
  const fire_row rows[] = {
      {__LINE__,
       "0 0 0 29 2 ?",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2028, 2, 29, 0, 0, 0), utc(2032, 2, 29, 0, 0, 0)},
       2,
       false},
      /* 2100 is not a leap year. */
      {__LINE__,
       "0 0 0 29 2 ? 2096-2104",
       "UTC",
       utc(2090, 1, 1, 0, 0, 0),
       {utc(2096, 2, 29, 0, 0, 0), utc(2104, 2, 29, 0, 0, 0)},
       2,
       true},
      {__LINE__,
       "0 0 0 29 2 ? 2100",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {0},
       0,
       true},
      {__LINE__, "0 0 0 30 2 ?", "UTC", utc(2026, 1, 1, 0, 0, 0), {0}, 0, true},
      {__LINE__, "0 0 0 31 4,6,9,11 ?", "UTC", 0, {0}, 0, true},
      /* Day 31 only in months that have one. */
      {__LINE__,
       "0 0 0 31 * ?",
       "UTC",
       utc(2026, 4, 1, 0, 0, 0),
       {utc(2026, 5, 31, 0, 0, 0), utc(2026, 7, 31, 0, 0, 0),
        utc(2026, 8, 31, 0, 0, 0)},
       3,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_last_day_forms(void) {
  const fire_row rows[] = {
      {__LINE__,
       "0 0 0 L * ?",
       "UTC",
       utc(2028, 1, 31, 0, 0, 0),
       {utc(2028, 2, 29, 0, 0, 0), utc(2028, 3, 31, 0, 0, 0)},
       2,
       false},
      {__LINE__,
       "0 0 0 L-2 * ?",
       "UTC",
       utc(2026, 2, 1, 0, 0, 0),
       {utc(2026, 2, 26, 0, 0, 0), utc(2026, 3, 29, 0, 0, 0),
        utc(2026, 4, 28, 0, 0, 0)},
       3,
       false},
      /* L-30 is day 1 of a 31-day month and does not exist in February. */
      {__LINE__,
       "0 0 0 L-30 1-3 ?",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2026, 3, 1, 0, 0, 0), utc(2027, 1, 1, 0, 0, 0)},
       2,
       false},
      /* LW: May 2026 ends on a Sunday, so Friday the 29th. */
      {__LINE__,
       "0 0 0 LW * ?",
       "UTC",
       utc(2026, 5, 1, 0, 0, 0),
       {utc(2026, 5, 29, 0, 0, 0), utc(2026, 6, 30, 0, 0, 0)},
       2,
       false},
      /* The last Friday; the last Saturday written "L". */
      {__LINE__,
       "0 0 0 ? * 6L",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2026, 1, 30, 0, 0, 0), utc(2026, 2, 27, 0, 0, 0)},
       2,
       false},
      {__LINE__,
       "0 0 0 ? * friL",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2026, 1, 30, 0, 0, 0)},
       1,
       false},
      {__LINE__,
       "0 0 0 ? * L",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2026, 1, 3, 0, 0, 0), utc(2026, 1, 10, 0, 0, 0)},
       2,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_nearest_weekday_stays_in_month(void) {
  const fire_row rows[] = {
      /* 2026-08-01 is a Saturday: Monday the 3rd, not July 31st. */
      {__LINE__,
       "0 0 0 1W * ?",
       "UTC",
       utc(2026, 7, 15, 0, 0, 0),
       {utc(2026, 8, 3, 0, 0, 0), utc(2026, 9, 1, 0, 0, 0)},
       2,
       false},
      /* 2026-03-15 is a Sunday: Monday the 16th. */
      {__LINE__,
       "0 0 0 15W 3 ? 2026",
       "UTC",
       0,
       {utc(2026, 3, 16, 0, 0, 0)},
       1,
       true},
      /*
       * 31W in a 30-day month: Quartz takes the weekday of "day 31" as the
       * 1st of the next month, so it fires on the 30th only when the 30th
       * is a Friday (April 2027), and not at all otherwise (April 2026).
       */
      {__LINE__,
       "0 0 0 31W 4 ? 2026-2027",
       "UTC",
       0,
       {utc(2027, 4, 30, 0, 0, 0)},
       1,
       true},
      /* Likewise 29W in February: 2031-02-28 is a Friday; 2032-02-29 a Sunday.
       */
      {__LINE__,
       "0 0 0 29W 2 ? 2029-2032",
       "UTC",
       0,
       {utc(2031, 2, 28, 0, 0, 0), utc(2032, 2, 27, 0, 0, 0)},
       2,
       true},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_nth_weekday_skips_short_months(void) {
  const fire_row rows[] = {
      /* A fifth Friday only in January, May, July and October 2026. */
      {__LINE__,
       "0 0 0 ? * FRI#5 2026",
       "UTC",
       0,
       {utc(2026, 1, 30, 0, 0, 0), utc(2026, 5, 29, 0, 0, 0),
        utc(2026, 7, 31, 0, 0, 0), utc(2026, 10, 30, 0, 0, 0)},
       4,
       true},
      {__LINE__,
       "0 0 9 ? * 2#1",
       "UTC",
       utc(2026, 11, 30, 0, 0, 0),
       {utc(2026, 12, 7, 9, 0, 0), utc(2027, 1, 4, 9, 0, 0)},
       2,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_ranges_wrap_and_step(void) {
  const fire_row rows[] = {
      {__LINE__,
       "0 0 22-1 * * ?",
       "UTC",
       utc(2026, 1, 1, 12, 0, 0),
       {utc(2026, 1, 1, 22, 0, 0), utc(2026, 1, 1, 23, 0, 0),
        utc(2026, 1, 2, 0, 0, 0), utc(2026, 1, 2, 1, 0, 0),
        utc(2026, 1, 2, 22, 0, 0)},
       5,
       false},
      {__LINE__,
       "0 0 0 1 nov-feb ?",
       "UTC",
       utc(2026, 2, 15, 0, 0, 0),
       {utc(2026, 11, 1, 0, 0, 0), utc(2026, 12, 1, 0, 0, 0),
        utc(2027, 1, 1, 0, 0, 0), utc(2027, 2, 1, 0, 0, 0),
        utc(2027, 11, 1, 0, 0, 0)},
       5,
       false},
      /* Friday to Monday; 2026-01-02 is a Friday. */
      {__LINE__,
       "0 0 0 ? * FRI-MON",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2026, 1, 2, 0, 0, 0), utc(2026, 1, 3, 0, 0, 0),
        utc(2026, 1, 4, 0, 0, 0), utc(2026, 1, 5, 0, 0, 0),
        utc(2026, 1, 9, 0, 0, 0)},
       5,
       false},
      /* "5/15" is 5, 20, 35, 50; a wrapping range keeps its step. */
      {__LINE__,
       "5/15 0 0 * * ?",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2026, 1, 1, 0, 0, 5), utc(2026, 1, 1, 0, 0, 20),
        utc(2026, 1, 1, 0, 0, 35), utc(2026, 1, 1, 0, 0, 50),
        utc(2026, 1, 2, 0, 0, 5)},
       5,
       false},
      {__LINE__,
       "50-10/7 0 0 * * ?",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2026, 1, 1, 0, 0, 4), utc(2026, 1, 1, 0, 0, 50),
        utc(2026, 1, 1, 0, 0, 57), utc(2026, 1, 2, 0, 0, 4)},
       4,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_year_bounds(void) {
  const fire_row rows[] = {
      {__LINE__,
       "0 0 0 1 1 ? 2199",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {utc(2199, 1, 1, 0, 0, 0)},
       1,
       true},
      {__LINE__,
       "59 59 23 * * ?",
       "UTC",
       utc(2199, 12, 30, 12, 0, 0),
       {utc(2199, 12, 30, 23, 59, 59), utc(2199, 12, 31, 23, 59, 59)},
       2,
       true},
      {__LINE__,
       "0 0 12 * * ? 2025",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0),
       {0},
       0,
       true},
      {__LINE__,
       "0 0 0 1 1 ? 1970",
       "UTC",
       INT64_MIN,
       {utc(1970, 1, 1, 0, 0, 0)},
       1,
       true},
  };
  check_rows(rows, NROWS(rows));
}

static void test_cron_strictly_after_with_milliseconds(void) {
  const fire_row rows[] = {
      {__LINE__,
       "* * * * * ?",
       "UTC",
       utc(2026, 1, 1, 0, 0, 0) + 999,
       {utc(2026, 1, 1, 0, 0, 1), utc(2026, 1, 1, 0, 0, 2)},
       2,
       false},
      {__LINE__,
       "0 0 12 * * ?",
       "UTC",
       utc(2026, 1, 1, 12, 0, 0),
       {utc(2026, 1, 2, 12, 0, 0)},
       1,
       false},
      {__LINE__,
       "0 0 12 * * ?",
       "UTC",
       utc(2026, 1, 1, 12, 0, 0) - 1,
       {utc(2026, 1, 1, 12, 0, 0)},
       1,
       false},
  };
  check_rows(rows, NROWS(rows));
}

static CU_TestInfo cron_tests[] = {
    {"Quartz conformance (cases.tsv)", test_cron_quartz_conformance},
    {"Unix conformance (unix-croniter.tsv)", test_cron_unix_conformance},
    {"overlap: every hour fires in both passes",
     test_cron_overlap_fires_both_passes_for_every_hour},
    {"overlap: other hours fire in the first pass",
     test_cron_overlap_fires_first_pass_otherwise},
    {"gap times are skipped", test_cron_gap_times_are_skipped},
    {"leap days and impossible dates",
     test_cron_leap_days_and_impossible_dates},
    {"L, L-n, LW, nL", test_cron_last_day_forms},
    {"W stays inside the month", test_cron_nearest_weekday_stays_in_month},
    {"#5 skips months without a fifth",
     test_cron_nth_weekday_skips_short_months},
    {"ranges wrap and step", test_cron_ranges_wrap_and_step},
    {"year bounds", test_cron_year_bounds},
    {"strictly after, milliseconds",
     test_cron_strictly_after_with_milliseconds},
    {"errors name field and column", test_cron_errors_name_field_and_column},
    {"limits and arguments", test_cron_limits_and_arguments},
    {"round trip and case", test_cron_round_trip_and_case},
    {"describe", test_cron_describe},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {.pName = "triggers/cron", .pTests = cron_tests},
    CU_SUITE_INFO_NULL,
};

int main(void) {
  return chime_test_main(suites);
}
