-- The keys of a job's triggers (scheduler, job group, job name).
-- Called by: defs.c (chime__mysql_trigger_list_for_job).
SELECT trigger_group, trigger_name
FROM {P}triggers
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
