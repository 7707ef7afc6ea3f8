/*
 * test-tz-zones.c: every zone of the system's tzdata against zdump(8),
 * 1970-2100.  The zone names come from /usr/share/zoneinfo/tzdata.zi (its
 * Z lines: zones; its L lines: links).  For every zone, `zdump -v -c
 * 1970,2100` prints each transition as two lines (the second before it and
 * the transition itself) with the UTC offset in force; chime must give the
 * same offset at every instant zdump prints, and every change of offset
 * chime shows (found by weekly steps and bisection) must be one of zdump's
 * transitions.  A link must give its target's offsets.  zdump runs once
 * per half of the zones, in two threads, so the test takes seconds.
 */
#include "chime.h"
#include "harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TZDATA "/usr/share/zoneinfo/tzdata.zi"
#define MAX_ZONES 1024
#define MAX_TRANSITIONS 4096
#define WEEK_S (7 * INT64_C(86400))
/* 1970-01-01 and 2100-01-01, UTC, in seconds. */
#define FROM_S INT64_C(0)
#define TO_S INT64_C(4102444800)

typedef struct zone_list {
  char *names[MAX_ZONES];
  size_t n;
  char *link_alias[MAX_ZONES], *link_target[MAX_ZONES];
  size_t nlinks;
} zone_list;

/* Reads the Z and L lines of tzdata.zi. */
static void read_zones(zone_list *z) {
  FILE *f = fopen(TZDATA, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char line[512], a[256], b[256];
  while (fgets(line, sizeof line, f) != NULL) {
    if (line[0] == 'Z' && sscanf(line, "Z %255s", a) == 1 && z->n < MAX_ZONES)
      z->names[z->n++] = strdup(a);
    else if (line[0] == 'L' && sscanf(line, "L %255s %255s", a, b) == 2 &&
             z->nlinks < MAX_ZONES) {
      z->link_target[z->nlinks] = strdup(a);
      z->link_alias[z->nlinks++] = strdup(b);
    }
  }
  fclose(f);
}

/* Days from 1970-01-01 to a civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/*
 * One zdump line: "NAME  Www Mmm dd hh:mm:ss yyyy UT = ... gmtoff=N".
 * Returns false for the other lines ("NAME  -9223372036854775808 = NULL").
 */
static bool parse_line(const char *line, char *name, size_t name_len,
                       int64_t *ret_s, long *ret_off) {
  static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  const char *ut = strstr(line, " UT = ");
  const char *g = strstr(line, "gmtoff=");
  if (ut == NULL || g == NULL)
    return false;
  char mon[4];
  int d, hh, mm, ss;
  long long y;
  size_t nl = strcspn(line, " ");
  if (nl >= name_len)
    return false;
  memcpy(name, line, nl);
  name[nl] = '\0';
  if (sscanf(line + nl, " %*3s %3s %d %d:%d:%d %lld UT", mon, &d, &hh, &mm, &ss,
             &y) != 6)
    return false;
  const char *mp = strstr(months, mon);
  if (mp == NULL)
    return false;
  int m = (int)(mp - months) / 3 + 1;
  *ret_s = days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
  *ret_off = strtol(g + 7, NULL, 10);
  return true;
}

/* The offset (seconds) chime gives at second t in zone. */
static long chime_off(const chime_zone *zone, int64_t t) {
  return chime_zone_get_offset_at(zone, t * 1000);
}

/* A zone's transitions as zdump prints them (instants of the change). */
typedef struct zdump_zone {
  const chime_zone *zone;
  int64_t at[MAX_TRANSITIONS];
  size_t n;
} zdump_zone;

static bool zdump_has(const zdump_zone *z, int64_t t) {
  for (size_t i = 0; i < z->n; i++)
    if (z->at[i] == t)
      return true;
  return false;
}

/*
 * Every change of offset chime shows in [FROM_S, TO_S) must be one of
 * zdump's transitions.  Returns the failures.
 */
static int check_chime_changes(const char *name, const zdump_zone *z) {
  int failures = 0;
  long prev = chime_off(z->zone, FROM_S);
  for (int64_t t = FROM_S + WEEK_S; t < TO_S; t += WEEK_S) {
    long cur = chime_off(z->zone, t);
    if (cur == prev)
      continue;
    int64_t lo = t - WEEK_S, hi = t; /* off(lo) == prev, off(hi) != prev */
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      if (chime_off(z->zone, mid) == prev)
        lo = mid;
      else
        hi = mid;
    }
    /* zdump's cut-off is near the year's start: skip its first day. */
    if (hi > FROM_S + 86400 && !zdump_has(z, hi)) {
      if (failures++ < 3)
        printf("\n  %s: chime changes offset at %lld s, zdump does not", name,
               (long long)hi);
    }
    prev = cur;
  }
  return failures;
}

