-- Locks a job's row (scheduler, group, name); its durable flag.
-- Called by: defs.c (job_exists), pause.c (by_key_fn), tables.c
-- (chime__mysql_job_gc).
SELECT durable
FROM {P}jobs
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
FOR UPDATE
