/*
 * trigger_rrule.c: the recurrence trigger (Quartz.NET's RecurrenceTrigger):
 * the instances of an RFC 5545 recurrence (rrule.c), from the trigger's
 * start time on, up to and including its end time.  The recurrence's own
 * DTSTART is its first instance; a start time later than DTSTART (by
 * default the time the trigger is added) skips the instances before it.
 */
#include "core/errbuf.h"
#include "triggers/trigger.h"

int chime__rrule_check(const chime_schedule *s, char *errbuf, size_t len) {
  if (s->u.rrule.rule == NULL)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "a recurrence trigger needs a recurrence");
  return 0;
}

int chime__rrule_after(const chime_schedule *s, int64_t after_ms,
                       int64_t *ret_ms) {
  if (s->start_ms > after_ms)
    after_ms = s->start_ms - 1;
  if (after_ms >= s->end_ms || after_ms > CHIME__TRIGGER_MAX_MS)
    return CHIME_ENEVERFIRES;
  int64_t t;
  if (chime_rrule_next(s->u.rrule.rule, after_ms, &t) != 0 || t > s->end_ms)
    return CHIME_ENEVERFIRES;
  *ret_ms = t;
  return 0;
}

int64_t chime__rrule_final(const chime_schedule *s) {
  if (s->end_ms == CHIME_END_NONE)
    return CHIME_NO_FIRE;
  /* The last instance at or before the end, by bisection as for cron. */
  int64_t lo = s->start_ms - 1, hi = s->end_ms, t;
  if (chime__rrule_after(s, lo, &t) != 0)
    return CHIME_NO_FIRE;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (chime__rrule_after(s, mid, &t) == 0)
      lo = mid;
    else
      hi = mid;
  }
  return chime__rrule_after(s, lo, &t) == 0 ? t : CHIME_NO_FIRE;
}
