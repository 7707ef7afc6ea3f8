/*
 * trigger-corpus.c: replays the Quartz 2.3.2 corpus of calendar-interval
 * and daily-time-interval fire times (tests/data/triggers/README.md gives
 * the format) through chime's trigger model.
 */
#include "trigger-corpus.h"

#include "harness.h"
#include "triggers/trigger.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fire times from 2040 on are not in the corpus (zone rules may change). */
#define CAP_MS INT64_C(2208988800000)
#define MAX_FIRES 64

#define LINE_ASSERT(cond, line)                                                \
  CU_assertImplementation((cond), (unsigned)(line), #cond,                     \
                          "tests/data/triggers/quartz-2.3.2.tsv", "",          \
                          CU_FALSE)

static chime_interval_unit unit_of(const char *u) {
  static const char *names[] = {"MILLISECOND", "SECOND", "MINUTE", "HOUR",
                                "DAY",         "WEEK",   "MONTH",  "YEAR"};
  for (int i = 0; i < 8; i++)
    if (strcmp(u, names[i]) == 0)
      return (chime_interval_unit)i;
  return (chime_interval_unit)-1;
}

/* Parses column 1 into s; returns N (fires to take) or -1. */
static int parse_trigger(const char *col, chime_schedule *s,
                         long long *ret_after) {
  char kind[16], zone[64], unit[16];
  long long start, after, end;
  int n, a, b, c, d, e;
  memset(s, 0, sizeof *s);
  if (sscanf(col, "calint %63s %lld %d %15s %d %d %d %lld %lld", zone, &start,
             &a, unit, &b, &c, &n, &after, &end) == 9) {
    s->kind = CHIME_TRIGGER_CALENDAR_INTERVAL;
    s->u.calint.interval = a;
    s->u.calint.unit = unit_of(unit);
    s->u.calint.preserve_hour_of_day = b != 0;
    s->u.calint.skip_day_if_hour_missing = c != 0;
  } else if (sscanf(col, "daily %63s %lld %d %d %d %d %15s %d %d %lld %lld",
                    zone, &start, &a, &b, &c, &d, unit, &e, &n, &after,
                    &end) == 11) {
    s->kind = CHIME_TRIGGER_DAILY_TIME_INTERVAL;
    s->u.daily.start_sec_of_day = a;
    s->u.daily.end_sec_of_day = b;
    s->u.daily.days_of_week = (unsigned)c;
    s->u.daily.interval = d;
    s->u.daily.unit = unit_of(unit);
    s->u.daily.repeat_count = e;
  } else {
    (void)kind;
    return -1;
  }
  if (chime_zone_get(zone, &s->zone) != 0 || n > MAX_FIRES)
    return -1;
  s->start_ms = start;
  s->end_ms = end == -1 ? CHIME_END_NONE : end;
  s->misfire = CHIME_MISFIRE_SMART;
  *ret_after = after;
  return n;
}

/* Compares one answer column: "-" is not compared, "null" is none. */
static bool answer_matches(const char *want, int rc, int64_t got) {
  if (strcmp(want, "-") == 0)
    return true;
  if (strcmp(want, "null") == 0)
    return rc != 0 || got == CHIME_NO_FIRE;
  return rc == 0 && got == strtoll(want, NULL, 10);
}

static void replay(char **col, int lineno) {
  chime_schedule s;
  long long after;
  int n = parse_trigger(col[0], &s, &after);
  LINE_ASSERT(n >= 0, lineno);
  LINE_ASSERT(n < 0 || chime__schedule_validate(&s, NULL, 0) == 0, lineno);
  if (n < 0 || chime__schedule_validate(&s, NULL, 0) != 0)
    return;
  char got[MAX_FIRES * 24] = "";
  size_t len = 0;
  chime_fire_state st;
  if (chime__trigger_first_fire(&s, &st) == 0) {
    for (int i = 0; i < n && chime__trigger_may_fire_again(&st); i++) {
      if (st.next_fire_ms < CAP_MS)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%lld",
                                len ? " " : "", (long long)st.next_fire_ms);
      chime__trigger_triggered(&s, &st);
    }
  } else {
    chime__trigger_state_init(&s, &st);
  }
  LINE_ASSERT(strcmp(len ? got : "none", col[1]) == 0, lineno);
  int64_t t = CHIME_NO_FIRE;
  int rc = chime__trigger_fire_after(&s, &st, after, &t);
  LINE_ASSERT(answer_matches(col[2], rc, t), lineno);
  t = CHIME_NO_FIRE;
  rc = chime__trigger_final_fire(&s, NULL, &t);
  LINE_ASSERT(answer_matches(col[3], rc, t), lineno);
}

int chime_test_trigger_corpus(const char *kind) {
  FILE *f = fopen(chime_test_data_path("triggers/quartz-2.3.2.tsv"), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char buf[8192];
  int lineno = 0, replayed = 0;
  size_t klen = strlen(kind);
  while (fgets(buf, sizeof buf, f) != NULL) {
    lineno++;
    buf[strcspn(buf, "\r\n")] = '\0';
    if (buf[0] == '#' || buf[0] == '\0')
      continue;
    if (strncmp(buf, kind, klen) != 0 || buf[klen] != ' ')
      continue;
    char *col[4];
    char *p = buf;
    int ncol = 0;
    for (; ncol < 4 && p != NULL; ncol++) {
      col[ncol] = p;
      p = strchr(p, '\t');
      if (p != NULL)
        *p++ = '\0';
    }
    LINE_ASSERT(ncol == 4, lineno);
    if (ncol == 4)
      replay(col, lineno);
    replayed++;
  }
  fclose(f);
  return replayed;
}

int chime_test_trigger_fires(const chime_schedule *s, int64_t *fires, int max) {
  chime_fire_state st;
  if (chime__trigger_first_fire(s, &st) != 0)
    return 0;
  int n = 0;
  while (n < max && chime__trigger_may_fire_again(&st)) {
    fires[n++] = st.next_fire_ms;
    chime__trigger_triggered(s, &st);
  }
  return n;
}
