-- Sets a job's paused flag (paused, scheduler, group, name).
-- Called by: pause.c (by_key_fn).
UPDATE {P}jobs
SET paused = ?
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
