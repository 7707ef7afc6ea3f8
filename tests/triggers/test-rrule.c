/*
 * test-rrule.c: RFC 5545 recurrences (chime_rrule).  The corpus
 * tests/data/rrule/rrule-dateutil.tsv (made by gen_rrule_corpus.py beside
 * it, from python3-dateutil's rrule) is replayed in full: each case's
 * instances after after_ms must match exactly.  Hand cases pin what the
 * corpus cannot: DTSTART is the first instance, the DST rule of RFC 5545
 * 3.3.5, and the parser's errors.
 */
#include "chime.h"
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIRES 64

/* Replays one case; prints and returns 1 when it fails. */
static int run_case(char **f) {
  const char *id = f[0], *text = f[1], *expected = f[4];
  int64_t t = strtoll(f[2], NULL, 10);
  int count = (int)strtol(f[3], NULL, 10);
  int64_t want[MAX_FIRES];
  int nwant = 0;
  for (const char *s = expected;
       strcmp(expected, "NONE") != 0 && *s != '\0' && nwant < MAX_FIRES;) {
    char *end;
    want[nwant++] = strtoll(s, &end, 10);
    s = end;
    while (*s == ' ')
      s++;
  }
  chime_rrule *rule = NULL;
  char err[256];
  int r = chime_rrule_from_string(text, &rule, err, sizeof err);
  if (r != 0) {
    printf("\n  case %s: rejected: %s", id, err);
    return 1;
  }
  int failed = 0;
  for (int i = 0; i < count && !failed; i++) {
    int64_t next = 0;
    r = chime_rrule_next(rule, t, &next);
    if (i >= nwant) {
      if (r != CHIME_ENEVERFIRES) {
        printf("\n  case %s: instance %d: want none, got %" PRId64, id, i,
               next);
        failed = 1;
      }
      break;
    }
    if (r != 0 || next != want[i]) {
      printf("\n  case %s (%s): instance %d after %" PRId64 ": want %" PRId64
             ", got %" PRId64 " (%d)",
             id, text, i, t, want[i], next, r);
      failed = 1;
    }
    t = next;
  }
  chime_rrule_free(rule);
  return failed;
}

static void test_rrule_dateutil_corpus(void) {
  FILE *f = fopen(chime_test_data_path("rrule/rrule-dateutil.tsv"), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char line[16384];
  int failures = 0, cases = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0')
      continue;
    char *fields[5];
    int k = 0;
    for (char *p = line; k < 5; k++) {
      fields[k] = p;
      char *tab = strchr(p, '\t');
      if (tab == NULL) {
        k++;
        break;
      }
      *tab = '\0';
      p = tab + 1;
    }
    if (k != 5) {
      printf("\n  malformed line %s", line);
      failures++;
      continue;
    }
    failures += run_case(fields);
    cases++;
  }
  fclose(f);
  CU_ASSERT_EQUAL(failures, 0);
  CU_ASSERT(cases >= 500);
}

