-- Deletes a calendar (scheduler, calendar).
-- Called by: calendar.c (cal_remove_fn).
DELETE FROM {P}calendars
WHERE sched_name = ?
  AND calendar_name = ?
