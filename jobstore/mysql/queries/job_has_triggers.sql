-- Whether a job has a trigger left (scheduler, group, name).
-- Called by: tables.c (chime__mysql_job_gc).
SELECT 1
FROM {P}triggers
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
LIMIT 1
