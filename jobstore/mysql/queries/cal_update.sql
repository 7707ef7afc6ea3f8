-- Replaces a calendar's definition (definition, scheduler, calendar).
-- Called by: calendar.c (cal_add_fn).
UPDATE {P}calendars
SET definition = ?
WHERE sched_name = ?
  AND calendar_name = ?
