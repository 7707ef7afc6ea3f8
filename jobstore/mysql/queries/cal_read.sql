-- Not locked: the claims, fires and scans (tables.c).
-- Called by: tables.c (chime__mysql_calendar_read).
SELECT definition
FROM {P}calendars
WHERE sched_name = ?
  AND calendar_name = ?
