/*
 * test-tz.c: time zones.  zdump(8) is the oracle for the transition tables
 * of real zones; DST dates past the tables (the POSIX footer rule) are
 * computed here independently, with a weekday formula and day counting of
 * the test's own; hand-built TZif images test the parser's defences.
 */
#include "chime.h"
#include "harness.h"
#include "triggers/tz.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ independent date helpers */

static bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_len(int64_t y, int m) {
  static const int len[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : len[m - 1];
}

/* Days since 1970-01-01 by counting (slow and obviously right). */
static int64_t days_since_epoch(int64_t y, int m, int d) {
  int64_t days = 0;
  for (int64_t i = 1970; i < y; i++)
    days += leap(i) ? 366 : 365;
  for (int64_t i = y; i < 1970; i++)
    days -= leap(i) ? 366 : 365;
  for (int i = 1; i < m; i++)
    days += month_len(y, i);
  return days + d - 1;
}

/* Sakamoto's weekday, 0 = Sunday. */
static int weekday(int64_t y, int m, int d) {
  static const int t[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
  if (m < 3)
    y--;
  return (int)((y + y / 4 - y / 100 + y / 400 + t[m - 1] + d) % 7);
}

/* Day of month of the n-th (1-4) or last (n = 5) weekday wd of a month. */
static int nth_weekday(int64_t y, int m, int n, int wd) {
  int d = 1 + (wd - weekday(y, m, 1) + 7) % 7 + (n - 1) * 7;
  while (d > month_len(y, m))
    d -= 7;
  return d;
}

static int64_t utc_ms(int64_t y, int m, int d, int hh, int mm, int ss) {
  return ((days_since_epoch(y, m, d) * 24 + hh) * 60 + mm) * INT64_C(60000) +
         ss * INT64_C(1000);
}

static chime_civil civil(int64_t y, int m, int d, int hh, int mm, int ss) {
  return (chime_civil){
      .year = y, .month = m, .day = d, .hour = hh, .minute = mm, .second = ss};
}

static const chime_zone *zone(const char *name) {
  const chime_zone *z = NULL;
  int rc = chime_zone_get(name, &z);
  if (rc != 0)
    fprintf(stderr, "chime_zone_get(%s): %s\n", name, chime_err_name(rc));
  return z;
}

/* ------------------------------------------------------------ zdump oracle */

static int month_of(const char *name) {
  static const char *names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; i++)
    if (strcmp(names[i], name) == 0)
      return i + 1;
  return 0;
}

static int wday_of(const char *name) {
  static const char *names[] = {"Sun", "Mon", "Tue", "Wed",
                                "Thu", "Fri", "Sat"};
  for (int i = 0; i < 7; i++)
    if (strcmp(names[i], name) == 0)
      return i;
  return -1;
}

/*
 * Checks one zdump -v line; returns false when the line is not a
 * transition line ("... = NULL").
 */
static bool check_zdump_line(const chime_zone *z, const char *line) {
  char uwd[4], umon[4], lwd[4], lmon[4];
  int ud, uh, umi, us, ld, lh, lmi, ls, isdst;
  long long uy, ly;
  long gmtoff;
  int n = sscanf(line,
                 "%*s %3s %3s %d %d:%d:%d %lld UT = %3s %3s %d %d:%d:%d %lld "
                 "%*s isdst=%d gmtoff=%ld",
                 uwd, umon, &ud, &uh, &umi, &us, &uy, lwd, lmon, &ld, &lh, &lmi,
                 &ls, &ly, &isdst, &gmtoff);
  if (n != 16)
    return false;
  int64_t t = utc_ms(uy, month_of(umon), ud, uh, umi, us);
  chime_civil c;
  int32_t off = -1;
  chime__zone_to_local(z, t, &c, &off);
  bool ok = c.year == ly && c.month == month_of(lmon) && c.day == ld &&
            c.hour == lh && c.minute == lmi && c.second == ls &&
            c.weekday == wday_of(lwd) && off == gmtoff &&
            chime_zone_get_offset_at(z, t) == off;
  if (!ok)
    fprintf(stderr,
            "\nmismatch for: %s  chime: %04lld-%02d-%02d %02d:%02d:%02d "
            "offset %d\n",
            line, (long long)c.year, c.month, c.day, c.hour, c.minute, c.second,
            (int)off);
  CU_ASSERT(ok);
  return true;
}

static void compare_with_zdump(const char *name) {
  const chime_zone *z = zone(name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(z);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "zdump -v -c 1900,2040 '%s' 2>&1", name);
  FILE *f = popen(cmd, "r");
  if (f == NULL) {
    CU_FAIL("cannot run zdump (Debian: apt-get install libc-bin)");
    return;
  }
  char line[512];
  int checked = 0;
  while (fgets(line, sizeof line, f) != NULL)
    checked += check_zdump_line(z, line);
  int status = pclose(f);
  if (status != 0 || checked == 0) {
    fprintf(stderr,
            "\nzdump failed for %s (status %d, %d lines): is zdump "
            "installed? (Debian: libc-bin)\n",
            name, status, checked);
    CU_FAIL("zdump is missing or printed no transitions");
  }
  /* zdump prints each transition and the second before it. */
  CU_ASSERT(checked >= 4);
}

static void test_tz_matches_zdump(void) {
  static const char *zones[] = {
      "America/New_York",  "Europe/London",   "Australia/Lord_Howe",
      "Asia/Kolkata",      "Pacific/Chatham", "America/Sao_Paulo",
      "Africa/Casablanca", "Europe/Dublin",   "America/Santiago",
  };
  for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++)
    compare_with_zdump(zones[i]);
}

