/*
 * cron-quartz-cases.c: replays every case Quartz 2.3.2 computed
 * (tests/data/cron/cases.tsv, format in tests/data/cron/README.md): each
 * fire time must match exactly and each INVALID expression must be
 * rejected.  A failing row prints its id.  The same replay runs the Unix
 * dialect's corpus from python3-croniter (tests/data/cron/unix-croniter.tsv,
 * made by gen_unix_corpus.py beside it).
 */
#include "chime.h"
#include "harness.h"
#include "test-cron.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIRES 64

/* One row of cases.tsv, split in place. */
typedef struct tsv_case {
  char *id, *expr, *zone, *expected;
  int64_t after_ms;
  int count;
  bool unix_dialect; /* compile with chime_cron_from_unix */
} tsv_case;

/* Splits a line at tabs into at most n fields; returns how many. */
static int split_tabs(char *line, char **fields, int n) {
  int k = 0;
  char *p = line;
  while (k < n) {
    fields[k++] = p;
    char *tab = strchr(p, '\t');
    if (tab == NULL)
      break;
    *tab = '\0';
    p = tab + 1;
  }
  return k;
}

/* Parses the expected fire times: -1 for INVALID, else how many. */
static int parse_expected(const char *s, int64_t *fires) {
  if (strcmp(s, "INVALID") == 0)
    return -1;
  if (strcmp(s, "NONE") == 0)
    return 0;
  int n = 0;
  while (*s != '\0' && n < MAX_FIRES) {
    char *end;
    fires[n++] = strtoll(s, &end, 10);
    s = end;
    while (*s == ' ')
      s++;
  }
  return n;
}

/* Runs one case; prints and returns 1 when it fails. */
static int run_case(const tsv_case *c) {
  int64_t want[MAX_FIRES];
  int nwant = parse_expected(c->expected, want);
  chime_cron *cron = NULL;
  char err[256];
  int col = 0;
  int r = c->unix_dialect
              ? chime_cron_from_unix(c->expr, &cron, &col, err, sizeof err)
              : chime_cron_from_string(c->expr, &cron, &col, err, sizeof err);
  if (nwant < 0) {
    chime_cron_free(cron);
    if (r == CHIME_EPARSE)
      return 0;
    printf("\n  case %s: '%s' must be rejected, got %d\n", c->id, c->expr, r);
    return 1;
  }
  if (r != 0) {
    printf("\n  case %s: '%s' rejected: %s\n", c->id, c->expr, err);
    return 1;
  }
  const chime_zone *zone;
  if (chime_zone_get(c->zone, &zone) != 0) {
    printf("\n  case %s: zone %s not found\n", c->id, c->zone);
    chime_cron_free(cron);
    return 1;
  }
  int64_t t = c->after_ms;
  int failed = 0;
  for (int i = 0; i < c->count && !failed; i++) {
    int64_t next = 0;
    r = chime_cron_next(cron, zone, t, &next);
    if (i >= nwant) {
      if (r != CHIME_ENEVERFIRES) {
        printf("\n  case %s: '%s' %s fire %d: want none, got %" PRId64
               " (%d)\n",
               c->id, c->expr, c->zone, i, next, r);
        failed = 1;
      }
      break;
    }
    if (r != 0 || next != want[i]) {
      printf("\n  case %s: '%s' %s fire %d after %" PRId64 ": want %" PRId64
             ", got %" PRId64 " (%d)\n",
             c->id, c->expr, c->zone, i, t, want[i], next, r);
      failed = 1;
    }
    t = next;
  }
  chime_cron_free(cron);
  return failed;
}

/* Replays every case of a conformance file; returns the failures. */
static int run_file(const char *name, bool unix_dialect, int *ret_cases) {
  FILE *f = fopen(chime_test_data_path(name), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char line[16384];
  int failures = 0, cases = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0')
      continue;
    char *fields[6];
    if (split_tabs(line, fields, 6) != 6) {
      printf("\n  malformed line: %s\n", line);
      failures++;
      continue;
    }
    tsv_case c = {.id = fields[0],
                  .expr = fields[1],
                  .zone = fields[2],
                  .after_ms = strtoll(fields[3], NULL, 10),
                  .count = (int)strtol(fields[4], NULL, 10),
                  .expected = fields[5],
                  .unix_dialect = unix_dialect};
    failures += run_case(&c);
    cases++;
  }
  fclose(f);
  *ret_cases = cases;
  return failures;
}

void test_cron_quartz_conformance(void) {
  int cases = 0;
  int failures = run_file("cron/cases.tsv", false, &cases);
  CU_ASSERT_EQUAL(failures, 0);
  CU_ASSERT(cases > 600);
}

void test_cron_unix_conformance(void) {
  int cases = 0;
  int failures = run_file("cron/unix-croniter.tsv", true, &cases);
  CU_ASSERT_EQUAL(failures, 0);
  CU_ASSERT(cases >= 300);
}
