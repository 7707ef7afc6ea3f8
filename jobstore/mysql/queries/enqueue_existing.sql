-- The triggers of an enqueued batch whose keys are stored already, locked
-- (enqueue.c, mark_existing): one group, many names, each found by the
-- primary key alone (_triggers_by_keys.sql).  A text statement.  Rows
-- (keys), one per key: key; then sched.
-- Called by: enqueue.c (mark_existing).
SELECT t.trigger_name
FROM {_triggers_by_keys}
FOR UPDATE
