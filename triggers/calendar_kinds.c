/*
 * calendar_kinds.c: each calendar kind's own rule, bases ignored: whether
 * it excludes an instant, and where the excluded span that holds an
 * instant ends.  Day rules (annual, holiday, monthly, weekly) exclude whole
 * wall-clock days in the calendar's zone; the daily rule excludes a window
 * of wall-clock time of day (or its complement); the cron rule excludes
 * each second its expression matches.  Every search here is bounded.
 */
#include "triggers/calendar_impl.h"
#include "triggers/civil.h"
#include "triggers/tz.h"

#include <assert.h>

/*
 * Days a day rule scans for an included day before giving up.  Annual:
 * when only February 29 is included the next one may be eight years away
 * (2096 to 2104).  Monthly: a day of the month recurs within two months.
 * Holiday: a run of listed dates is at most as long as the list.
 */
#define ANNUAL_SCAN_DAYS (8 * 366 + 1)
#define MONTHLY_SCAN_DAYS 400
#define WEEKLY_SCAN_DAYS 8

/* Skips an own rule may take from one instant before giving up. */
#define MAX_SKIPS 64

static bool holiday_has(const chime_calendar *cal, int64_t days) {
  size_t lo = 0, hi = cal->u.holiday.count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t v = cal->u.holiday.days[mid];
    if (v == days)
      return true;
    if (v < days)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

/* Whether a day rule excludes the local day numbered `days`. */
static bool day_excluded(const chime_calendar *cal, int64_t days) {
  int64_t year;
  int month, day;
  switch (cal->kind) {
  case CHIME_CALENDAR_ANNUAL:
    chime__civil_from_days(days, &year, &month, &day);
    return (cal->u.annual[month] >> day) & 1u;
  case CHIME_CALENDAR_HOLIDAY:
    return holiday_has(cal, days);
  case CHIME_CALENDAR_MONTHLY:
    chime__civil_from_days(days, &year, &month, &day);
    return (cal->u.monthly >> day) & 1u;
  case CHIME_CALENDAR_WEEKLY:
    return (cal->u.weekly >> chime__weekday_from_days(days)) & 1u;
  default:
    assert(!"not a day rule");
    return false;
  }
}

static int64_t local_days(const chime_calendar *cal, int64_t t_ms) {
  chime_civil c;
  chime__calendar_to_local(cal, t_ms, &c);
  return chime__days_from_civil(c.year, c.month, c.day);
}

static int32_t local_time_of_day(const chime_calendar *cal, int64_t t_ms) {
  chime_civil c;
  chime__calendar_to_local(cal, t_ms, &c);
  return (int32_t)(c.hour * CHIME_MS_PER_HOUR + c.minute * CHIME_MS_PER_MINUTE +
                   c.second * CHIME_MS_PER_SECOND + c.millisecond);
}

bool chime__calendar_own_includes(const chime_calendar *cal, int64_t t_ms) {
  switch (cal->kind) {
  case CHIME_CALENDAR_ANNUAL:
  case CHIME_CALENDAR_HOLIDAY:
  case CHIME_CALENDAR_MONTHLY:
  case CHIME_CALENDAR_WEEKLY:
    return !day_excluded(cal, local_days(cal, t_ms));
  case CHIME_CALENDAR_DAILY: {
    int32_t tod = local_time_of_day(cal, t_ms);
    bool inside = tod >= cal->u.daily.start_ms && tod <= cal->u.daily.end_ms;
    return cal->u.daily.invert ? inside : !inside;
  }
  case CHIME_CALENDAR_CRON:
    return !chime__calendar_cron_matches(cal, t_ms);
  }
  assert(!"unknown calendar kind");
  return true;
}

/* Past an excluded day: the start of the next included local day. */
static int day_skip(const chime_calendar *cal, int64_t t_ms, int64_t *ret_ms) {
  int64_t limit;
  switch (cal->kind) {
  case CHIME_CALENDAR_ANNUAL:
    limit = ANNUAL_SCAN_DAYS;
    break;
  case CHIME_CALENDAR_HOLIDAY:
    limit = (int64_t)cal->u.holiday.count + 2;
    break;
  case CHIME_CALENDAR_MONTHLY:
    limit = MONTHLY_SCAN_DAYS;
    break;
  default:
    limit = WEEKLY_SCAN_DAYS;
    break;
  }
  int64_t today = local_days(cal, t_ms);
  for (int64_t d = today + 1; d <= today + limit; d++) {
    if (!day_excluded(cal, d)) {
      chime_civil c = {0};
      chime__civil_from_days(d, &c.year, &c.month, &c.day);
      *ret_ms = chime__calendar_local_to_instant(cal, &c, t_ms);
      return 0;
    }
  }
  return CHIME_ENEVERFIRES;
}

/* Past an excluded time of day: where the excluded stretch ends. */
static int daily_skip(const chime_calendar *cal, int64_t t_ms,
                      int64_t *ret_ms) {
  chime_civil c;
  chime__calendar_to_local(cal, t_ms, &c);
  int64_t days = chime__days_from_civil(c.year, c.month, c.day);
  int32_t tod = local_time_of_day(cal, t_ms);
  int64_t target; /* local milliseconds of the wall-clock target */
  if (!cal->u.daily.invert)
    target = days * CHIME_MS_PER_DAY + cal->u.daily.end_ms + 1;
  else if (tod < cal->u.daily.start_ms)
    target = days * CHIME_MS_PER_DAY + cal->u.daily.start_ms;
  else
    target = (days + 1) * CHIME_MS_PER_DAY + cal->u.daily.start_ms;
  chime_civil local;
  chime__civil_from_ms(target, &local);
  *ret_ms = chime__calendar_local_to_instant(cal, &local, t_ms);
  return 0;
}

int chime__calendar_own_next(const chime_calendar *cal, int64_t t_ms,
                             int64_t *ret_ms) {
  int64_t t = t_ms;
  for (int i = 0; i < MAX_SKIPS; i++) {
    if (t > CHIME__CALENDAR_MAX_MS || chime__calendar_own_includes(cal, t)) {
      *ret_ms = t;
      return 0;
    }
    int64_t next;
    int rc;
    switch (cal->kind) {
    case CHIME_CALENDAR_DAILY:
      rc = daily_skip(cal, t, &next);
      break;
    case CHIME_CALENDAR_CRON:
      rc = chime__calendar_cron_skip(cal, t, &next);
      break;
    default:
      rc = day_skip(cal, t, &next);
      break;
    }
    if (rc < 0)
      return rc;
    t = next > t ? next : t + 1;
  }
  return CHIME_ENEVERFIRES;
}
