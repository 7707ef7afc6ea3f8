-- Unblocks the triggers job_unblock_lock.sql locked, by primary key:
-- COMPLETE when they have no fire left, else WAITING or PAUSED again.  A
-- text statement.  Slots: sched, then per trigger (row key) group and
-- name.
-- Called by: tables.c (job_unblock, job_triggers_set).
UPDATE {P}triggers
SET state = CASE WHEN next_fire_ms = {no_fire} THEN 'COMPLETE'
    WHEN state = 'BLOCKED' THEN 'WAITING' ELSE 'PAUSED' END
WHERE sched_name = /*:sched*/
  AND (/*{key*/ (trigger_group = /*:group*/ AND trigger_name = /*:name*/)
    /*}OR*/)
