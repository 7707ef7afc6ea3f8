-- Resumes every trigger of a job (scheduler, job group, job name), as
-- resume_key.
-- Called by: pause.c (chime__mysql_resume_job).
UPDATE {P}triggers t
SET t.state = CASE WHEN t.state NOT IN ('PAUSED', 'PAUSED_BLOCKED') THEN
    t.state WHEN t.next_fire_ms = {no_fire} THEN 'COMPLETE' WHEN EXISTS
    (SELECT 1 FROM {P}fired f WHERE f.sched_name = t.sched_name AND
    f.job_group = t.job_group AND f.job_name = t.job_name AND f.state =
    'EXECUTING' AND f.forbid = 1) THEN 'BLOCKED' ELSE 'WAITING' END
WHERE t.sched_name = ?
  AND t.job_group = ?
  AND t.job_name = ?
