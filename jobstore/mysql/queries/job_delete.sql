-- Deletes a job's row (scheduler, group, name).
-- Called by: defs.c (job_remove_fn), tables.c (chime__mysql_job_gc).
DELETE FROM {P}jobs
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
