-- Whether a FORBID fire of a job is executing (scheduler, group, name).
-- Called by: tables.c (job_unblock).
SELECT 1
FROM {P}fired
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
  AND state = 'EXECUTING'
  AND forbid = 1
LIMIT 1
