/*
 * misfire.h: misfire handling (Quartz's updateAfterMisfire and the stores'
 * misfire test).  A trigger has *misfired* when its next fire time is more
 * than the misfire threshold in the past; its misfire instruction then
 * says how its state changes.  Pure functions of (schedule, state, now).
 */
#ifndef CHIME_TRIGGERS_MISFIRE_H
#define CHIME_TRIGGERS_MISFIRE_H

#include "triggers/trigger.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * chime__misfire_valid: whether instruction m is accepted by kind (see
 * chime_misfire in chime.h).  Thread: any.  Inline here because schedule
 * validation (trigger.c) needs it, while misfire.c needs trigger.c: so the
 * two files do not call each other.
 */
static inline bool chime__misfire_valid(chime_trigger_kind kind,
                                        chime_misfire m) {
  switch (m) {
  case CHIME_MISFIRE_SMART:
  case CHIME_MISFIRE_IGNORE:
  case CHIME_MISFIRE_FIRE_NOW:
    return kind >= CHIME_TRIGGER_SIMPLE && kind <= CHIME_TRIGGER_RECURRENCE;
  case CHIME_MISFIRE_DO_NOTHING:
    return kind == CHIME_TRIGGER_CRON ||
           kind == CHIME_TRIGGER_CALENDAR_INTERVAL ||
           kind == CHIME_TRIGGER_DAILY_TIME_INTERVAL ||
           kind == CHIME_TRIGGER_RECURRENCE;
  case CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT:
  case CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT:
  case CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT:
  case CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT:
    return kind == CHIME_TRIGGER_SIMPLE;
  }
  return false;
}

/*
 * chime__misfire_effective: the instruction apply_misfire carries out, as
 * Quartz resolves it: SMART becomes FIRE_NOW for cron, calendar-interval
 * and daily triggers; for a simple trigger it becomes FIRE_NOW (repeat
 * count 0), RESCHEDULE_NEXT_REMAINING_COUNT (repeating forever) or
 * RESCHEDULE_NOW_EXISTING_COUNT (otherwise), and a simple trigger's
 * FIRE_NOW with a repeat count other than 0 becomes
 * RESCHEDULE_NOW_REMAINING_COUNT.  st may be NULL (initial state).
 */
chime_misfire chime__misfire_effective(const chime_schedule *s,
                                       const chime_fire_state *st);

/*
 * chime__trigger_is_misfired: whether a store should apply the misfire
 * instruction at now_ms: the trigger has a next fire time, its
 * instruction is not IGNORE (as in Quartz's stores) and next_fire_ms <=
 * now_ms - threshold_ms (a threshold <= 0 counts as 0).  Thread: any.
 */
bool chime__trigger_is_misfired(const chime_schedule *s,
                                const chime_fire_state *st, int64_t now_ms,
                                int64_t threshold_ms);

/*
 * chime__trigger_apply_misfire: Quartz's updateAfterMisfire at now_ms:
 *   IGNORE: nothing changes (the missed fires happen at once, as
 *     scheduled);
 *   FIRE_NOW: next = now;
 *   DO_NOTHING, RESCHEDULE_NEXT_EXISTING_COUNT: next = the first included
 *     fire time after now (CHIME_NO_FIRE if none);
 *   RESCHEDULE_NEXT_REMAINING_COUNT: the same, and the fires missed
 *     between the old next and the new one count as triggered;
 *   RESCHEDULE_NOW_EXISTING_COUNT: the trigger restarts now (start = next
 *     = now) with repeat_count - times_triggered repeats left (unless 0 or
 *     indefinite), times_triggered = 0; CHIME_NO_FIRE if the end is before
 *     now;
 *   RESCHEDULE_NOW_REMAINING_COUNT: likewise, with the fires missed
 *     between the old next and now deducted as well (never below 0).
 * FIRE_NOW and the RESCHEDULE_NOW_* instructions do not consult the
 * calendar, as in Quartz.  A finished state (no next fire) is left as it
 * is.  s must be valid; st is updated in place.
 * Returns: 0; CHIME_EINVAL (NULL, or an invalid schedule).  Thread: any.
 */
int chime__trigger_apply_misfire(const chime_schedule *s, chime_fire_state *st,
                                 int64_t now_ms);

#endif /* CHIME_TRIGGERS_MISFIRE_H */
