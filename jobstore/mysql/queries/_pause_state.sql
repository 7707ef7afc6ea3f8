-- What pausing makes of a trigger's state (pause_key.sql, pause_job.sql,
-- pause_like.sql): a claimed or running trigger is paused too (its claim
-- dropped by the statement), a blocked one stays blocked.
CASE state WHEN 'WAITING' THEN 'PAUSED' WHEN 'ACQUIRED' THEN 'PAUSED'
  WHEN 'EXECUTING' THEN 'PAUSED' WHEN 'BLOCKED' THEN 'PAUSED_BLOCKED'
  ELSE state END
