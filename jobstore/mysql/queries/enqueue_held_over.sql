-- Deletes the rows of an enqueued batch's keys whose unique period ended
-- (held_until_ms passed, migration 016): an enqueue takes such a key over
-- (enqueue.c, drop_held_over).  A text statement.  Slots: sched, group,
-- then one row (names) per keyed name: name; then now (the database's
-- clock, ms).
-- Called by: enqueue.c (drop_held_over).
DELETE FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND trigger_group = /*:group*/
  AND trigger_name IN (/*{names*/ /*:name*/ /*}*/)
  AND state = 'COMPLETE'
  AND held_until_ms > 0
  AND held_until_ms <= /*:now*/
