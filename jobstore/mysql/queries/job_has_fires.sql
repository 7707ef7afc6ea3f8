-- Whether a job has a fired row (scheduler, group, name).
-- Called by: acquire.c (acq_job_for).
SELECT 1
FROM {P}fired
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
LIMIT 1