/* A half of the zones, run through one zdump. */
typedef struct job {
  char **names;
  size_t n;
  int failures;
  size_t lines, transitions;
} job;

/* Checks one zone's zdump lines and then chime's changes. */
static int finish_zone(const char *name, zdump_zone *z) {
  return z->zone != NULL ? check_chime_changes(name, z) : 0;
}

static void *run_job(void *arg) {
  job *jb = arg;
  size_t len = 64;
  for (size_t i = 0; i < jb->n; i++)
    len += strlen(jb->names[i]) + 3;
  char *cmd = malloc(len);
  size_t k = (size_t)snprintf(cmd, len, "zdump -v -c 1970,2100");
  for (size_t i = 0; i < jb->n; i++)
    k += (size_t)snprintf(cmd + k, len - k, " '%s'", jb->names[i]);
  FILE *p = popen(cmd, "r");
  free(cmd);
  if (p == NULL) {
    jb->failures++;
    return NULL;
  }
  static __thread zdump_zone z;
  char line[512], name[256], cur[256] = "";
  int64_t prev_t = 0;
  long prev_off = 0;
  bool have_prev = false;
  while (fgets(line, sizeof line, p) != NULL) {
    int64_t t;
    long off;
    if (!parse_line(line, name, sizeof name, &t, &off))
      continue;
    if (strcmp(name, cur) != 0) {
      jb->failures += finish_zone(cur, &z);
      snprintf(cur, sizeof cur, "%s", name);
      z.n = 0;
      have_prev = false;
      if (chime_zone_get(name, &z.zone) != 0) {
        z.zone = NULL;
        if (jb->failures++ < 3)
          printf("\n  zone %s: chime cannot load it", name);
      }
    }
    if (z.zone == NULL)
      continue;
    jb->lines++;
    long mine = chime_off(z.zone, t);
    if (mine != off && jb->failures++ < 10)
      printf("\n  %s at %lld s: zdump gmtoff %ld, chime %ld", name,
             (long long)t, off, mine);
    if (have_prev && t == prev_t + 1 && off != prev_off &&
        z.n < MAX_TRANSITIONS) {
      z.at[z.n++] = t;
      jb->transitions++;
    }
    prev_t = t;
    prev_off = off;
    have_prev = true;
  }
  jb->failures += finish_zone(cur, &z);
  if (pclose(p) != 0)
    jb->failures++;
  return NULL;
}

static void test_every_zone_matches_zdump(void) {
  static zone_list zl;
  read_zones(&zl);
  CU_ASSERT_FATAL(zl.n > 300);
  job jobs[2] = {{.names = zl.names, .n = zl.n / 2},
                 {.names = zl.names + zl.n / 2, .n = zl.n - zl.n / 2}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, run_job, &jobs[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  CU_ASSERT_EQUAL(jobs[0].failures + jobs[1].failures, 0);
  /* Thousands of transitions were compared, not an empty output. */
  CU_ASSERT(jobs[0].transitions + jobs[1].transitions > 10000);
  CU_ASSERT(jobs[0].lines + jobs[1].lines > 20000);
  /* Every link gives its target's offsets. */
  int bad = 0;
  for (size_t i = 0; i < zl.nlinks; i++) {
    const chime_zone *a, *t;
    if (chime_zone_get(zl.link_alias[i], &a) != 0 ||
        chime_zone_get(zl.link_target[i], &t) != 0) {
      if (bad++ < 3)
        printf("\n  link %s -> %s: cannot load", zl.link_alias[i],
               zl.link_target[i]);
      continue;
    }
    for (int64_t s = FROM_S; s < TO_S; s += WEEK_S / 7 * 3)
      if (chime_off(a, s) != chime_off(t, s)) {
        if (bad++ < 3)
          printf("\n  link %s differs from %s at %lld s", zl.link_alias[i],
                 zl.link_target[i], (long long)s);
        break;
      }
  }
  CU_ASSERT_EQUAL(bad, 0);
  for (size_t i = 0; i < zl.n; i++)
    free(zl.names[i]);
  for (size_t i = 0; i < zl.nlinks; i++) {
    free(zl.link_alias[i]);
    free(zl.link_target[i]);
  }
}

static CU_TestInfo zone_tests[] = {
    {"every zone of tzdata matches zdump -v, 1970-2100",
     test_every_zone_matches_zdump},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/tz-zones", .pTests = zone_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
