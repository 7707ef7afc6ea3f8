/*
 * cron-parse-cases.c: the cron parser's side of the triggers/cron suite:
 * rejected expressions with the field and column each error names, the
 * length limit and argument checks, to_string round trips, letter case,
 * and the English descriptions.
 */
#include "chime.h"
#include "harness.h"
#include "triggers/cron.h"
#include "test-cron.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* An expression the parser must reject, and where it says the fault is. */
typedef struct error_row {
  int line;
  const char *expr;
  int code;
  int column;
  const char *message; /* the start of the expected message */
} error_row;

void test_cron_errors_name_field_and_column(void) {
  static const error_row rows[] = {
      /* Structure: too few or too many fields, the '?' rule. */
      {__LINE__, "", CHIME_EPARSE, 1,
       "second field, column 1: field is missing"},
      {__LINE__, "* * * * *", CHIME_EPARSE, 10,
       "day-of-week field, column 10: field is missing"},
      {__LINE__, "0 0 12 * * ? 2026 x", CHIME_EPARSE, 19,
       "year field, column 19: unexpected text"},
      {__LINE__, "0 0 12 * * *", CHIME_EPARSE, 12,
       "day-of-week field, column 12: exactly one"},
      {__LINE__, "0 0 12 ? * ?", CHIME_EPARSE, 12,
       "day-of-week field, column 12: exactly one"},
      {__LINE__, "0 ? 12 * * ?", CHIME_EPARSE, 3,
       "minute field, column 3: '?' is allowed only"},
      {__LINE__, "0 0 12 ?,1 * ?", CHIME_EPARSE, 8,
       "day-of-month field, column 8: '?' must stand alone"},
      /* Values out of range. */
      {__LINE__, "60 0 12 * * ?", CHIME_EPARSE, 1,
       "second field, column 1: value 60 is out of range 0-59"},
      {__LINE__, "0 0 24 * * ?", CHIME_EPARSE, 5,
       "hour field, column 5: value 24"},
      {__LINE__, "0 0 0 32 * ?", CHIME_EPARSE, 7,
       "day-of-month field, column 7: value 32"},
      {__LINE__, "0 0 0 0 * ?", CHIME_EPARSE, 7,
       "day-of-month field, column 7: value 0"},
      {__LINE__, "0 0 0 ? 13 *", CHIME_EPARSE, 9,
       "month field, column 9: value 13"},
      {__LINE__, "0 0 0 ? * 8", CHIME_EPARSE, 11,
       "day-of-week field, column 11: value 8"},
      {__LINE__, "0 0 0 ? * 0", CHIME_EPARSE, 11,
       "day-of-week field, column 11: value 0"},
      {__LINE__, "0 0 0 * * ? 1969", CHIME_EPARSE, 13,
       "year field, column 13: value 1969 is out of range 1970-2199"},
      {__LINE__, "0 0 0 * * ? 2200", CHIME_EPARSE, 13,
       "year field, column 13: value 2200"},
      {__LINE__, "0 0 0 * * ? 2030-2026", CHIME_EPARSE, 13,
       "year field, column 13: year range 2030-2026 ends"},
      {__LINE__, "0 0 12345 * * ?", CHIME_EPARSE, 5,
       "hour field, column 5: number '1234...' is too long"},
      /* Names. */
      {__LINE__, "0 0 0 ? * FOO", CHIME_EPARSE, 11,
       "day-of-week field, column 11: unknown day name 'FOO'"},
      {__LINE__, "0 0 0 ? JANUARY *", CHIME_EPARSE, 9,
       "month field, column 9: unknown month name 'JANUARY'"},
      {__LINE__, "0 0 MON * * ?", CHIME_EPARSE, 5,
       "hour field, column 5: names are not allowed here"},
      {__LINE__, "0 0 0 ? JAN-3 *", CHIME_EPARSE, 9,
       "month field, column 9: a range mixes"},
      {__LINE__, "0 0 0 ? * MON-FRI/2", CHIME_EPARSE, 18,
       "day-of-week field, column 18: an increment after a name"},
      /* Increments. */
      {__LINE__, "*/60 0 0 * * ?", CHIME_EPARSE, 3,
       "second field, column 3: increment 60 is out of range 1-59"},
      {__LINE__, "0 0 5/24 * * ?", CHIME_EPARSE, 7,
       "hour field, column 7: increment 24"},
      {__LINE__, "0 0 */0 * * ?", CHIME_EPARSE, 7,
       "hour field, column 7: increment must be at least 1"},
      {__LINE__, "0 0 1/ * * ?", CHIME_EPARSE, 7,
       "hour field, column 7: a number is missing"},
      {__LINE__, "0 0 / * * ?", CHIME_EPARSE, 5,
       "hour field, column 5: '/' must be followed"},
      /* Day forms. */
      {__LINE__, "0 0 0 L-31 * ?", CHIME_EPARSE, 9,
       "day-of-month field, column 9: offset from the last day 31"},
      {__LINE__, "0 0 0 L,15 * ?", CHIME_EPARSE, 7,
       "day-of-month field, column 7: 'L' cannot be combined"},
      {__LINE__, "0 0 0 1,15W * ?", CHIME_EPARSE, 9,
       "day-of-month field, column 9: 'W' cannot be combined"},
      {__LINE__, "0 0 0 ? * MON#6", CHIME_EPARSE, 15,
       "day-of-week field, column 15: '#' must be followed by 1-5"},
      {__LINE__, "0 0 0 ? * MON#2,FRI", CHIME_EPARSE, 11,
       "day-of-week field, column 11: '#' cannot be combined"},
      {__LINE__, "0 0 0 ? * 5L,6", CHIME_EPARSE, 11,
       "day-of-week field, column 11: 'L' cannot be combined"},
      {__LINE__, "0 0 12W * * ?", CHIME_EPARSE, 7,
       "hour field, column 7: unexpected character 'W'"},
      /* Stray characters. */
      {__LINE__, "0 0 1,,2 * * ?", CHIME_EPARSE, 7,
       "hour field, column 7: empty element"},
      {__LINE__, "0 0 *5 * * ?", CHIME_EPARSE, 6,
       "hour field, column 6: unexpected character '5'"},
      {__LINE__, "0 0 1-x * * ?", CHIME_EPARSE, 7,
       "hour field, column 7: names are not allowed"},
      {__LINE__, "0 0 12 * * ?\n", CHIME_EPARSE, 13,
       "day-of-week field, column 13: unexpected character byte 0x0a"},
      {__LINE__, "foo bar", CHIME_EPARSE, 1,
       "second field, column 1: names are not allowed"},
  };
  for (size_t i = 0; i < NROWS(rows); i++) {
    chime_cron *cron = NULL;
    char err[200] = "unchanged";
    int col = -1;
    int r = chime_cron_from_string(rows[i].expr, &cron, &col, err, sizeof err);
    bool ok = r == rows[i].code && col == rows[i].column &&
              strncmp(err, rows[i].message, strlen(rows[i].message)) == 0;
    if (!ok)
      printf("\n  line %d: '%s': got %d, column %d, \"%s\"\n", rows[i].line,
             rows[i].expr, r, col, err);
    CU_ASSERT(ok);
    CU_ASSERT_PTR_NULL(cron);
  }
}

