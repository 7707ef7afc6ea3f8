-- CHIME_ADMIN_STUCK's "error": the triggers in ERROR and their jobs
-- (scheduler).
-- Called by: admin_repair.c (list_stuck).
SELECT trigger_group, trigger_name, job_group, job_name
FROM {P}triggers
WHERE sched_name = ?
  AND state = 'ERROR'
ORDER BY trigger_group, trigger_name
