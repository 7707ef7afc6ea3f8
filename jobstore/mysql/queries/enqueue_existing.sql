-- The triggers of an enqueued batch whose keys are stored already, locked
-- (enqueue.c, mark_existing): one group, many names.  A text statement.
-- Slots: sched, group, then one row (names) per name: name.
-- Called by: enqueue.c (mark_existing).
SELECT trigger_name
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND trigger_group = /*:group*/
  AND trigger_name IN (/*{names*/ /*:name*/ /*}*/)
FOR UPDATE
