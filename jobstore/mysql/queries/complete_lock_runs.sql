-- Locks the trigger rows of a completion batch's runs kept in them
-- (complete.c, lock_runs; runs.c): a fired row's columns
-- (_run_as_fired.sql), then the trigger's state, as complete_lock_fired.sql
-- returns them, by the triggers' keys alone (_triggers_by_keys.sql).  A
-- row whose run has moved to a fired row (runs_spill_clear.sql) or gone
-- is left out: complete.c looks for those among the fired rows.  A text
-- statement.  Rows (keys): key; then sched.
-- Called by: complete.c (lock_runs).
SELECT {_run_as_fired}, t.state
FROM {_triggers_by_keys}
WHERE t.state = 'EXECUTING'
FOR UPDATE
