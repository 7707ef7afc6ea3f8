/*
 * misfire.c: misfire instructions per trigger kind, with Quartz's
 * semantics (SimpleTriggerImpl.updateAfterMisfire and the identical
 * updateAfterMisfire of the cron, calendar-interval and daily-time-interval
 * triggers).  "now" is a parameter: the engine passes the database's time.
 */
#include "triggers/misfire.h"

chime_misfire chime__misfire_effective(const chime_schedule *s,
                                       const chime_fire_state *st) {
  chime_misfire m = s->misfire;
  if (s->kind != CHIME_TRIGGER_SIMPLE)
    return m == CHIME_MISFIRE_SMART ? CHIME_MISFIRE_FIRE_NOW : m;
  int32_t repeat = st != NULL ? st->repeat_count : s->u.simple.repeat_count;
  if (m == CHIME_MISFIRE_SMART) {
    if (repeat == 0)
      return CHIME_MISFIRE_FIRE_NOW;
    if (repeat == CHIME_REPEAT_INDEFINITELY)
      return CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT;
    return CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT;
  }
  if (m == CHIME_MISFIRE_FIRE_NOW && repeat != 0)
    return CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT;
  return m;
}

bool chime__trigger_is_misfired(const chime_schedule *s,
                                const chime_fire_state *st, int64_t now_ms,
                                int64_t threshold_ms) {
  if (s == NULL || st == NULL || st->next_fire_ms == CHIME_NO_FIRE ||
      s->misfire == CHIME_MISFIRE_IGNORE)
    return false;
  int64_t limit = now_ms;
  if (threshold_ms > 0 && __builtin_sub_overflow(now_ms, threshold_ms, &limit))
    return false;
  return st->next_fire_ms <= limit;
}

static int32_t clamp32(int64_t v) {
  if (v > INT32_MAX)
    return INT32_MAX;
  if (v < 0)
    return 0;
  return (int32_t)v;
}

/* The RESCHEDULE_NOW_* instructions: the trigger starts again at now. */
static void reschedule_now(const chime_schedule *s, chime_fire_state *st,
                           int64_t now_ms, bool remaining) {
  int32_t repeat = st->repeat_count;
  if (repeat != 0 && repeat != CHIME_REPEAT_INDEFINITELY) {
    int64_t used = st->times_triggered;
    if (remaining && st->next_fire_ms != CHIME_NO_FIRE)
      used += chime__simple_times_between(s, st->next_fire_ms, now_ms);
    st->repeat_count = clamp32((int64_t)repeat - used);
    st->times_triggered = 0;
  }
  if (s->end_ms < now_ms) {
    st->next_fire_ms = CHIME_NO_FIRE; /* past the end */
  } else {
    st->start_ms = now_ms;
    st->next_fire_ms = now_ms;
  }
}

/* The RESCHEDULE_NEXT_* and DO_NOTHING instructions. */
static void reschedule_next(const chime_schedule *s, chime_fire_state *st,
                            int64_t now_ms, bool count_missed) {
  int64_t t;
  if (chime__trigger_fire_after(s, st, now_ms, &t) != 0) {
    st->next_fire_ms = CHIME_NO_FIRE;
    return;
  }
  if (count_missed && st->next_fire_ms != CHIME_NO_FIRE)
    st->times_triggered += chime__simple_times_between(s, st->next_fire_ms, t);
  st->next_fire_ms = t;
}

int chime__trigger_apply_misfire(const chime_schedule *s, chime_fire_state *st,
                                 int64_t now_ms) {
  if (s == NULL || st == NULL || chime__schedule_validate(s, NULL, 0) != 0)
    return CHIME_EINVAL;
  if (st->next_fire_ms == CHIME_NO_FIRE)
    return 0; /* finished: nothing can have misfired */
  switch (chime__misfire_effective(s, st)) {
  case CHIME_MISFIRE_SMART: /* resolved above; never reached */
  case CHIME_MISFIRE_IGNORE:
    break;
  case CHIME_MISFIRE_FIRE_NOW:
    st->next_fire_ms = now_ms;
    break;
  case CHIME_MISFIRE_DO_NOTHING:
  case CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT:
    reschedule_next(s, st, now_ms, false);
    break;
  case CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT:
    reschedule_next(s, st, now_ms, true);
    break;
  case CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT:
    reschedule_now(s, st, now_ms, false);
    break;
  case CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT:
    reschedule_now(s, st, now_ms, true);
    break;
  }
  return 0;
}
