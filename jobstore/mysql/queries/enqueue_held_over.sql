-- Deletes the rows of an enqueued batch's keys whose unique period ended
-- (held_until_ms passed, migration 016): an enqueue takes such a key over
-- (enqueue.c, drop_held_over).  Each key is found by the primary key alone
-- (_triggers_by_keys.sql).  A text statement.  Rows (keys), one per keyed
-- run: key; then sched, now (the database's clock, ms).
-- Called by: enqueue.c (drop_held_over).
DELETE t
FROM {_triggers_by_keys}
WHERE t.state = 'COMPLETE'
  AND t.held_until_ms > 0
  AND t.held_until_ms <= /*:now*/
