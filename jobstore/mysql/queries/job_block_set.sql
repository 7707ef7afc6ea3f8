-- Blocks the triggers job_block_lock.sql locked, each found by the primary
-- key alone (_triggers_by_keys.sql): WAITING becomes BLOCKED, PAUSED
-- PAUSED_BLOCKED.  A text statement.  Rows (keys), one per trigger: key;
-- then sched.
-- Called by: tables.c (chime__mysql_job_block, job_triggers_set).
UPDATE {_triggers_by_keys}
SET t.state = CASE t.state WHEN 'WAITING' THEN 'BLOCKED'
    WHEN 'PAUSED' THEN 'PAUSED_BLOCKED' ELSE t.state END
