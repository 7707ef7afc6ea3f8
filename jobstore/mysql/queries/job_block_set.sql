-- Blocks the triggers job_block_lock.sql locked, by primary key: WAITING
-- becomes BLOCKED, PAUSED PAUSED_BLOCKED.  A text statement.  Slots: sched,
-- then per trigger (row key) group and name.
-- Called by: tables.c (chime__mysql_job_block, job_triggers_set).
UPDATE {P}triggers
SET state = CASE state WHEN 'WAITING' THEN 'BLOCKED'
    WHEN 'PAUSED' THEN 'PAUSED_BLOCKED' ELSE state END
WHERE sched_name = /*:sched*/
  AND (/*{key*/ (trigger_group = /*:group*/ AND trigger_name = /*:name*/)
    /*}OR*/)
