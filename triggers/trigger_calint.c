/*
 * trigger_calint.c: the calendar-interval trigger (Quartz's
 * CalendarIntervalTriggerImpl): every N milliseconds, seconds, minutes,
 * hours (exact durations), or days, weeks, months, years (calendar steps
 * in the trigger's zone, added one after the other from the start the way
 * java.util.Calendar adds them, so Jan 31 + 1 month = Feb 28 or 29, and
 * later steps keep the clamped day).  With preserve_hour_of_day, a step
 * whose hour moved because of a DST change is set back to the start's hour;
 * if that hour does not exist that day, skip_day_if_hour_missing skips the
 * day, otherwise the time the zone resolves it to is used.
 *
 * Also here: the java.util.GregorianCalendar arithmetic (chime__jcal_*)
 * shared with the daily-time-interval trigger.
 */
#include "core/errbuf.h"
#include "triggers/trigger.h"

#include "triggers/civil.h"
#include "triggers/tz.h"

/* ------------------------------------------------ java.util.Calendar */

int64_t chime__jcal_add_days(const chime_zone *zone, int64_t t_ms,
                             int64_t days) {
  chime_civil l;
  int32_t off1;
  chime__zone_to_local(zone, t_ms, &l, &off1);
  int64_t fd = chime__days_from_civil(l.year, l.month, l.day) + days;
  int64_t tod = l.hour * CHIME_MS_PER_HOUR + l.minute * CHIME_MS_PER_MINUTE +
                l.second * CHIME_MS_PER_SECOND + l.millisecond;
  int64_t t1 = fd * CHIME_MS_PER_DAY + tod - (int64_t)off1 * 1000;
  int64_t diff = ((int64_t)off1 - chime_zone_get_offset_at(zone, t1)) * 1000;
  if (diff == 0)
    return t1;
  /* GregorianCalendar.add: correct by the offset change unless that
   * changes the date, then keep the uncorrected time. */
  int64_t t2 = t1 + diff;
  chime__zone_to_local(zone, t2, &l, NULL);
  if (chime__days_from_civil(l.year, l.month, l.day) != fd)
    return t1;
  return t2;
}

int64_t chime__jcal_add_months(const chime_zone *zone, int64_t t_ms,
                               int64_t months) {
  chime_civil l;
  chime__zone_to_local(zone, t_ms, &l, NULL);
  int64_t m = l.year * 12 + (l.month - 1) + months;
  l.year = chime__floor_div(m, 12);
  l.month = (int)chime__floor_mod(m, 12) + 1;
  int dim = chime__days_in_month(l.year, l.month);
  if (l.day > dim)
    l.day = dim;
  return chime__zone_resolve_local(zone, &l);
}

int64_t chime__jcal_set_time_of_day(const chime_zone *zone, int64_t t_ms,
                                    int hour, int minute, int second,
                                    int millisecond) {
  chime_civil l;
  chime__zone_to_local(zone, t_ms, &l, NULL);
  l.hour = hour;
  l.minute = minute;
  l.second = second;
  l.millisecond = millisecond;
  return chime__zone_resolve_local(zone, &l);
}

int chime__jcal_hour(const chime_zone *zone, int64_t t_ms) {
  chime_civil l;
  chime__zone_to_local(zone, t_ms, &l, NULL);
  return l.hour;
}

/* ------------------------------------------------------ the trigger */

int chime__calint_check(const chime_schedule *s, char *errbuf, size_t len) {
  int32_t n = s->u.calint.interval;
  if (s->u.calint.unit < CHIME_UNIT_MILLISECOND ||
      s->u.calint.unit > CHIME_UNIT_YEAR)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "interval unit %d is not valid for a "
                       "calendar-interval trigger",
                       (int)s->u.calint.unit);
  if (n < 1)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "repeat interval %d must be at least 1", (int)n);
  if (n > CHIME__CALINT_MAX_INTERVAL)
    return chime__errf(errbuf, len, CHIME_ELIMIT,
                       "repeat interval %d exceeds the limit of %d "
                       "units",
                       (int)n, CHIME__CALINT_MAX_INTERVAL);
  return 0;
}

/* One calendar step of n units (day and larger) from t. */
static int64_t step(const chime_schedule *s, int64_t t, int64_t n) {
  switch (s->u.calint.unit) {
  case CHIME_UNIT_DAY:
    return chime__jcal_add_days(s->zone, t, n);
  case CHIME_UNIT_WEEK:
    return chime__jcal_add_days(s->zone, t, 7 * n);
  case CHIME_UNIT_MONTH:
    return chime__jcal_add_months(s->zone, t, n);
  default:
    return chime__jcal_add_months(s->zone, t, 12 * n);
  }
}

/*
 * Quartz's daylightSavingHourShiftOccurredAndAdvanceNeeded: with
 * preserve_hour_of_day, puts the start's hour back into *t and says
 * whether one more step is needed.
 */
