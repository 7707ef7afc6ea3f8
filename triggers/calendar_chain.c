/*
 * calendar_chain.c: the questions asked of a whole chain of calendars (a
 * calendar and its bases): is an instant included, and which is the next
 * included instant.  It asks each calendar's own rule (calendar_kinds.c),
 * above them, so that the life cycle (calendar.c) calls no kind.
 */
#include "triggers/calendar_impl.h"

#include <assert.h>

/*
 * Rounds of the chain search: each round asks every calendar of the chain
 * for its own next included instant and stops when none moves.  Calendars
 * whose included times never meet (weekdays only on top of weekends only)
 * would trade the instant forever; this bound turns that into
 * CHIME_ENEVERFIRES.
 */
#define MAX_ROUNDS 4096

bool chime__calendar_includes(const chime_calendar *cal, int64_t t_ms) {
  /* Far-off instants would overflow the date arithmetic: exclude them. */
  if (cal != NULL &&
      (t_ms < CHIME__CALENDAR_MIN_MS || t_ms > CHIME__CALENDAR_MAX_MS))
    return false;
  for (; cal != NULL; cal = cal->base)
    if (!chime__calendar_own_includes(cal, t_ms))
      return false;
  return true;
}

int chime__calendar_next_included(const chime_calendar *cal, int64_t t_ms,
                                  int64_t *ret_ms) {
  if (ret_ms == NULL || t_ms < CHIME__CALENDAR_MIN_MS ||
      t_ms > CHIME__CALENDAR_MAX_MS)
    return CHIME_EINVAL;
  int64_t t = t_ms;
  for (int round = 0; round < MAX_ROUNDS; round++) {
    bool moved = false;
    for (const chime_calendar *c = cal; c != NULL; c = c->base) {
      int64_t next;
      int rc = chime__calendar_own_next(c, t, &next);
      if (rc < 0)
        return rc;
      assert(next >= t);
      if (next > CHIME__CALENDAR_MAX_MS)
        return CHIME_ENEVERFIRES;
      if (next != t) {
        t = next;
        moved = true;
      }
    }
    if (!moved) {
      *ret_ms = t;
      return 0;
    }
  }
  return CHIME_ENEVERFIRES;
}