/* ------------------------------------------------- the footer rule, far out */

static void check_offset_switch(const chime_zone *z, int64_t t, int32_t before,
                                int32_t after, int line) {
  int32_t b = chime_zone_get_offset_at(z, t - 1000);
  int32_t a = chime_zone_get_offset_at(z, t);
  if (b != before || a != after)
    fprintf(stderr, "\nrow at line %d: %d -> %d, expected %d -> %d\n", line,
            (int)b, (int)a, (int)before, (int)after);
  CU_ASSERT(b == before && a == after);
}

static void test_tz_footer_rule_new_york_and_london(void) {
  const chime_zone *ny = zone("America/New_York");
  const chime_zone *lon = zone("Europe/London");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ny);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lon);
  static const int64_t years[] = {2037, 2038, 2050, 2099, 2100,
                                  2101, 2200, 2400, 2401, 9999};
  for (size_t i = 0; i < sizeof years / sizeof years[0]; i++) {
    int64_t y = years[i];
    /* New York: second Sunday of March 02:00 EST to first Sunday of
     * November 02:00 EDT. */
    int64_t start = utc_ms(y, 3, nth_weekday(y, 3, 2, 0), 7, 0, 0);
    int64_t end = utc_ms(y, 11, nth_weekday(y, 11, 1, 0), 6, 0, 0);
    check_offset_switch(ny, start, -18000, -14400, __LINE__);
    check_offset_switch(ny, end, -14400, -18000, __LINE__);
    chime_civil c;
    chime__zone_to_local(ny, start, &c, NULL);
    CU_ASSERT(c.year == y && c.month == 3 && c.hour == 3 && c.minute == 0);
    /* London: last Sunday of March and of October, 01:00 UTC. */
    start = utc_ms(y, 3, nth_weekday(y, 3, 5, 0), 1, 0, 0);
    end = utc_ms(y, 10, nth_weekday(y, 10, 5, 0), 1, 0, 0);
    check_offset_switch(lon, start, 0, 3600, __LINE__);
    check_offset_switch(lon, end, 3600, 0, __LINE__);
    /* And mid-season, far from any edge. */
    CU_ASSERT_EQUAL(chime_zone_get_offset_at(ny, utc_ms(y, 7, 1, 12, 0, 0)),
                    -14400);
    CU_ASSERT_EQUAL(chime_zone_get_offset_at(ny, utc_ms(y, 1, 15, 12, 0, 0)),
                    -18000);
  }
}

/* ------------------------------------------------------ local to instants */

