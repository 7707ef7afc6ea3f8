/*
 * trigger.c: what the four trigger kinds share: validation of the common
 * fields, the dispatch to each kind's raw fire-time search, and the
 * calendar loop that skips excluded times (bounded, see trigger.h), which
 * Quartz repeats in every kind's computeFirstFireTime and triggered().
 *
 * Calls go one way: this file calls each kind (trigger_simple.c,
 * trigger_cron.c, trigger_calint.c, trigger_daily.c) and the calendars;
 * the kinds never call back (their messages go through core/errbuf.h), and
 * misfire.c calls this file, not the reverse (chime__misfire_valid is
 * inline in misfire.h).
 */
#include "core/errbuf.h"
#include "triggers/trigger.h"
#include "triggers/misfire.h"

#include <assert.h>

static bool in_range(int64_t t) {
  return t >= CHIME__TRIGGER_MIN_MS && t <= CHIME__TRIGGER_MAX_MS;
}

static const char *kind_name(chime_trigger_kind kind) {
  switch (kind) {
  case CHIME_TRIGGER_SIMPLE:
    return "simple";
  case CHIME_TRIGGER_CRON:
    return "cron";
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    return "calendar-interval";
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    return "daily-time-interval";
  case CHIME_TRIGGER_RECURRENCE:
    return "recurrence";
  }
  return "unknown";
}

int chime__schedule_validate(const chime_schedule *s, char *errbuf,
                             size_t errbuf_len) {
  if (errbuf != NULL && errbuf_len > 0)
    errbuf[0] = '\0';
  if (s == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL, "schedule is NULL");
  if (s->kind < CHIME_TRIGGER_SIMPLE || s->kind > CHIME_TRIGGER_RECURRENCE)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "unknown trigger kind %d", (int)s->kind);
  if (!in_range(s->start_ms))
    return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                       "start time %lld is outside years 1-9999",
                       (long long)s->start_ms);
  if (s->end_ms != CHIME_END_NONE && !in_range(s->end_ms))
    return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                       "end time %lld is outside years 1-9999",
                       (long long)s->end_ms);
  if (s->end_ms < s->start_ms)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "end time is before start time");
  if (s->kind != CHIME_TRIGGER_SIMPLE && s->zone == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "a time zone is required for this trigger kind");
  if (!chime__misfire_valid(s->kind, s->misfire))
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "misfire instruction %d is not valid for a %s "
                       "trigger",
                       (int)s->misfire, kind_name(s->kind));
  if (s->jitter_ms < 0 || s->jitter_ms > CHIME_JITTER_MAX_MS ||
      s->jitter_offset_ms < 0 ||
      (s->jitter_ms > 0 && s->jitter_offset_ms >= s->jitter_ms) ||
      (s->jitter_ms == 0 && s->jitter_offset_ms != 0))
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "jitter %lld ms (offset %lld) is outside 0-%lld ms",
                       (long long)s->jitter_ms, (long long)s->jitter_offset_ms,
                       (long long)CHIME_JITTER_MAX_MS);
  if (s->kind == CHIME_TRIGGER_SIMPLE && s->jitter_ms != 0)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "a simple trigger has no jitter (move its start)");
  switch (s->kind) {
  case CHIME_TRIGGER_SIMPLE:
    return chime__simple_check(s, errbuf, errbuf_len);
  case CHIME_TRIGGER_CRON:
    return chime__cron_check(s, errbuf, errbuf_len);
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    return chime__calint_check(s, errbuf, errbuf_len);
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    return chime__daily_check(s, errbuf, errbuf_len);
  case CHIME_TRIGGER_RECURRENCE:
    return chime__rrule_check(s, errbuf, errbuf_len);
  }
  return CHIME_EINVAL;
}

