-- Pauses every trigger of a job (scheduler, job group, job name).
-- Called by: pause.c (chime__mysql_pause_job).
UPDATE {P}triggers
SET owner = NULL, claim_fire_id = NULL, state = {_pause_state}
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
  AND state <> 'EXECUTING'
