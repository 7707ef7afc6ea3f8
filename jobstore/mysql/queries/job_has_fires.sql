-- Whether a job has a fired row, or a run kept in a trigger row (runs.c:
-- the EXECUTING range of triggers_due, not the job's index, which holds
-- every run enqueued for the job) (scheduler, group, name, scheduler,
-- group, name).
-- Called by: acquire.c (acq_job_for).
SELECT 1
FROM {P}fired
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
UNION ALL
SELECT 1
FROM {P}triggers FORCE INDEX ({P}triggers_due)
WHERE sched_name = ?
  AND state = 'EXECUTING'
  AND job_group = ?
  AND job_name = ?
LIMIT 1