/* The first instances of text after after_ms, in *out; returns how many. */
static int first(const char *text, int64_t after_ms, int64_t *out, int n) {
  chime_rrule *rule = NULL;
  char err[256];
  int r = chime_rrule_from_string(text, &rule, err, sizeof err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  int k = 0;
  for (; k < n && chime_rrule_next(rule, after_ms, &out[k]) == 0; k++)
    after_ms = out[k];
  chime_rrule_free(rule);
  return k;
}

/* DTSTART is the first instance even where the rule does not match it. */
static void test_rrule_dtstart_first(void) {
  int64_t t[3];
  /* 2026-01-05 is a Monday; the last Friday of January is the 30th. */
  CU_ASSERT_EQUAL(first("DTSTART;TZID=Europe/Paris:20260105T090000\n"
                        "RRULE:FREQ=MONTHLY;BYDAY=-1FR",
                        0, t, 3),
                  3);
  CU_ASSERT_EQUAL(t[0], INT64_C(1767600000000)); /* 2026-01-05T08:00Z */
  CU_ASSERT_EQUAL(t[1], INT64_C(1769760000000)); /* 2026-01-30T08:00Z */
  CU_ASSERT_EQUAL(t[2], INT64_C(1772179200000)); /* 2026-02-27T08:00Z */
  /* COUNT counts DTSTART. */
  CU_ASSERT_EQUAL(first("DTSTART:20260105T090000Z RRULE:FREQ=MONTHLY;"
                        "BYDAY=-1FR;COUNT=2",
                        0, t, 3),
                  2);
}

/* RFC 5545 3.3.5: a gap time moves forward, a repeated time is its first. */
static void test_rrule_dst(void) {
  int64_t t[2];
  /* 2026-03-29 02:30 does not exist in Paris: 03:30 CEST = 01:30Z. */
  CU_ASSERT_EQUAL(first("DTSTART;TZID=Europe/Paris:20260328T023000 "
                        "RRULE:FREQ=DAILY;COUNT=2",
                        INT64_C(1774661400000), t, 1),
                  1);
  CU_ASSERT_EQUAL(t[0], INT64_C(1774747800000));
  /* 2026-10-25 02:30 happens twice: the first pass, 00:30Z. */
  CU_ASSERT_EQUAL(first("DTSTART;TZID=Europe/Paris:20261024T023000 "
                        "RRULE:FREQ=DAILY;COUNT=2",
                        INT64_C(1792801800000), t, 1),
                  1);
  CU_ASSERT_EQUAL(t[0], INT64_C(1792888200000));
}

static void test_rrule_errors(void) {
  chime_rrule *rule = NULL;
  char err[256];
  CU_ASSERT_EQUAL(
      chime_rrule_from_string("RRULE:FREQ=DAILY", &rule, err, sizeof err),
      CHIME_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "DTSTART is required"));
  CU_ASSERT_EQUAL(chime_rrule_from_string("DTSTART:2026 RRULE:FREQ=DAILY",
                                          &rule, err, sizeof err),
                  CHIME_EPARSE);
  CU_ASSERT_EQUAL(
      chime_rrule_from_string("DTSTART:20260101T000000Z RRULE:FREQ=SOMETIMES",
                              &rule, err, sizeof err),
      CHIME_EPARSE);
  CU_ASSERT_EQUAL(chime_rrule_from_string(
                      "DTSTART;TZID=Mars/Base:20260101T000000 RRULE:FREQ=DAILY",
                      &rule, err, sizeof err),
                  CHIME_EUNKNOWNZONE);
  /* What RFC 5545 forbids is an error, not read some other way. */
  static const struct {
    const char *rule, *says;
  } forbidden[] = {
      {"FREQ=DAILY;COUNT=2;UNTIL=20270101T000000Z", "COUNT and UNTIL"},
      {"FREQ=MONTHLY;BYWEEKNO=3", "BYWEEKNO"},
      {"FREQ=WEEKLY;BYDAY=2MO", "ordinal"},
      {"FREQ=WEEKLY;BYMONTHDAY=3", "BYMONTHDAY"},
      {"FREQ=DAILY;BYYEARDAY=3", "BYYEARDAY"},
      {"FREQ=MONTHLY;BYMONTHDAY=0", "BYMONTHDAY"},
      {"FREQ=DAILY;BYHOUR=24", "BYHOUR"},
      {"FREQ=DAILY;INTERVAL=0", "INTERVAL"},
      {"FREQ=SECONDLY;COUNT=100001", "1..100000"},
      {"FREQ=DAILY;BYDAY=XX", "BYDAY"},
      {"FREQ=DAILY;FREQ=WEEKLY", "twice"},
      {"FREQ=DAILY;COLOR=RED", "unknown part"},
      {"INTERVAL=2", "FREQ is required"},
  };
  for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "DTSTART:20260101T000000Z RRULE:%s",
             forbidden[i].rule);
    CU_ASSERT_EQUAL(chime_rrule_from_string(text, &rule, err, sizeof err),
                    CHIME_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, forbidden[i].says));
  }
  CU_ASSERT_EQUAL(chime_rrule_from_string(NULL, &rule, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(rule);
  CU_ASSERT_EQUAL(chime_rrule_next(NULL, 0, NULL), CHIME_EINVAL);
  chime_rrule_free(NULL);
}

/*
 * A far-future answer skips whole periods: a SECONDLY rule that matches one
 * second a year, asked 374 years after DTSTART, answers at once (a walk
 * second by second would take billions of steps).
 */
static void test_rrule_far_future(void) {
  int64_t t[2];
  /* Paris 2400-01-01T00:00 is 13569462000000; 2400-12-25T07:00+01:00. */
  CU_ASSERT_EQUAL(first("DTSTART;TZID=Europe/Paris:20260105T090000 "
                        "RRULE:FREQ=SECONDLY;BYMONTH=12;BYMONTHDAY=25;"
                        "BYHOUR=7;BYMINUTE=0;BYSECOND=0",
                        INT64_C(13569462000000), t, 2),
                  2);
  CU_ASSERT_EQUAL(t[0], INT64_C(13600504800000));
  CU_ASSERT_EQUAL(t[1], INT64_C(13600504800000) + 365 * INT64_C(86400000));
}

/* A rule that never matches again answers "no next fire", not a hang. */
static void test_rrule_never_again(void) {
  static const char *const never[] = {
      /* February never has a 30th. */
      "DTSTART:20260101T000000Z RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
      /* Every other second from an even one: never an odd second. */
      "DTSTART:20260101T000000Z RRULE:FREQ=SECONDLY;INTERVAL=2;BYSECOND=1",
      /* 2025 + 4k is never a leap year. */
      "DTSTART:20250301T000000Z RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=2;"
      "BYMONTHDAY=29",
      /* Hours 0, 6, 12 and 18 every day, read only at 7. */
      "DTSTART:20260101T000000Z RRULE:FREQ=HOURLY;INTERVAL=6;BYHOUR=7",
      /* A SECONDLY period holds one instance: never a second (found by
       * fuzz-rrule: the search walked every 21 seconds for 2800 years). */
      "DTSTART:20240102T000000Z RRULE:FREQ=SECONDLY;INTERVAL=21;BYSETPOS=2",
      /* Week 53 never falls in June. */
      "DTSTART:20260101T000000Z RRULE:FREQ=YEARLY;BYWEEKNO=53;BYMONTH=6",
  };
  for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
    chime_rrule *rule = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(
        chime_rrule_from_string(never[i], &rule, err, sizeof err), 0);
    int64_t next = 0;
    /* DTSTART itself is the one instance (RFC 5545), then none. */
    CU_ASSERT_EQUAL(chime_rrule_next(rule, INT64_C(1767225600000), &next),
                    CHIME_ENEVERFIRES);
    chime_rrule_free(rule);
  }
}

