/*
 * test-time-text.c: an instant as text in a zone and back
 * (chime_zone_format_time, chime_zone_parse_time).  The instants are
 * written out as epoch milliseconds; zdump(8) says where Berlin's 2026
 * transitions fall (29 March and 25 October, 01:00 UTC) and that Monrovia
 * kept -00:44:30 until 1972.
 */
#include "chime.h"
#include "harness.h"

#include <string.h>

#define GAP_BEFORE INT64_C(1774745999000) /* 2026-03-29T00:59:59Z */
#define GAP_AFTER INT64_C(1774746000000)  /* 2026-03-29T01:00:00Z */
#define GAP_0130Z INT64_C(1774747800000)  /* 2026-03-29T01:30:00Z */
#define FIRST_0230 INT64_C(1792888200000) /* 2026-10-25T00:30:00Z */
#define LATER_0230 INT64_C(1792891800000) /* 2026-10-25T01:30:00Z */
#define LEAP_NOON INT64_C(1709208000000)  /* 2024-02-29T12:00:00Z */

/* Formats t_ms in zone with flags and checks the text. */
static void check_format(const char *zone, int64_t t_ms, unsigned flags,
                         const char *want) {
  char buf[CHIME_TIME_TEXT_LEN];
  CU_ASSERT_EQUAL(chime_zone_format_time(zone, t_ms, flags, buf, sizeof buf),
                  0);
  CU_ASSERT_STRING_EQUAL(buf, want);
  if (strcmp(buf, want) != 0)
    fprintf(stderr, "%lld in %s: \"%s\", not \"%s\"\n", (long long)t_ms,
            zone ? zone : "UTC", buf, want);
}

/* Parses text in zone and checks the instant. */
static void check_parse(const char *zone, const char *text, int64_t want) {
  int64_t got = 0;
  CU_ASSERT_EQUAL(chime_zone_parse_time(zone, text, &got), 0);
  CU_ASSERT_EQUAL(got, want);
  if (got != want)
    fprintf(stderr, "\"%s\" in %s: %lld, not %lld\n", text, zone ? zone : "UTC",
            (long long)got, (long long)want);
}

static void test_time_text_utc(void) {
  check_format(NULL, 0, 0, "1970-01-01 00:00:00Z");
  check_format(NULL, 0, CHIME_TIME_ISO, "1970-01-01T00:00:00+00:00");
  check_format(NULL, 1500, CHIME_TIME_ISO, "1970-01-01T00:00:01.500+00:00");
  check_format(NULL, -1, 0, "1969-12-31 23:59:59Z");
  check_format("UTC", LEAP_NOON, 0, "2024-02-29 12:00:00Z");
  check_parse(NULL, "2024-02-29T12:00:00Z", LEAP_NOON);
  check_parse(NULL, "2024-02-29 12:00", LEAP_NOON);
  check_parse(NULL, "2024-02-29", LEAP_NOON - 12 * INT64_C(3600000));
  check_parse(NULL, "1970-01-01T00:00:01.500", 1500);
  check_parse("UTC", "2024-02-29T13:30:00+01:30", LEAP_NOON);
  check_parse(NULL, "2024-02-29T10:00-0200", LEAP_NOON);
}

static void test_time_text_dst_gap(void) {
  const char *z = "Europe/Berlin";
  check_format(z, GAP_BEFORE, 0, "2026-03-29 01:59:59+01:00");
  check_format(z, GAP_AFTER, 0, "2026-03-29 03:00:00+02:00");
  check_format(z, GAP_AFTER, CHIME_TIME_ISO, "2026-03-29T03:00:00+02:00");
  /* 02:30 does not exist that day: moved forward by the gap, 03:30. */
  check_parse(z, "2026-03-29T02:30", GAP_0130Z);
  check_parse(z, "2026-03-29T03:30", GAP_0130Z);
  check_parse(z, "2026-03-29T01:59:59", GAP_BEFORE);
}

static void test_time_text_dst_overlap(void) {
  const char *z = "Europe/Berlin";
  /* 02:30 comes twice: each pass shows its own offset. */
  check_format(z, FIRST_0230, 0, "2026-10-25 02:30:00+02:00");
  check_format(z, LATER_0230, 0, "2026-10-25 02:30:00+01:00");
  /* Read back: the earlier pass, unless the offset says which. */
  check_parse(z, "2026-10-25 02:30", FIRST_0230);
  check_parse(z, "2026-10-25T02:30:00+01:00", LATER_0230);
  check_parse(z, "2026-10-25T02:30:00+02:00", FIRST_0230);
}

static void test_time_text_offset_seconds(void) {
  /* Monrovia's -00:44:30: ISO keeps the seconds, the default drops them. */
  check_format("Africa/Monrovia", 0, CHIME_TIME_ISO,
               "1969-12-31T23:15:30-00:44:30");
  check_format("Africa/Monrovia", 0, 0, "1969-12-31 23:15:30-00:44");
}

static void test_time_text_errors(void) {
  char buf[CHIME_TIME_TEXT_LEN];
  int64_t t = 0;
  CU_ASSERT_EQUAL(
      chime_zone_format_time("Nowhere/Atlantis", 0, 0, buf, sizeof buf),
      CHIME_EUNKNOWNZONE);
  CU_ASSERT_EQUAL(chime_zone_parse_time("Nowhere/Atlantis", "2026-01-01", &t),
                  CHIME_EUNKNOWNZONE);
  CU_ASSERT_EQUAL(chime_zone_format_time("", 0, 0, buf, sizeof buf),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_zone_format_time(NULL, 0, 0, NULL, 8), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_zone_format_time(NULL, 0, 0, buf, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_zone_format_time(NULL, 0, 4, buf, sizeof buf),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_zone_format_time(NULL, 0, 0, buf, 11), CHIME_ELIMIT);
  CU_ASSERT_STRING_EQUAL(buf, "1970-01-01");
  CU_ASSERT_EQUAL(chime_zone_parse_time(NULL, NULL, &t), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_zone_parse_time(NULL, "2026-01-01", NULL),
                  CHIME_EINVAL);
  static const char *const bad[] = {
      "",
      "garbage",
      "2026-02-29",
      "2024-02-30",
      "2026-13-01",
      "2026-00-10",
      "2026-01-01T24:00",
      "2026-01-01T10:60",
      "2026-1-01",
      "2026-01-01T10:00+25:00",
      "2026-01-01T10:00 ",
      "2026-01-01T10:00:00.5",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int r = chime_zone_parse_time("Europe/Berlin", bad[i], &t);
    CU_ASSERT_EQUAL(r, CHIME_EINVAL);
    if (r != CHIME_EINVAL)
      fprintf(stderr, "\"%s\" was read (%d)\n", bad[i], r);
  }
}

static CU_TestInfo time_text_tests[] = {
    {"UTC, both forms, designators", test_time_text_utc},
    {"a DST gap (Berlin, spring)", test_time_text_dst_gap},
    {"a DST overlap (Berlin, autumn)", test_time_text_dst_overlap},
    {"an offset with seconds", test_time_text_offset_seconds},
    {"bad zones, arguments and texts", test_time_text_errors},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/time-text", .pTests = time_text_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
