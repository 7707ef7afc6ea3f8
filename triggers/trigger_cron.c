/*
 * trigger_cron.c: the cron trigger (Quartz's CronTriggerImpl): the fire
 * times of a cron expression read in a zone (chime_cron_next), from the
 * start time on (its milliseconds dropped, as Quartz does), up to and
 * including the end time.
 */
#include "core/errbuf.h"
#include "triggers/trigger.h"

int chime__cron_check(const chime_schedule *s, char *errbuf, size_t len) {
  if (s->u.cron.cron == NULL)
    return chime__errf(errbuf, len, CHIME_EINVAL,
                       "a cron trigger needs a cron expression");
  return 0;
}

/* Quartz's CronTriggerImpl.setStartTime drops the start's milliseconds. */
static int64_t cron_start(const chime_schedule *s) {
  return s->start_ms - (s->start_ms % 1000 + 1000) % 1000;
}

int chime__cron_after(const chime_schedule *s, int64_t after_ms,
                      int64_t *ret_ms) {
  /* Quartz: before the start, search from one second before it. */
  int64_t start = cron_start(s);
  if (start > after_ms)
    after_ms = start - 1000;
  if (after_ms >= s->end_ms)
    return CHIME_ENEVERFIRES;
  if (after_ms > CHIME__TRIGGER_MAX_MS)
    return CHIME_ENEVERFIRES;
  int64_t t;
  if (chime_cron_next(s->u.cron.cron, s->zone, after_ms, &t) != 0)
    return CHIME_ENEVERFIRES;
  if (t > s->end_ms)
    return CHIME_ENEVERFIRES;
  *ret_ms = t;
  return 0;
}

int64_t chime__cron_final(const chime_schedule *s) {
  if (s->end_ms == CHIME_END_NONE)
    return CHIME_NO_FIRE;
  /*
   * The last fire at or before the end: "next(x) <= end" holds for small x
   * and fails from the last fire on, so bisect for the largest such x.
   */
  int64_t lo = cron_start(s) - 1000, hi = s->end_ms, t;
  if (chime__cron_after(s, lo, &t) != 0)
    return CHIME_NO_FIRE;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (chime__cron_after(s, mid, &t) == 0)
      lo = mid;
    else
      hi = mid;
  }
  if (chime__cron_after(s, lo, &t) != 0 || t < cron_start(s))
    return CHIME_NO_FIRE;
  return t;
}
