-- The rows of some triggers of the scheduler, locked for update: the
-- triggers whose fire was their last, checked again under the lock
-- (tables.c, chime__mysql_triggers_remove_if_complete), each found by the
-- primary key alone (_triggers_by_keys.sql).  A text statement.  Rows
-- (keys), one per trigger: key; then sched.
-- Called by: tables.c (chime__mysql_triggers_remove_if_complete).
SELECT {trigger_cols_t}
FROM {_triggers_by_keys}
FOR UPDATE
