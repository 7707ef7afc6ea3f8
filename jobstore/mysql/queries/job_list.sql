-- The keys of the jobs whose group matches a LIKE pattern (scheduler,
-- pattern; escape '!').
-- Called by: defs.c (chime__mysql_job_list).
SELECT job_group, job_name
FROM {P}jobs
WHERE sched_name = ?
  AND job_group LIKE ? ESCAPE '!'
