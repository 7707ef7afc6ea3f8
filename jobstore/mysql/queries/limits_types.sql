-- The job types that have a limit (limit.c, chime__mysql_limits_refresh),
-- read again when the last reading is a second old.  A text statement.
-- Slot: sched.
-- Called by: limit.c (chime__mysql_limits_refresh).
SELECT job_type
FROM {P}limits
WHERE sched_name = /*:sched*/
ORDER BY job_type