static void test_tz_from_local_gap_overlap_normal(void) {
  const chime_zone *ny = zone("America/New_York");
  const chime_zone *lh = zone("Australia/Lord_Howe");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ny);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lh);
  int64_t t[2];
  chime_civil c = civil(2024, 3, 10, 2, 30, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(ny, &c, t), 0);
  c = civil(2024, 11, 3, 1, 30, 0);
  CU_ASSERT_EQUAL_FATAL(chime__zone_from_local(ny, &c, t), 2);
  CU_ASSERT_EQUAL(t[0], utc_ms(2024, 11, 3, 5, 30, 0));
  CU_ASSERT_EQUAL(t[1] - t[0], 3600000);
  c = civil(2024, 7, 1, 12, 0, 0);
  c.millisecond = 250;
  CU_ASSERT_EQUAL_FATAL(chime__zone_from_local(ny, &c, t), 1);
  CU_ASSERT_EQUAL(t[0], utc_ms(2024, 7, 1, 16, 0, 0) + 250);
  /* The edges: 03:00 exists, 02:00 does not; 01:00 repeats, 02:00 once. */
  c = civil(2024, 3, 10, 3, 0, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(ny, &c, t), 1);
  c = civil(2024, 3, 10, 2, 0, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(ny, &c, t), 0);
  c = civil(2024, 11, 3, 1, 0, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(ny, &c, t), 2);
  c = civil(2024, 11, 3, 2, 0, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(ny, &c, t), 1);
  /* The footer rule: 2150's fall-back, first Sunday of November. */
  c = civil(2150, 11, nth_weekday(2150, 11, 1, 0), 1, 15, 0);
  CU_ASSERT_EQUAL_FATAL(chime__zone_from_local(ny, &c, t), 2);
  CU_ASSERT_EQUAL(t[1] - t[0], 3600000);
  c = civil(2150, 3, nth_weekday(2150, 3, 2, 0), 2, 15, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(ny, &c, t), 0);
  /* Lord Howe moves 30 minutes: first Sunday of April and of October. */
  c = civil(2024, 4, 7, 1, 45, 0);
  CU_ASSERT_EQUAL_FATAL(chime__zone_from_local(lh, &c, t), 2);
  CU_ASSERT_EQUAL(t[1] - t[0], 1800000);
  c = civil(2024, 10, 6, 2, 15, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(lh, &c, t), 0);
  c = civil(2024, 10, 6, 2, 30, 0);
  CU_ASSERT_EQUAL(chime__zone_from_local(lh, &c, t), 1);
}

static void test_tz_from_local_round_trips(void) {
  const char *names[] = {"Europe/Berlin", "Pacific/Chatham", "Asia/Kolkata",
                         "America/Sao_Paulo", "Australia/Lord_Howe"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const chime_zone *z = zone(names[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(z);
    /* Every 7 hours 13 minutes from 1900 to 2150: to_local then back. */
    for (int64_t t = utc_ms(1900, 1, 1, 0, 0, 0);
         t < utc_ms(2150, 1, 1, 0, 0, 0); t += 26000000) {
      chime_civil c;
      int64_t back[2];
      chime__zone_to_local(z, t, &c, NULL);
      int n = chime__zone_from_local(z, &c, back);
      bool ok = (n == 1 && back[0] == t) ||
                (n == 2 && (back[0] == t || back[1] == t) && back[0] < back[1]);
      if (!ok)
        fprintf(stderr, "\n%s t=%lld n=%d\n", names[i], (long long)t, n);
      CU_ASSERT_FATAL(ok);
    }
  }
}

static void test_tz_resolve_local_like_java(void) {
  const chime_zone *ny = zone("America/New_York");
  const chime_zone *lh = zone("Australia/Lord_Howe");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ny);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lh);
  /* A gap moves forward by its length: 02:30 EST is 03:30 EDT. */
  chime_civil c = civil(2024, 3, 10, 2, 30, 0);
  CU_ASSERT_EQUAL(chime__zone_resolve_local(ny, &c),
                  utc_ms(2024, 3, 10, 7, 30, 0));
  /* An overlap takes the later, standard-time instant (01:30 EST). */
  c = civil(2024, 11, 3, 1, 30, 0);
  CU_ASSERT_EQUAL(chime__zone_resolve_local(ny, &c),
                  utc_ms(2024, 11, 3, 6, 30, 0));
  c = civil(2024, 7, 4, 9, 0, 0);
  CU_ASSERT_EQUAL(chime__zone_resolve_local(ny, &c),
                  utc_ms(2024, 7, 4, 13, 0, 0));
  /* The same past the table. */
  int sun = nth_weekday(2300, 3, 2, 0);
  c = civil(2300, 3, sun, 2, 30, 0);
  CU_ASSERT_EQUAL(chime__zone_resolve_local(ny, &c),
                  utc_ms(2300, 3, sun, 7, 30, 0));
  sun = nth_weekday(2300, 11, 1, 0);
  c = civil(2300, 11, sun, 1, 30, 0);
  CU_ASSERT_EQUAL(chime__zone_resolve_local(ny, &c),
                  utc_ms(2300, 11, sun, 6, 30, 0));
  /* Lord Howe's 30-minute gap: 02:10 +1030 is 02:40 +11. */
  c = civil(2024, 10, 6, 2, 10, 0);
  CU_ASSERT_EQUAL(chime__zone_resolve_local(lh, &c),
                  utc_ms(2024, 10, 5, 15, 40, 0));
}

