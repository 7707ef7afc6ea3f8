-- Every calendar of a scheduler and its definition (scheduler).
-- Called by: zones.c (cal_scan_fn).
SELECT calendar_name, definition
FROM {P}calendars
WHERE sched_name = ?
