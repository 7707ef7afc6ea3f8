-- A job's row (scheduler, group, name), not locked.
-- Called by: tables.c (chime__mysql_job_load).
SELECT {job_cols}
FROM {P}jobs
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