/* ----------------------------------------------------------------- names */

static void test_tz_fixed_offsets_and_utc(void) {
  static const struct {
    const char *name;
    int32_t offset;
    int line;
  } rows[] = {
      {"UTC", 0, __LINE__},
      {"GMT", 0, __LINE__},
      {"Z", 0, __LINE__},
      {"GMT+8", 28800, __LINE__},
      {"GMT-8", -28800, __LINE__},
      {"GMT-03:30", -12600, __LINE__},
      {"UTC+05:30", 19800, __LINE__},
      {"+05:30", 19800, __LINE__},
      {"-0800", -28800, __LINE__},
      {"GMT+830", 30600, __LINE__},
      {"GMT+00", 0, __LINE__},
      {"+23:59", 86340, __LINE__},
      {"Etc/GMT+8", -28800, __LINE__}, /* the POSIX-signed file */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const chime_zone *z = NULL;
    int rc = chime_zone_get(rows[i].name, &z);
    if (rc != 0 || chime_zone_get_offset_at(z, 1700000000000) != rows[i].offset)
      fprintf(stderr, "\nrow at line %d (%s): rc %d\n", rows[i].line,
              rows[i].name, rc);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, 1700000000000), rows[i].offset);
    CU_ASSERT_STRING_EQUAL(chime_zone_get_name(z), rows[i].name);
    chime_civil c;
    chime__zone_to_local(z, 0, &c, NULL);
    CU_ASSERT_EQUAL(c.hour * 3600 + c.minute * 60,
                    (rows[i].offset + 86400) % 86400);
  }
  const chime_zone *a = NULL, *b = NULL;
  CU_ASSERT_EQUAL(chime_zone_get("Europe/Paris", &a), 0);
  CU_ASSERT_EQUAL(chime_zone_get("Europe/Paris", &b), 0);
  CU_ASSERT_PTR_EQUAL(a, b);
}