/* The kind's getFireTimeAfter, without the calendar. */
static int raw_after(const chime_schedule *s, const chime_fire_state *st,
                     int64_t after_ms, int64_t *ret_ms) {
  switch (s->kind) {
  case CHIME_TRIGGER_SIMPLE:
    return chime__simple_after(s, st, after_ms, ret_ms);
  case CHIME_TRIGGER_CRON:
    return chime__cron_after(s, after_ms, ret_ms);
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    return chime__calint_after(s, after_ms, false, ret_ms);
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    return chime__daily_after(s, st, after_ms, ret_ms);
  case CHIME_TRIGGER_RECURRENCE:
    return chime__rrule_after(s, after_ms, ret_ms);
  }
  return CHIME_EINVAL;
}

/*
 * Whether the kind's fire times form one fixed set, so that "the first fire
 * at or after x" may replace stepping through the excluded ones.  Not so
 * for day and week calendar intervals, whose leap (see trigger_calint.c)
 * depends on the time searched from, as in Quartz.
 */
static bool can_jump(const chime_schedule *s) {
  return s->kind != CHIME_TRIGGER_CALENDAR_INTERVAL ||
         s->u.calint.unit < CHIME_UNIT_DAY ||
         s->u.calint.unit > CHIME_UNIT_WEEK;
}

/*
 * From candidate t on, the first time the calendar includes: Quartz's
 * "while (!calendar.isTimeIncluded(t)) t = getFireTimeAfter(t)", bounded by
 * years and by candidates.  Where the fire times are a fixed set, the
 * calendar's next included instant lets the loop skip every excluded fire
 * between (same result, fewer steps).
 */
static int skip_excluded(const chime_schedule *s, const chime_fire_state *st,
                         int64_t t, int64_t *ret_ms) {
  if (s->calendar == NULL) {
    *ret_ms = t;
    return 0;
  }
  int64_t limit = t > CHIME__TRIGGER_MAX_MS ? t : t + CHIME__TRIGGER_GIVEUP_MS;
  bool jump = can_jump(s);
  for (long i = 0;; i++) {
    if (chime__calendar_includes(s->calendar, t)) {
      *ret_ms = t;
      return 0;
    }
    if (i >= CHIME__TRIGGER_MAX_SKIPS)
      return CHIME_ENEVERFIRES;
    int64_t from = t, x;
    if (t >= CHIME__TRIGGER_MIN_MS && t <= CHIME__TRIGGER_MAX_MS &&
        (jump || i == 0)) {
      /* Nothing included before the bound: no fire can be (exact for
       * every kind, so checked once even where jumping is not allowed). */
      if (chime__calendar_next_included(s->calendar, t, &x) != 0 || x > limit)
        return CHIME_ENEVERFIRES;
      /* Search from just before x.  A daily trigger looks one second past
       * the time it is given (Quartz), so it gets x - 1 s, never less than
       * t, which keeps the search moving. */
      if (jump && s->kind == CHIME_TRIGGER_DAILY_TIME_INTERVAL)
        from = x - 1000 > t ? x - 1000 : t;
      else if (jump)
        from = x - 1;
    }
    int rc = raw_after(s, st, from, &t);
    if (rc != 0)
      return rc;
    if (t > limit)
      return CHIME_ENEVERFIRES;
  }
}

void chime__trigger_state_init(const chime_schedule *s, chime_fire_state *ret) {
  ret->next_fire_ms = CHIME_NO_FIRE;
  ret->prev_fire_ms = CHIME_NO_FIRE;
  ret->times_triggered = 0;
  ret->start_ms = s->start_ms;
  ret->repeat_count =
      s->kind == CHIME_TRIGGER_SIMPLE ? s->u.simple.repeat_count : 0;
}

int chime__trigger_first_fire(const chime_schedule *s, chime_fire_state *ret) {
  if (s == NULL || ret == NULL || chime__schedule_validate(s, NULL, 0) != 0)
    return CHIME_EINVAL;
  chime_fire_state st;
  chime__trigger_state_init(s, &st);
  int64_t t;
  int rc;
  if (s->kind == CHIME_TRIGGER_SIMPLE ||
      s->kind == CHIME_TRIGGER_CALENDAR_INTERVAL) {
    /* Quartz starts from the start time itself. */
    t = s->start_ms;
    rc = 0;
  } else {
    /* Cron and daily: getFireTimeAfter(start - 1 second). */
    rc = raw_after(s, &st, s->start_ms - 1000, &t);
  }
  if (rc == 0)
    rc = skip_excluded(s, &st, t, &t);
  if (rc != 0)
    return rc;
  st.next_fire_ms = t + s->jitter_offset_ms;
  *ret = st;
  return 0;
}

