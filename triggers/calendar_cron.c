/*
 * calendar_cron.c: the cron calendar's rule.  An instant is excluded when
 * its wall-clock time in the calendar's zone, truncated to the second,
 * matches the expression (Quartz's CronExpression.isSatisfiedBy, which
 * also ignores milliseconds).  Being about wall-clock time, the rule
 * excludes both passes of a repeated hour, as the daily window does;
 * chime_cron_next's fire-once rule in that hour is about firing, not
 * excluding.  The expression's years end at CHIME_CRON_YEAR_MAX, so later
 * instants are never excluded.
 *
 * The end of a run of matching seconds comes field by field from the
 * compiled expression's bit sets (triggers/cron.h) rather than second by
 * second, so a calendar excluding all of December skips it in one step.
 */
#include "triggers/calendar_impl.h"
#include "triggers/cron.h"

#include <assert.h>

/* The first value in from..to (at most 62) missing from set, or -1. */
static int first_missing(uint64_t set, int from, int to) {
  assert(to < 63);
  if (from > to)
    return -1;
  uint64_t range =
      ((UINT64_C(1) << (to + 1)) - 1) & ~((UINT64_C(1) << from) - 1);
  uint64_t missing = ~set & range;
  return missing != 0 ? __builtin_ctzll(missing) : -1;
}

static bool day_matches(const chime_cron *cron, const chime_civil *c) {
  return chime__cron_has_year(cron, c->year) &&
         ((cron->months >> c->month) & 1u) &&
         ((chime__cron_day_mask(cron, c->year, c->month) >> c->day) & 1u);
}

static bool hour_matches(const chime_cron *cron, const chime_civil *c) {
  return ((cron->hours >> c->hour) & 1u) && day_matches(cron, c);
}

static bool minute_matches(const chime_cron *cron, const chime_civil *c) {
  return ((cron->minutes >> c->minute) & 1u) && hour_matches(cron, c);
}

static bool second_matches(const chime_cron *cron, const chime_civil *c) {
  return ((cron->seconds >> c->second) & 1u) && minute_matches(cron, c);
}

/* The start of the minute, hour or day after the one holding c. */
static void next_unit(const chime_civil *c, int64_t unit_ms, chime_civil *ret) {
  chime_civil t = *c;
  t.millisecond = 0;
  t.second = 0;
  if (unit_ms >= CHIME_MS_PER_HOUR)
    t.minute = 0;
  if (unit_ms >= CHIME_MS_PER_DAY)
    t.hour = 0;
  chime__civil_from_ms(chime__civil_to_ms(&t) + unit_ms, ret);
}

/*
 * The first wall-clock second after c (which matches) that does not.  The
 * run of matches crosses a minute boundary only when every second of the
 * minute matches, an hour boundary only when every minute does, and so on;
 * when every time of day matches, whole days are skipped until one does not
 * (at the latest the year after CHIME_CRON_YEAR_MAX).
 */
static void run_end(const chime_cron *cron, const chime_civil *c,
                    chime_civil *e) {
  *e = *c;
  e->millisecond = 0;
  int v = first_missing(cron->seconds, c->second + 1, 59);
  if (v >= 0) {
    e->second = v;
    return;
  }
  int first = first_missing(cron->seconds, 0, 59);
  if (first >= 0) {
    next_unit(c, CHIME_MS_PER_MINUTE, e);
    if (minute_matches(cron, e))
      e->second = first;
    return;
  }
  v = first_missing(cron->minutes, c->minute + 1, 59);
  if (v >= 0) {
    e->minute = v;
    e->second = 0;
    return;
  }
  first = first_missing(cron->minutes, 0, 59);
  if (first >= 0) {
    next_unit(c, CHIME_MS_PER_HOUR, e);
    if (hour_matches(cron, e))
      e->minute = first;
    return;
  }
  v = first_missing(cron->hours, c->hour + 1, 23);
  if (v >= 0) {
    e->hour = v;
    e->minute = e->second = 0;
    return;
  }
  first = first_missing(cron->hours, 0, 23);
  next_unit(c, CHIME_MS_PER_DAY, e);
  if (first >= 0) {
    if (day_matches(cron, e))
      e->hour = first;
    return;
  }
  while (day_matches(cron, e))
    next_unit(e, CHIME_MS_PER_DAY, e);
}

bool chime__calendar_cron_matches(const chime_calendar *cal, int64_t t_ms) {
  assert(cal->kind == CHIME_CALENDAR_CRON);
  chime_civil c;
  chime__calendar_to_local(cal, t_ms, &c);
  return second_matches(cal->u.cron, &c);
}

int chime__calendar_cron_skip(const chime_calendar *cal, int64_t t_ms,
                              int64_t *ret_ms) {
  assert(cal->kind == CHIME_CALENDAR_CRON);
  chime_civil c, e;
  chime__calendar_to_local(cal, t_ms, &c);
  if (!second_matches(cal->u.cron, &c)) {
    *ret_ms = t_ms;
    return 0;
  }
  run_end(cal->u.cron, &c, &e);
  *ret_ms = chime__calendar_local_to_instant(cal, &e, t_ms);
  return 0;
}