static void test_tz_unknown_and_invalid_names(void) {
  static const struct {
    const char *name;
    int rc;
    int line;
  } rows[] = {
      {"Mars/Olympus", CHIME_EUNKNOWNZONE, __LINE__},
      {"", CHIME_EINVAL, __LINE__},
      {"../../etc/passwd", CHIME_EUNKNOWNZONE, __LINE__},
      {"/etc/passwd", CHIME_EUNKNOWNZONE, __LINE__},
      {"Europe/", CHIME_EUNKNOWNZONE, __LINE__},
      {"Europe", CHIME_EUNKNOWNZONE, __LINE__}, /* a directory */
      {"Europe//London", CHIME_EUNKNOWNZONE, __LINE__},
      {"Europe/London ", CHIME_EUNKNOWNZONE, __LINE__},
      {"zone.tab", CHIME_EUNKNOWNZONE, __LINE__},
      {"leapseconds", CHIME_EUNKNOWNZONE, __LINE__}, /* not TZif */
      {"GMT+24", CHIME_EUNKNOWNZONE, __LINE__},
      {"GMT+5:3", CHIME_EUNKNOWNZONE, __LINE__},
      {"+12345", CHIME_EUNKNOWNZONE, __LINE__},
      {"utc", CHIME_EUNKNOWNZONE, __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const chime_zone *z = (const chime_zone *)&rows[i];
    int rc = chime_zone_get(rows[i].name, &z);
    if (rc != rows[i].rc)
      fprintf(stderr, "\nrow at line %d (%s): %s\n", rows[i].line, rows[i].name,
              chime_err_name(rc));
    CU_ASSERT_EQUAL(rc, rows[i].rc);
    CU_ASSERT_PTR_EQUAL(z, (const chime_zone *)&rows[i]); /* untouched */
  }
  char longname[300];
  memset(longname, 'A', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  const chime_zone *z = NULL;
  CU_ASSERT_EQUAL(chime_zone_get(longname, &z), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_zone_get(NULL, &z), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_zone_get("UTC", NULL), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(chime_zone_get_name(NULL));
}

/* ------------------------------------------------------- TZif images */

typedef struct image {
  uint8_t buf[8192];
  size_t len;
} image;

static void put32(image *im, uint32_t v) {
  for (int i = 3; i >= 0; i--)
    im->buf[im->len++] = (uint8_t)(v >> (8 * i));
}

static void put64(image *im, int64_t v) {
  put32(im, (uint32_t)((uint64_t)v >> 32));
  put32(im, (uint32_t)v);
}

static void put_header(image *im, char version, uint32_t timecnt,
                       uint32_t typecnt, uint32_t charcnt) {
  memcpy(im->buf + im->len, "TZif", 4);
  im->len += 4;
  im->buf[im->len++] = (uint8_t)version;
  memset(im->buf + im->len, 0, 15);
  im->len += 15;
  put32(im, 0);
  put32(im, 0);
  put32(im, 0);
  put32(im, timecnt);
  put32(im, typecnt);
  put32(im, charcnt);
}

/*
 * A TZif image with n transitions to the types idx[], types of the given
 * offsets, and (version '2' and up) the footer rule.  Version 0 writes a
 * version 1 image with 32-bit times.
 */
static void build(image *im, char version, size_t n, const int64_t *at,
                  const uint8_t *idx, size_t ntypes, const int32_t *offs,
                  const char *footer) {
  im->len = 0;
  if (version != 0) {
    put_header(im, version, 0, 1, 4);
    put32(im, 0);
    im->buf[im->len++] = 0;
    im->buf[im->len++] = 0;
    memcpy(im->buf + im->len, "UTC", 4);
    im->len += 4;
  }
  put_header(im, version, (uint32_t)n, (uint32_t)ntypes, 4);
  for (size_t i = 0; i < n; i++) {
    if (version != 0)
      put64(im, at[i]);
    else
      put32(im, (uint32_t)(int32_t)at[i]);
  }
  for (size_t i = 0; i < n; i++)
    im->buf[im->len++] = idx[i];
  for (size_t i = 0; i < ntypes; i++) {
    put32(im, (uint32_t)offs[i]);
    im->buf[im->len++] = i > 0;
    im->buf[im->len++] = 0;
  }
  memcpy(im->buf + im->len, "ABC", 4);
  im->len += 4;
  if (version != 0) {
    int w = snprintf((char *)im->buf + im->len, sizeof im->buf - im->len,
                     "\n%s\n", footer);
    im->len += (size_t)w;
  }
}

static int parse(const image *im, chime_zone **ret) {
  char why[128] = "";
  int rc =
      chime__zone_from_tzif("test", im->buf, im->len, ret, why, sizeof why);
  CU_ASSERT(rc == 0 || why[0] != '\0');
  return rc;
}

static void test_tz_tzif_versions(void) {
  static const int64_t at[] = {0, 1000000};
  static const uint8_t idx[] = {1, 0};
  static const int32_t offs[] = {3600, 7200};
  image im;
  chime_zone *z = NULL;
  build(&im, 0, 2, at, idx, 2, offs, "");
  CU_ASSERT_EQUAL_FATAL(parse(&im, &z), 0);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, -1000), 3600);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, 0), 7200);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, 1000000000), 3600);
  CU_ASSERT_STRING_EQUAL(chime_zone_get_name(z), "test");
  chime__zone_free(z);
  for (char v = '2'; v <= '4'; v++) {
    build(&im, v, 2, at, idx, 2, offs, "<-03>3");
    CU_ASSERT_EQUAL_FATAL(parse(&im, &z), 0);
    CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, 999999000), 7200);
    CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, 1000000000), -10800);
    CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, INT64_MAX), -10800);
    chime__zone_free(z);
  }
  chime__zone_free(NULL);
}

