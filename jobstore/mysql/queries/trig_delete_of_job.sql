-- Deletes every trigger of a job (scheduler, job group, job name).
-- Called by: defs.c (job_remove_fn).
DELETE FROM {P}triggers
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
