-- Pauses every trigger of a job (scheduler, job group, job name).
-- Called by: pause.c (chime__mysql_pause_job).
UPDATE {P}triggers
SET owner = NULL, claim_fire_id = NULL, state = CASE state WHEN 'WAITING' THEN
    'PAUSED' WHEN 'ACQUIRED' THEN 'PAUSED' WHEN 'EXECUTING' THEN 'PAUSED' WHEN
    'BLOCKED' THEN 'PAUSED_BLOCKED' ELSE state END
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