/* Offsets a footer rule gives, against independently computed dates. */
static void test_tz_footer_rule_forms(void) {
  static const int32_t utc[] = {0};
  image im;
  chime_zone *z = NULL;
  /* Lord Howe's quoted names and half-hour offsets, southern hemisphere. */
  build(&im, '3', 0, NULL, NULL, 1, utc,
        "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0");
  CU_ASSERT_EQUAL_FATAL(parse(&im, &z), 0);
  for (int64_t y = 2030; y < 2040; y++) {
    int64_t on = utc_ms(y, 10, nth_weekday(y, 10, 1, 0), 2, 0, 0) - 37800000;
    int64_t off = utc_ms(y, 4, nth_weekday(y, 4, 1, 0), 2, 0, 0) - 39600000;
    check_offset_switch(z, on, 37800, 39600, __LINE__);
    check_offset_switch(z, off, 39600, 37800, __LINE__);
  }
  chime__zone_free(z);
  /* Negative and over-24-hour times: Saturday 23:00 and Monday 02:00. */
  build(&im, '3', 0, NULL, NULL, 1, utc, "EST5EDT,M3.2.0/-1,M11.1.0/26");
  CU_ASSERT_EQUAL_FATAL(parse(&im, &z), 0);
  for (int64_t y = 2020; y < 2030; y++) {
    int64_t on = utc_ms(y, 3, nth_weekday(y, 3, 2, 0), 4, 0, 0);
    int64_t off = utc_ms(y, 11, nth_weekday(y, 11, 1, 0), 6, 0, 0) + 86400000;
    check_offset_switch(z, on, -18000, -14400, __LINE__);
    check_offset_switch(z, off, -14400, -18000, __LINE__);
  }
  chime__zone_free(z);
  /* Jn skips February 29 (J60 is always March 1); n counts it. */
  build(&im, '2', 0, NULL, NULL, 1, utc, "AAA-1BBB,J60/0,59/0");
  CU_ASSERT_EQUAL_FATAL(parse(&im, &z), 0);
  for (int64_t y = 2023; y <= 2025; y++) {
    int64_t on = utc_ms(y, 3, 1, 0, 0, 0) - 3600000;
    /* Day 59 (from 0) is March 1, or February 29 in a leap year. */
    int64_t off =
        utc_ms(y, leap(y) ? 2 : 3, leap(y) ? 29 : 1, 0, 0, 0) - 7200000;
    check_offset_switch(z, on, 3600, 7200, __LINE__);
    if (off != on)
      check_offset_switch(z, off, 7200, 3600, __LINE__);
  }
  chime__zone_free(z);
  /* All-year DST (RFC 8536 section 3.3.1) stays in DST across New Year. */
  build(&im, '3', 0, NULL, NULL, 1, utc, "EST5EDT,0/0,J365/25");
  CU_ASSERT_EQUAL_FATAL(parse(&im, &z), 0);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, utc_ms(2030, 1, 1, 5, 0, 0)),
                  -14400);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, utc_ms(2030, 6, 1, 5, 0, 0)),
                  -14400);
  chime__zone_free(z);
}