void test_cron_limits_and_arguments(void) {
  static char longer[CHIME_CRON_MAX_LEN + 2];
  memset(longer, ' ', sizeof longer - 1);
  memcpy(longer, "0 0 12 * * ?", 12);
  chime_cron *cron = NULL;
  char err[100];
  CU_ASSERT_EQUAL(chime_cron_from_string(longer, &cron, NULL, err, sizeof err),
                  CHIME_ELIMIT);
  CU_ASSERT_PTR_NULL(cron);
  longer[CHIME_CRON_MAX_LEN] = '\0';
  CU_ASSERT_EQUAL(chime_cron_from_string(longer, &cron, NULL, NULL, 0), 0);
  chime_cron_free(cron);
  CU_ASSERT_EQUAL(chime_cron_from_string(NULL, &cron, NULL, NULL, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_cron_from_string("* * * * * ?", NULL, NULL, NULL, 0),
                  CHIME_EINVAL);
  const chime_zone *utc_zone;
  int64_t next = 42;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get("UTC", &utc_zone), 0);
  CU_ASSERT_EQUAL(chime_cron_next(NULL, utc_zone, 0, &next), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_cron_from_string("* * * * * ?", &cron, NULL, NULL, 0),
                  0);
  CU_ASSERT_EQUAL(chime_cron_next(cron, NULL, 0, &next), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_cron_next(cron, utc_zone, 0, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_cron_next(cron, utc_zone, INT64_MAX, &next),
                  CHIME_ENEVERFIRES);
  CU_ASSERT_EQUAL(next, 42); /* untouched on error */
  CU_ASSERT_EQUAL(chime_cron_describe(NULL, NULL), CHIME_EINVAL);
  chime_cron_free(cron);
  chime_cron_free(NULL);
}

/* Two compiled expressions are the same schedule. */
static bool same_compiled(const chime_cron *a, const chime_cron *b) {
  chime_cron x = *a, y = *b;
  x.text = y.text = NULL;
  return memcmp(&x, &y, sizeof x) == 0;
}

void test_cron_round_trip_and_case(void) {
  static const char *const exprs[] = {
      "0 15 10 ? * MON-FRI",
      "0 0/5 14,18 * * ?",
      "0 0 12 1/5 * ?",
      "0 11 11 11 11 ?",
      "0 15 10 L-2 * ? 2026-2030",
      "0 15 10 ? * 6#3",
      "* * * LW * ?",
      "0 0 0 15W * ?",
      "\t0  0 12 * JAN,MAR ?  ",
  };
  for (size_t i = 0; i < NROWS(exprs); i++) {
    chime_cron *a = NULL, *b = NULL;
    CU_ASSERT_EQUAL_FATAL(chime_cron_from_string(exprs[i], &a, NULL, NULL, 0),
                          0);
    CU_ASSERT_STRING_EQUAL(chime_cron_to_string(a), exprs[i]);
    CU_ASSERT_EQUAL_FATAL(
        chime_cron_from_string(chime_cron_to_string(a), &b, NULL, NULL, 0), 0);
    CU_ASSERT(same_compiled(a, b));
    chime_cron_free(a);
    chime_cron_free(b);
  }
  chime_cron *upper = NULL, *lower = NULL;
  CU_ASSERT_EQUAL(
      chime_cron_from_string("0 0 12 ? JAN-MAR MON-FRI", &upper, NULL, NULL, 0),
      0);
  CU_ASSERT_EQUAL(
      chime_cron_from_string("0 0 12 ? jan-Mar mon-fri", &lower, NULL, NULL, 0),
      0);
  CU_ASSERT(same_compiled(upper, lower));
  chime_cron_free(upper);
  chime_cron_free(lower);
}

void test_cron_describe(void) {
  static const struct {
    int line;
    const char *expr, *text;
  } rows[] = {
      {__LINE__, "0 15 10 * * ?", "at 10:15:00, every day"},
      {__LINE__, "0 0/5 9-17 ? * MON-FRI",
       "second 0, every 5 minutes, hours 9-17, on Monday-Friday"},
      {__LINE__, "* * * * * ?",
       "every second, every minute, every hour, every day"},
      {__LINE__, "0 0 12 L-3 JAN,JUL ? 2027",
       "at 12:00:00, on the last day of the month minus 3 days, in "
       "January,July, in 2027"},
      {__LINE__, "0 0 12 LW * ?",
       "at 12:00:00, on the weekday nearest the last day of the month"},
      {__LINE__, "0 0 12 L-1W * ?",
       "at 12:00:00, on the weekday nearest the last day of the month minus 1 "
       "day"},
      {__LINE__, "0 0 12 15W * ?",
       "at 12:00:00, on the weekday nearest day 15 of the month"},
      {__LINE__, "0 0 12 ? * 6L",
       "at 12:00:00, on the last Friday of the month"},
      {__LINE__, "0 0 12 ? * 2#1",
       "at 12:00:00, on the 1st Monday of the month"},
      {__LINE__, "10/20 0 12 1,2,15 * ? 2026-2028,2030",
       "every 20 seconds from second 10, minute 0, hour 12, on days 1,2,15 of "
       "the month, in years 2026-2028,2030"},
  };
  for (size_t i = 0; i < NROWS(rows); i++) {
    chime_cron *cron = NULL;
    char *text = NULL;
    CU_ASSERT_EQUAL_FATAL(
        chime_cron_from_string(rows[i].expr, &cron, NULL, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(chime_cron_describe(cron, &text), 0);
    if (strcmp(text, rows[i].text) != 0)
      printf("\n  line %d: got \"%s\"\n", rows[i].line, text);
    CU_ASSERT_STRING_EQUAL(text, rows[i].text);
    chime_free(text);
    chime_cron_free(cron);
  }
}
