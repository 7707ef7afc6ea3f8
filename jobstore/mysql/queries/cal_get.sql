-- A calendar's definition, locked in share mode (scheduler, calendar).
-- Called by: tables.c (chime__mysql_calendar_load).
SELECT definition
FROM {P}calendars
WHERE sched_name = ?
  AND calendar_name = ?
LOCK IN SHARE MODE
