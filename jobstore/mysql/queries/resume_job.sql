-- Resumes every trigger of a job (scheduler, job group, job name), as
-- resume_key.
-- Called by: pause.c (chime__mysql_resume_job).
UPDATE {P}triggers t
SET t.state = {_resume_state}
WHERE t.sched_name = ?
  AND t.job_group = ?
  AND t.job_name = ?
