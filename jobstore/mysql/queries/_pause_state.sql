-- What pausing makes of a trigger's state (pause_key.sql, pause_job.sql,
-- pause_like.sql): a claimed trigger is paused too (its claim dropped by
-- the statement), a blocked one stays blocked.  The statements leave an
-- EXECUTING row alone: it keeps a one-shot's run (runs.c) and, like a
-- COMPLETE one, has no fire left to pause.
CASE state WHEN 'WAITING' THEN 'PAUSED' WHEN 'ACQUIRED' THEN 'PAUSED'
  WHEN 'BLOCKED' THEN 'PAUSED_BLOCKED' ELSE state END