/* BYSETPOS picks by position in each period: the last work day of the
 * month, and the first and last of a quarter's work days. */
static void test_rrule_setpos(void) {
  int64_t t[3];
  CU_ASSERT_EQUAL(first("DTSTART:20260130T170000Z RRULE:FREQ=MONTHLY;"
                        "BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
                        INT64_C(1769792400000), t, 3),
                  3);
  CU_ASSERT_EQUAL(t[0], INT64_C(1772211600000)); /* Fri 2026-02-27 17:00Z */
  CU_ASSERT_EQUAL(t[1], INT64_C(1774976400000)); /* Tue 2026-03-31 17:00Z */
  CU_ASSERT_EQUAL(t[2], INT64_C(1777568400000)); /* Thu 2026-04-30 17:00Z */
}

static CU_TestInfo rrule_tests[] = {
    {"python-dateutil corpus (rrule-dateutil.tsv)", test_rrule_dateutil_corpus},
    {"DTSTART is the first instance", test_rrule_dtstart_first},
    {"DST: gap moves forward, repeat is its first pass", test_rrule_dst},
    {"errors", test_rrule_errors},
    {"a far-future answer skips whole periods", test_rrule_far_future},
    {"a rule that never matches again: no next fire", test_rrule_never_again},
    {"BYSETPOS", test_rrule_setpos},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/rrule", .pTests = rrule_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