static void test_tz_malformed_tzif(void) {
  static const int64_t at[] = {0, 1000000};
  static const uint8_t idx[] = {1, 0};
  static const int32_t offs[] = {3600, 7200};
  image good, im;
  chime_zone *z = NULL;
  build(&good, '2', 2, at, idx, 2, offs, "CET-1CEST,M3.5.0,M10.5.0/3");
  CU_ASSERT_EQUAL_FATAL(parse(&good, &z), 0);
  chime__zone_free(z);
  /* Every truncation. */
  for (size_t len = 0; len < good.len; len++) {
    im = good;
    im.len = len;
    z = NULL;
    CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
    CU_ASSERT_PTR_NULL(z);
  }
  im = good;
  im.buf[0] = 'X';
  CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  im = good;
  im.buf[4] = '9';
  CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  /* Huge counts in the second header: time, type, char counts. */
  static const size_t count_at[] = {32, 36, 40, 28, 24, 20};
  for (size_t i = 0; i < sizeof count_at / sizeof count_at[0]; i++) {
    im = good;
    size_t p = 44 + 6 + 4 + count_at[i]; /* the second header */
    memset(im.buf + p, 0xff, 4);
    CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  }
  /* One leap-second record: "right/" zones are refused. */
  im = good;
  im.buf[44 + 6 + 4 + 31] = 1;
  CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  static const char *bad_footers[] = {"FOO",
                                      "EST5EDT,M13.1.0,M11.1.0",
                                      "EST5EDT,M3.2.0",
                                      "EST",
                                      "E5",
                                      "<EST5",
                                      "EST5EDT,M3.2.0/168,M11.1.0",
                                      "EST5EDT,J0,J100",
                                      "EST5EDT,M3.6.0,M11.1.0",
                                      "EST99",
                                      "EST5EDT4x",
                                      "EST5EDT,366,1"};
  for (size_t i = 0; i < sizeof bad_footers / sizeof bad_footers[0]; i++) {
    build(&im, '2', 2, at, idx, 2, offs, bad_footers[i]);
    if (parse(&im, &z) != CHIME_EFORMAT)
      fprintf(stderr, "\nfooter accepted: %s\n", bad_footers[i]);
    CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  }
  /* Out-of-order transitions, a bad type index, an absurd offset. */
  static const int64_t backwards[] = {1000000, 0};
  build(&im, '2', 2, backwards, idx, 2, offs, "");
  CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  static const uint8_t bad_idx[] = {1, 2};
  build(&im, '2', 2, at, bad_idx, 2, offs, "");
  CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  static const int32_t bad_offs[] = {3600, 200000};
  build(&im, '2', 2, at, idx, 2, bad_offs, "");
  CU_ASSERT_EQUAL(parse(&im, &z), CHIME_EFORMAT);
  CU_ASSERT_EQUAL(chime__zone_from_tzif("x", NULL, 0, &z, NULL, 0),
                  CHIME_EFORMAT);
  CU_ASSERT_EQUAL(chime__zone_from_tzif(NULL, good.buf, good.len, &z, NULL, 0),
                  CHIME_EINVAL);
}

/* The real file through chime__zone_from_tzif agrees with chime_zone_get. */
static void test_tz_from_tzif_real_file(void) {
  FILE *f = fopen("/usr/share/zoneinfo/America/New_York", "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static uint8_t buf[1 << 16];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  chime_zone *z = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__zone_from_tzif("NY", buf, len, &z, NULL, 0), 0);
  const chime_zone *ny = zone("America/New_York");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ny);
  for (int64_t t = -INT64_C(5000000000000); t < INT64_C(20000000000000);
       t += INT64_C(3600000) * 997)
    CU_ASSERT_EQUAL(chime_zone_get_offset_at(z, t),
                    chime_zone_get_offset_at(ny, t));
  chime__zone_free(z);
}

/*
 * Damaged copies of a real file (bytes overwritten by a fixed LCG, no
 * rand()) either fail with CHIME_EFORMAT or give a zone whose conversions
 * stay consistent: a small fuzz run that every sanitizer build repeats.
 */
static void test_tz_damaged_real_file(void) {
  FILE *f = fopen("/usr/share/zoneinfo/Europe/London", "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static uint8_t orig[1 << 16], buf[1 << 16];
  size_t len = fread(orig, 1, sizeof orig, f);
  fclose(f);
  CU_ASSERT_FATAL(len > 100);
  uint64_t x = 12345;
  int parsed = 0;
  for (int round = 0; round < 3000; round++) {
    memcpy(buf, orig, len);
    for (int k = 0; k < 1 + round % 4; k++) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      buf[(x >> 33) % len] = (uint8_t)(x >> 24);
    }
    chime_zone *z = NULL;
    int rc = chime__zone_from_tzif("damaged", buf, len, &z, NULL, 0);
    CU_ASSERT(rc == 0 || rc == CHIME_EFORMAT);
    if (rc != 0)
      continue;
    parsed++;
    for (int64_t t = -4000000000000; t < 9000000000000; t += 777777777777) {
      chime_civil c;
      int64_t back[2];
      chime__zone_to_local(z, t, &c, NULL);
      int n = chime__zone_from_local(z, &c, back);
      CU_ASSERT(n >= 1 && (back[0] == t || (n == 2 && back[1] == t)));
    }
    chime__zone_free(z);
  }
  CU_ASSERT(parsed > 0);
}

