-- A calendar's definition, locked for update (scheduler, calendar).
-- Called by: calendar.c (update_triggers), calendar.c (cal_add_fn),
-- calendar.c (cal_remove_fn), tables.c (chime__mysql_calendar_load).
SELECT definition
FROM {P}calendars
WHERE sched_name = ?
  AND calendar_name = ?
FOR UPDATE
