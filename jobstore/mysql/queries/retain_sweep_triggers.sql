-- Sweeps a batch of COMPLETE triggers the library made itself (retries,
-- shards, recoveries, backfills, manual runs) whose fires are gone
-- (retain.c).  A text statement.  Slots: sched, batch.
-- Called by: retain.c (sweep_triggers).
DELETE FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND state = 'COMPLETE'
  AND trigger_group IN ('{retry_group}', '{shard_group}', 'CHIME_RECOVERING',
    '{backfill_group}', '{manual_group}')
  AND NOT EXISTS (SELECT 1 FROM {P}fired f
      WHERE f.sched_name = {P}triggers.sched_name
        AND f.trigger_group = {P}triggers.trigger_group
        AND f.trigger_name = {P}triggers.trigger_name)
LIMIT /*:batch*/