/* ------------------------------------------------------------- threads */

static const char *thread_names[] = {"Europe/Rome", "Asia/Tokyo", "GMT+5",
                                     "America/Chicago", "Asia/Kathmandu"};
#define NNAMES (sizeof thread_names / sizeof thread_names[0])

/* Each thread gets every name 200 times; a changing pointer gives NULL. */
static void *get_zones(void *arg) {
  const chime_zone **out = arg;
  for (size_t i = 0; i < NNAMES; i++)
    if (chime_zone_get(thread_names[i], &out[i]) != 0)
      out[i] = NULL;
  for (int round = 1; round < 200; round++)
    for (size_t i = 0; i < NNAMES; i++) {
      const chime_zone *z = NULL;
      if (chime_zone_get(thread_names[i], &z) != 0 || z != out[i])
        out[i] = NULL;
    }
  return NULL;
}

static void test_tz_concurrent_get_same_pointer(void) {
  pthread_t th[4];
  const chime_zone *got[4][NNAMES];
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, get_zones, got[i]), 0);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  for (size_t n = 0; n < NNAMES; n++) {
    CU_ASSERT_PTR_NOT_NULL(got[0][n]);
    for (int i = 1; i < 4; i++)
      CU_ASSERT_PTR_EQUAL(got[i][n], got[0][n]);
  }
}

/*
 * Regression, found by ./dev fuzz: a zone whose footer has DST asked about
 * INT64_MIN.  The clamp limit in milliseconds was not a whole number of
 * seconds, so the floored instant fell one second outside the rule's range
 * and an assertion fired.  The input is the fuzzer's, unchanged.
 */
static void test_tz_regression_fuzz_clamp_limit(void) {
  static uint8_t buf[4096];
  FILE *f =
      fopen(chime_test_data_path("fuzz/tzif-footer-at-clamp-limit"), "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  chime_zone *zone = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__zone_from_tzif("fuzz", buf, len, &zone, NULL, 0),
                        0);
  static const int64_t extremes[] = {INT64_MIN, INT64_MIN + 1, -1,
                                     INT64_MAX - 1, INT64_MAX};
  for (size_t i = 0; i < sizeof extremes / sizeof extremes[0]; i++) {
    chime_civil local;
    int64_t back[2];
    chime__zone_to_local(zone, extremes[i], &local, NULL);
    int n = chime__zone_from_local(zone, &local, back);
    CU_ASSERT(n >= 0 && n <= 2);
  }
  chime__zone_free(zone);
}

static CU_TestInfo tz_tests[] = {
    {"regression: fuzz input at the clamp limit",
     test_tz_regression_fuzz_clamp_limit},
    {"to_local matches zdump", test_tz_matches_zdump},
    {"footer rule: New York and London to 9999",
     test_tz_footer_rule_new_york_and_london},
    {"from_local: gap, overlap, normal", test_tz_from_local_gap_overlap_normal},
    {"from_local round trips", test_tz_from_local_round_trips},
    {"resolve_local like java.util.Calendar", test_tz_resolve_local_like_java},
    {"fixed offsets and UTC names", test_tz_fixed_offsets_and_utc},
    {"unknown and invalid names", test_tz_unknown_and_invalid_names},
    {"TZif versions 1-4", test_tz_tzif_versions},
    {"footer rule forms", test_tz_footer_rule_forms},
    {"malformed TZif images", test_tz_malformed_tzif},
    {"from_tzif on a real file", test_tz_from_tzif_real_file},
    {"damaged copies of a real file", test_tz_damaged_real_file},
    {"concurrent get returns one pointer", test_tz_concurrent_get_same_pointer},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/tz", .pTests = tz_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
