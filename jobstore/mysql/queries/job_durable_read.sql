-- A job's durable flag (scheduler, group, name), read without a lock: the
-- completions of many nodes read it at once; only a job that is not
-- durable is then locked (job_lock.sql) and asked again (tables.c,
-- chime__mysql_job_gc).  A shared lock here would deadlock two
-- completions that both go on to lock the row for an update.
-- Called by: tables.c (chime__mysql_job_gc).
SELECT durable
FROM {P}jobs
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