static bool hour_shift_needs_step(const chime_schedule *s, int64_t *t,
                                  int initial_hour, int64_t after_ms) {
  if (!s->u.calint.preserve_hour_of_day)
    return false;
  chime_civil l;
  chime__zone_to_local(s->zone, *t, &l, NULL);
  if (l.hour == initial_hour)
    return false;
  *t = chime__jcal_set_time_of_day(s->zone, *t, initial_hour, l.minute,
                                   l.second, l.millisecond);
  if (chime__jcal_hour(s->zone, *t) != initial_hour)
    return s->u.calint.skip_day_if_hour_missing;
  return *t <= after_ms;
}

/* Exact-duration units: the first start + k * interval after after_ms. */
static int64_t exact_after(const chime_schedule *s, int64_t after_ms) {
  static const int64_t unit_ms[] = {1, CHIME_MS_PER_SECOND, CHIME_MS_PER_MINUTE,
                                    CHIME_MS_PER_HOUR};
  int64_t per = s->u.calint.interval * unit_ms[s->u.calint.unit];
  int64_t k;
  if (s->u.calint.unit == CHIME_UNIT_MILLISECOND) {
    k = (after_ms - s->start_ms + 1 + per - 1) / per;
  } else {
    /* Quartz counts whole seconds: 1 + (after - start) / 1000. */
    int64_t secs = 1 + (after_ms - s->start_ms) / 1000;
    int64_t per_s = per / 1000;
    k = secs / per_s + (secs % per_s != 0);
  }
  return s->start_ms + k * per;
}

/* Days and weeks: Quartz first leaps most of the way, then steps. */
static int64_t leap(const chime_schedule *s, int64_t after_ms) {
  int64_t secs = 1 + (after_ms - s->start_ms) / 1000;
  int64_t per_s = (int64_t)s->u.calint.interval * 86400 *
                  (s->u.calint.unit == CHIME_UNIT_WEEK ? 7 : 1);
  int64_t jumps = secs / per_s;
  if (jumps <= 20)
    return s->start_ms;
  if (jumps < 50)
    jumps = (int64_t)((double)jumps * 0.80);
  else if (jumps < 500)
    jumps = (int64_t)((double)jumps * 0.90);
  else
    jumps = (int64_t)((double)jumps * 0.95);
  return step(s, s->start_ms, s->u.calint.interval * jumps);
}

int chime__calint_after(const chime_schedule *s, int64_t after_ms,
                        bool ignore_end, int64_t *ret_ms) {
  if (!ignore_end && s->end_ms <= after_ms)
    return CHIME_ENEVERFIRES;
  if (after_ms < s->start_ms) {
    *ret_ms = s->start_ms;
    return 0;
  }
  if (after_ms > CHIME__TRIGGER_MAX_MS)
    return CHIME_ENEVERFIRES;
  int64_t t;
  if (s->u.calint.unit <= CHIME_UNIT_HOUR) {
    t = exact_after(s, after_ms);
  } else {
    int64_t limit = after_ms + CHIME__TRIGGER_GIVEUP_MS;
    int initial_hour = chime__jcal_hour(s->zone, s->start_ms);
    bool by_days = s->u.calint.unit <= CHIME_UNIT_WEEK;
    t = by_days ? leap(s, after_ms) : s->start_ms;
    while (t <= after_ms) {
      t = step(s, t, s->u.calint.interval);
      if (t > limit)
        return CHIME_ENEVERFIRES;
    }
    while (hour_shift_needs_step(s, &t, initial_hour, after_ms)) {
      t = step(s, t, s->u.calint.interval);
      if (t > limit)
        return CHIME_ENEVERFIRES;
    }
  }
  if (!ignore_end && s->end_ms <= t)
    return CHIME_ENEVERFIRES;
  *ret_ms = t;
  return 0;
}

int64_t chime__calint_final(const chime_schedule *s) {
  if (s->end_ms == CHIME_END_NONE)
    return CHIME_NO_FIRE;
  int64_t t;
  if (chime__calint_after(s, s->end_ms - 1000, true, &t) != 0)
    return CHIME_NO_FIRE;
  if (t == s->end_ms)
    return t;
  /* Quartz backs up one interval from the first fire past the end. */
  int64_t n = s->u.calint.interval;
  switch (s->u.calint.unit) {
  case CHIME_UNIT_MILLISECOND:
    t -= n;
    break;
  case CHIME_UNIT_SECOND:
    t -= n * CHIME_MS_PER_SECOND;
    break;
  case CHIME_UNIT_MINUTE:
    t -= n * CHIME_MS_PER_MINUTE;
    break;
  case CHIME_UNIT_HOUR:
    t -= n * CHIME_MS_PER_HOUR;
    break;
  default:
    t = step(s, t, -n);
    break;
  }
  return t < s->start_ms ? s->start_ms : t;
}
