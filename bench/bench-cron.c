/*
 * bench-cron.c: how many next-fire computations per second chime_cron_next
 * makes for typical cron expressions, in UTC and in a DST zone.  Each
 * computation starts from a different instant spread over 2024-2034, so
 * the figures include the zone conversions and no caching across calls.
 * Prints one line per expression and zone, then the total.
 */
#include "chime.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#define CALLS 400000
#define BASE_MS INT64_C(1704067200000) /* 2024-01-01T00:00:00Z */
#define SPAN_MS (INT64_C(3652) * 86400000)

static const char *const exprs[] = {
    "0 0 12 * * ?",      "0 15 10 ? * MON-FRI",
    "0 0/5 14,18 * * ?", "*/10 * * * * ?",
    "0 0 0 L * ?",       "0 0 9 ? * 6#3",
    "0 0 0 15W * ?",     "0 30 2 * * ?",
    "0 0 0 29 2 ?",      "0 0/30 8-18 ? * 2-6 2024-2040",
};
static const char *const zones[] = {"UTC", "America/New_York"};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs CALLS computations; returns the seconds taken, or -1 on error. */
static double run(const chime_cron *cron, const chime_zone *zone,
                  int64_t *checksum) {
  double start = now_s();
  for (int64_t i = 0; i < CALLS; i++) {
    int64_t after = BASE_MS + (i * INT64_C(1000003) * 997) % SPAN_MS, next;
    if (chime_cron_next(cron, zone, after, &next) != 0)
      return -1;
    *checksum += next;
  }
  return now_s() - start;
}

int main(void) {
  double total_s = 0;
  int64_t total_calls = 0, checksum = 0;
  printf("%-32s %-18s %14s\n", "expression", "zone", "next/s");
  for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
    const chime_zone *zone;
    if (chime_zone_get(zones[z], &zone) != 0) {
      fprintf(stderr, "bench-cron: unknown zone %s\n", zones[z]);
      return 1;
    }
    for (size_t e = 0; e < sizeof exprs / sizeof exprs[0]; e++) {
      chime_cron *cron;
      char err[200];
      if (chime_cron_from_string(exprs[e], &cron, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "bench-cron: %s\n", err);
        return 1;
      }
      double s = run(cron, zone, &checksum);
      chime_cron_free(cron);
      if (s < 0) {
        fprintf(stderr, "bench-cron: '%s' failed\n", exprs[e]);
        return 1;
      }
      printf("%-32s %-18s %14.0f\n", exprs[e], zones[z], CALLS / s);
      total_s += s;
      total_calls += CALLS;
    }
  }
  printf("%-32s %-18s %14.0f\n", "total", "", (double)total_calls / total_s);
  printf("(checksum %" PRId64 ")\n", checksum);
  return 0;
}