int chime__trigger_fire_after(const chime_schedule *s,
                              const chime_fire_state *st, int64_t after_ms,
                              int64_t *ret_ms) {
  if (s == NULL || ret_ms == NULL || chime__schedule_validate(s, NULL, 0) != 0)
    return CHIME_EINVAL;
  chime_fire_state init;
  if (st == NULL) {
    chime__trigger_state_init(s, &init);
    st = &init;
  }
  int64_t t, d = s->jitter_offset_ms;
  int rc = raw_after(s, st, after_ms - d, &t);
  if (rc == 0)
    rc = skip_excluded(s, st, t, &t);
  if (rc != 0)
    return rc;
  *ret_ms = t + d;
  return 0;
}

int chime__trigger_final_fire(const chime_schedule *s,
                              const chime_fire_state *st, int64_t *ret_ms) {
  if (s == NULL || ret_ms == NULL || chime__schedule_validate(s, NULL, 0) != 0)
    return CHIME_EINVAL;
  switch (s->kind) {
  case CHIME_TRIGGER_SIMPLE:
    *ret_ms = chime__simple_final(s, st);
    break;
  case CHIME_TRIGGER_CRON:
    *ret_ms = chime__cron_final(s);
    break;
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    *ret_ms = chime__calint_final(s);
    break;
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    *ret_ms = chime__daily_final(s);
    break;
  case CHIME_TRIGGER_RECURRENCE:
    *ret_ms = chime__rrule_final(s);
    break;
  }
  if (*ret_ms != CHIME_NO_FIRE)
    *ret_ms += s->jitter_offset_ms;
  return 0;
}

void chime__trigger_triggered(const chime_schedule *s, chime_fire_state *st) {
  int64_t t = CHIME_NO_FIRE;
  st->times_triggered++;
  st->prev_fire_ms = st->next_fire_ms;
  if (st->next_fire_ms != CHIME_NO_FIRE) {
    int rc = raw_after(s, st, st->next_fire_ms - s->jitter_offset_ms, &t);
    if (rc == 0)
      rc = skip_excluded(s, st, t, &t);
    if (rc == 0)
      t += s->jitter_offset_ms;
    else
      t = CHIME_NO_FIRE;
  }
  st->next_fire_ms = t;
}

void chime__trigger_skip_before(const chime_schedule *s, chime_fire_state *st,
                                int64_t now_ms, int64_t max,
                                int64_t *ret_skipped, int64_t *ret_first_ms) {
  int64_t n = 0;
  if (st->next_fire_ms != CHIME_NO_FIRE && st->next_fire_ms < now_ms &&
      ret_first_ms)
    *ret_first_ms = st->next_fire_ms;
  while (n < max && st->next_fire_ms != CHIME_NO_FIRE &&
         st->next_fire_ms < now_ms) {
    chime__trigger_triggered(s, st);
    n++;
  }
  if (ret_skipped)
    *ret_skipped = n;
}

int64_t chime__trigger_queue_excess(const chime_schedule *s,
                                    const chime_fire_state *st, int64_t now_ms,
                                    int64_t keep, int64_t max) {
  chime_fire_state probe = *st;
  int64_t due = 0;
  chime__trigger_skip_before(s, &probe, now_ms, max, &due, NULL);
  return due > keep ? due - keep : 0;
}

bool chime__trigger_may_fire_again(const chime_fire_state *st) {
  return st != NULL && st->next_fire_ms != CHIME_NO_FIRE;
}

int chime__trigger_refire_after_change(const chime_schedule *s,
                                       const chime_fire_state *st,
                                       int64_t *ret_ms) {
  assert(s && st && ret_ms);
  int64_t after =
      st->prev_fire_ms != CHIME_NO_FIRE ? st->prev_fire_ms : st->start_ms - 1;
  return chime__trigger_fire_after(s, st, after, ret_ms);
}
