-- Sweeps a batch of keyed runs' triggers kept COMPLETE for their unique
-- period (held_until_ms, migration 016) once the period ended: an enqueue
-- of the key would take the row over anyway (retain.c).  A text
-- statement.  Slots: sched, now (the database's clock, ms), batch.
-- Called by: retain.c (sweep_held_keys).
DELETE FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND trigger_group = '{queue_group}'
  AND state = 'COMPLETE'
  AND held_until_ms > 0
  AND held_until_ms <= /*:now*/
LIMIT /*:batch*/
