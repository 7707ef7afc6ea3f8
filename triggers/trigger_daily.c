/*
 * trigger_daily.c: the daily-time-interval trigger (Quartz's
 * DailyTimeIntervalTriggerImpl): on the chosen days of the week, from the
 * window's start time of day, every interval (seconds, minutes or hours of
 * real time), up to the window's end time of day (inclusive), all read in
 * the trigger's zone; 1 + repeat_count fires in all, or forever.
 *
 * Terms: the "window" of a day runs from start_sec_of_day to
 * end_sec_of_day on that local date; a time of day that a DST gap skips is
 * moved forward as java.util.Calendar moves it (02:30 becomes 03:30).
 */
#include "core/errbuf.h"
#include "triggers/trigger.h"

#include "triggers/civil.h"
#include "triggers/tz.h"

static int64_t unit_seconds(chime_interval_unit unit) {
  switch (unit) {
  case CHIME_UNIT_SECOND:
    return 1;
  case CHIME_UNIT_MINUTE:
    return 60;
  case CHIME_UNIT_HOUR:
    return 3600;
  default:
    return 0;
  }
}

static int check_window(const chime_schedule *s, char *errbuf, size_t len) {
  int32_t a = s->u.daily.start_sec_of_day, b = s->u.daily.end_sec_of_day;
  if (a < 0 || a >= 86400)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "window start %d is not a second of the day "
                       "(0-86399)",
                       (int)a);
  if (b < 0 || b >= 86400)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "window end %d is not a second of the day "
                       "(0-86399)",
                       (int)b);
  if (b < a)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "window end %02d:%02d:%02d is before window "
                       "start %02d:%02d:%02d",
                       (int)(b / 3600), (int)(b / 60 % 60), (int)(b % 60),
                       (int)(a / 3600), (int)(a / 60 % 60), (int)(a % 60));
  if ((s->u.daily.days_of_week & ~CHIME__DAILY_ALL_DAYS) != 0)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "days-of-week mask 0x%x has bits past Saturday",
                       (unsigned)s->u.daily.days_of_week);
  if ((s->u.daily.days_of_week & CHIME__DAILY_ALL_DAYS) == 0)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "no days of the week are set");
  return 0;
}

int chime__daily_check(const chime_schedule *s, char *errbuf, size_t len) {
  int64_t per = unit_seconds(s->u.daily.unit);
  int32_t n = s->u.daily.interval;
  if (per == 0)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "interval unit %d is not valid for a "
                       "daily-time-interval trigger (must be SECOND, "
                       "MINUTE or HOUR)",
                       (int)s->u.daily.unit);
  if (n < 1)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "repeat interval %d must be at least 1", (int)n);
  if (n * per > CHIME__DAILY_MAX_INTERVAL_S)
    return chime__errf(errbuf, len, CHIME_ELIMIT,
                       "repeat interval can not exceed 24 hours");
  if (s->u.daily.repeat_count < CHIME_REPEAT_INDEFINITELY)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "repeat count %d is invalid: it must be >= 0, "
                       "or CHIME_REPEAT_INDEFINITELY (-1)",
                       (int)s->u.daily.repeat_count);
  int rc = check_window(s, errbuf, len);
  if (rc != 0)
    return rc;
  return 0;
}

/* TimeOfDay.getTimeOfDayForDate: sec_of_day on t's local date. */
static int64_t at_time_of_day(const chime_schedule *s, int64_t t, int32_t sec) {
  return chime__jcal_set_time_of_day(s->zone, t, sec / 3600, sec / 60 % 60,
                                     sec % 60, 0);
}

static int64_t local_days(const chime_schedule *s, int64_t t, int *ret_wday) {
  chime_civil l;
  chime__zone_to_local(s->zone, t, &l, NULL);
  if (ret_wday != NULL)
    *ret_wday = l.weekday;
  return chime__days_from_civil(l.year, l.month, l.day);
}

