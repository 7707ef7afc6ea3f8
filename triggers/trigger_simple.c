/*
 * trigger_simple.c: the simple trigger (Quartz's SimpleTriggerImpl): it
 * fires at its start, then every interval_ms, 1 + repeat_count times in all
 * (or forever with CHIME_REPEAT_INDEFINITELY), never at or after its end.
 * The effective start and repeat count come from the state, since Quartz's
 * RESCHEDULE_NOW_* misfire instructions rewrite them.
 */
#include "core/errbuf.h"
#include "triggers/trigger.h"

static int64_t eff_start(const chime_schedule *s, const chime_fire_state *st) {
  return st != NULL ? st->start_ms : s->start_ms;
}

static int32_t eff_repeat(const chime_schedule *s, const chime_fire_state *st) {
  return st != NULL ? st->repeat_count : s->u.simple.repeat_count;
}

int chime__simple_check(const chime_schedule *s, char *errbuf, size_t len) {
  int64_t interval = s->u.simple.interval_ms;
  int32_t repeat = s->u.simple.repeat_count;
  if (repeat < 0 && repeat != CHIME_REPEAT_INDEFINITELY)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "repeat count %d is invalid: it must be >= 0, "
                       "or CHIME_REPEAT_INDEFINITELY (-1)",
                       (int)repeat);
  if (interval < 0)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "repeat interval %lld ms is negative",
                       (long long)interval);
  if (repeat != 0 && interval < 1)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "repeat interval must be at least 1 ms when "
                       "the trigger repeats");
  if (interval > CHIME__SIMPLE_MAX_INTERVAL_MS)
    return chime__errf(errbuf, len, CHIME_ELIMIT,
                       "repeat interval %lld ms exceeds the limit of "
                       "%lld ms",
                       (long long)interval,
                       (long long)CHIME__SIMPLE_MAX_INTERVAL_MS);
  return 0;
}

int chime__simple_after(const chime_schedule *s, const chime_fire_state *st,
                        int64_t after_ms, int64_t *ret_ms) {
  int64_t start = eff_start(s, st);
  int32_t repeat = eff_repeat(s, st);
  int64_t times = st != NULL ? st->times_triggered : 0;
  int64_t interval = s->u.simple.interval_ms;
  if (repeat != CHIME_REPEAT_INDEFINITELY && times > repeat)
    return CHIME_ENEVERFIRES;
  if (repeat == 0 && after_ms >= start)
    return CHIME_ENEVERFIRES;
  if (s->end_ms <= after_ms)
    return CHIME_ENEVERFIRES;
  if (after_ms < start) {
    /* As in Quartz, the start itself is not compared with the end. */
    *ret_ms = start;
    return 0;
  }
  if (after_ms > CHIME__TRIGGER_MAX_MS)
    return CHIME_ENEVERFIRES;
  /* Validation guarantees interval >= 1 here (repeat != 0). */
  int64_t n = (after_ms - start) / interval + 1;
  if (repeat != CHIME_REPEAT_INDEFINITELY && n > repeat)
    return CHIME_ENEVERFIRES;
  /* n * interval <= after - start + interval: no overflow in range. */
  int64_t t = start + n * interval;
  if (s->end_ms <= t || t > CHIME__TRIGGER_MAX_MS)
    return CHIME_ENEVERFIRES;
  *ret_ms = t;
  return 0;
}

int64_t chime__simple_times_between(const chime_schedule *s, int64_t from_ms,
                                    int64_t to_ms) {
  int64_t interval = s->u.simple.interval_ms;
  if (interval < 1)
    return 0;
  return (to_ms - from_ms) / interval;
}

/* Quartz's getFireTimeBefore(end): the last multiple of the interval from
 * start at or before end. */
static int64_t fire_time_before(const chime_schedule *s, int64_t start,
                                int64_t end) {
  if (end < start)
    return CHIME_NO_FIRE;
  int64_t n = chime__simple_times_between(s, start, end);
  return start + n * s->u.simple.interval_ms;
}

int64_t chime__simple_final(const chime_schedule *s,
                            const chime_fire_state *st) {
  int64_t start = eff_start(s, st);
  int32_t repeat = eff_repeat(s, st);
  if (repeat == 0)
    return start;
  if (repeat == CHIME_REPEAT_INDEFINITELY)
    return s->end_ms == CHIME_END_NONE ? CHIME_NO_FIRE
                                       : fire_time_before(s, start, s->end_ms);
  int64_t span, last;
  if (__builtin_mul_overflow((int64_t)repeat, s->u.simple.interval_ms, &span) ||
      __builtin_add_overflow(start, span, &last) ||
      last > CHIME__TRIGGER_MAX_MS) {
    /* Past year 9999: only the end can bound it. */
    return s->end_ms == CHIME_END_NONE ? CHIME_NO_FIRE
                                       : fire_time_before(s, start, s->end_ms);
  }
  if (s->end_ms == CHIME_END_NONE || last < s->end_ms)
    return last;
  return fire_time_before(s, start, s->end_ms);
}
