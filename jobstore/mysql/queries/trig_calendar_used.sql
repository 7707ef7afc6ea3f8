-- Whether a trigger names a calendar (scheduler, calendar): such a calendar
-- is not removed.
-- Called by: calendar.c (cal_remove_fn).
SELECT 1
FROM {P}triggers
WHERE sched_name = ?
  AND calendar_name = ?
LIMIT 1