/*
 * Quartz's advanceToNextDayOfWeekIfNecessary: when forced or when t's day
 * is not chosen, the window start of the next chosen day; otherwise t.
 * CHIME_ENEVERFIRES when that is past the end time.
 */
static int advance_day(const chime_schedule *s, int64_t t, bool force,
                       int64_t *ret_ms) {
  int64_t day = at_time_of_day(s, t, s->u.daily.start_sec_of_day);
  int wday;
  local_days(s, day, &wday);
  if (force || !((s->u.daily.days_of_week >> wday) & 1u)) {
    for (int i = 1; i <= 7; i++) {
      day = chime__jcal_add_days(s->zone, day, 1);
      local_days(s, day, &wday);
      if ((s->u.daily.days_of_week >> wday) & 1u) {
        t = day;
        break;
      }
    }
  }
  if (t > s->end_ms)
    return CHIME_ENEVERFIRES;
  *ret_ms = t;
  return 0;
}

/* The window grid point at or after t (t at or after the window start). */
static int64_t grid_at_or_after(const chime_schedule *s, int64_t t,
                                int64_t window_start) {
  int64_t per = s->u.daily.interval * unit_seconds(s->u.daily.unit);
  int64_t secs = (t - window_start) / 1000;
  int64_t k = secs / per + (secs % per != 0);
  return window_start + k * per * 1000;
}

int chime__daily_after(const chime_schedule *s, const chime_fire_state *st,
                       int64_t after_ms, int64_t *ret_ms) {
  int32_t repeat = s->u.daily.repeat_count;
  int64_t times = st != NULL ? st->times_triggered : 0;
  if (repeat != CHIME_REPEAT_INDEFINITELY && times > repeat)
    return CHIME_ENEVERFIRES;
  /* Quartz's "complete" flag: once a fire found no next one, never again. */
  if (st != NULL && st->prev_fire_ms != CHIME_NO_FIRE &&
      st->next_fire_ms == CHIME_NO_FIRE)
    return CHIME_ENEVERFIRES;
  if (after_ms > CHIME__TRIGGER_MAX_MS)
    return CHIME_ENEVERFIRES;
  /* Quartz compares against one second after after_ms. */
  int64_t t = after_ms + 1000;
  if (t < s->start_ms)
    t = s->start_ms;
  bool past = t > at_time_of_day(s, t, s->u.daily.end_sec_of_day);
  if (advance_day(s, t, past, &t) != 0)
    return CHIME_ENEVERFIRES;
  int64_t win_end = at_time_of_day(s, t, s->u.daily.end_sec_of_day);
  int64_t win_start = at_time_of_day(s, t, s->u.daily.start_sec_of_day);
  if (t < win_start) {
    t = win_start;
  } else {
    t = grid_at_or_after(s, t, win_start);
    if (t > win_end) {
      bool same_day = local_days(s, t, NULL) == local_days(s, win_end, NULL);
      if (advance_day(s, t, same_day, &t) != 0)
        return CHIME_ENEVERFIRES;
      t = at_time_of_day(s, t, s->u.daily.start_sec_of_day);
    }
  }
  /* Quartz 2.3.2 may return a time past the end here; chime does not. */
  if (t > s->end_ms)
    return CHIME_ENEVERFIRES;
  *ret_ms = t;
  return 0;
}

int64_t chime__daily_final(const chime_schedule *s) {
  if (s->end_ms == CHIME_END_NONE)
    return CHIME_NO_FIRE;
  /* The last fire at or before the end, by bisection as for cron. */
  int64_t lo = s->start_ms - 1000, hi = s->end_ms, t;
  if (chime__daily_after(s, NULL, lo, &t) != 0)
    return CHIME_NO_FIRE;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (chime__daily_after(s, NULL, mid, &t) == 0)
      lo = mid;
    else
      hi = mid;
  }
  if (chime__daily_after(s, NULL, lo, &t) != 0)
    return CHIME_NO_FIRE;
  return t;
}
