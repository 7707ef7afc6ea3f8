-- Unblocks the triggers job_unblock_lock.sql locked, each found by the
-- primary key alone (_triggers_by_keys.sql): COMPLETE when they have no
-- fire left, else WAITING or PAUSED again.  A text statement.  Rows
-- (keys), one per trigger: key; then sched.
-- Called by: tables.c (job_unblock, job_triggers_set).
UPDATE {_triggers_by_keys}
SET t.state = CASE WHEN t.next_fire_ms = {no_fire} THEN 'COMPLETE'
    WHEN t.state = 'BLOCKED' THEN 'WAITING' ELSE 'PAUSED' END
