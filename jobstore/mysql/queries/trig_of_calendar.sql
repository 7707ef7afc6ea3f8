-- The triggers naming a calendar, locked: a changed calendar recomputes their
-- next fires (scheduler, calendar).
-- Called by: calendar.c (update_triggers).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = ?
  AND calendar_name = ?
FOR UPDATE
