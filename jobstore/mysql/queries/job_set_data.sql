-- Saves a job's data after a fire of a persist-data job (data, scheduler,
-- group, name).
-- Called by: complete.c (save_data).
UPDATE {P}jobs
SET data = ?
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
