-- A job's durable flag (scheduler, group, name), its row locked shared:
-- the completions of many nodes read it at once, while a change of the
-- job (an exclusive lock) waits for them.
-- Called by: tables.c (chime__mysql_job_gc).
SELECT durable
FROM {P}jobs
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
LOCK IN SHARE MODE
