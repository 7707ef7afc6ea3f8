-- Writes the fire state of a batch of triggers after their fires' book-
-- keeping (batch.c, chime__mysql_triggers_write), unclaimed: an INSERT
-- whose rows all exist, locked by this transaction, so every row takes the
-- UPDATE branch, the cheapest multi-row update MySQL has.  The insert-only
-- columns get the trigger's own values all the same.  owner, claim_fire_id
-- and run_acquired_ms: the run a one-shot's row keeps (EXECUTING, runs.c),
-- NULL for every other row (its claim dropped).  A text statement, one
-- row per trigger, its values named by their columns.
-- Called by: batch.c (chime__mysql_triggers_write).
INSERT INTO {P}triggers (sched_name, trigger_group, trigger_name, job_group,
    job_name, job_type, kind, start_set, start_ms, end_ms, misfire, priority,
    next_fire_ms, prev_fire_ms, times_triggered, state_start_ms,
    state_repeat_count, state, owner, claim_fire_id, run_acquired_ms)
VALUES /*{row*/ (
    /*:sched_name*/, /*:trigger_group*/, /*:trigger_name*/, /*:job_group*/,
    /*:job_name*/, /*:job_type*/, /*:kind*/, /*:start_set*/, /*:start_ms*/,
    /*:end_ms*/, /*:misfire*/, /*:priority*/, /*:next_fire_ms*/,
    /*:prev_fire_ms*/, /*:times_triggered*/, /*:state_start_ms*/,
    /*:state_repeat_count*/, /*:state*/, /*:owner*/, /*:claim_fire_id*/,
    /*:run_acquired_ms*/) /*}*/
ON DUPLICATE KEY UPDATE next_fire_ms = VALUES(next_fire_ms),
    prev_fire_ms = VALUES(prev_fire_ms),
    times_triggered = VALUES(times_triggered),
    state_start_ms = VALUES(state_start_ms),
    state_repeat_count = VALUES(state_repeat_count),
    state = VALUES(state), owner = VALUES(owner),
    claim_fire_id = VALUES(claim_fire_id),
    run_acquired_ms = VALUES(run_acquired_ms)
