-- Leaves the trigger rows whose runs runs_spill_insert.sql moved to fired
-- rows as a run in a fired row leaves its one-shot trigger: COMPLETE,
-- unclaimed (runs.c, chime__mysql_runs_spill).  A text statement.  Rows
-- (keys): key; then sched.
-- Called by: runs.c (chime__mysql_runs_spill).
UPDATE {_triggers_by_keys}
SET t.state = 'COMPLETE', t.owner = NULL, t.claim_fire_id = NULL,
    t.run_acquired_ms = NULL
WHERE t.state = 'EXECUTING'
