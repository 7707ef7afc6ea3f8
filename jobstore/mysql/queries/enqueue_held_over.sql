-- Deletes the rows of an enqueued batch's keys whose unique period ended
-- (held_until_ms passed, migration 016): an enqueue takes such a key over
-- (enqueue.c, drop_held_over).  Each name is found by the primary key
-- alone (_triggers_by_names.sql).  A text statement.  Rows (names), one
-- per keyed name: name; then sched, group, now (the database's clock, ms).
-- Called by: enqueue.c (drop_held_over).
DELETE t
FROM {_triggers_by_names}
WHERE t.state = 'COMPLETE'
  AND t.held_until_ms > 0
  AND t.held_until_ms <= /*:now*/
