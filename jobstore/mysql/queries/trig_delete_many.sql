-- Deletes some triggers' rows of the scheduler (locked already by
-- trig_get_lock_many), each found by the primary key alone
-- (_triggers_by_keys.sql).  A text statement.  Rows (keys), one per
-- trigger: key; then sched.
-- Called by: tables.c (chime__mysql_triggers_remove_if_complete).
DELETE t
FROM {_triggers_by_keys}
