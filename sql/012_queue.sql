-- 012_queue.sql (issue 31, work the application hands in: docs/queue.md):
-- jobs.then_group / then_name (chime_job_set_shards_then): the job a run
-- of which is enqueued, in the same transaction as the completion of a
-- sharded fire's last shard; NULL for none.  An enqueued run itself needs
-- no column: it is a one-off trigger in group CHIME_QUEUE, its unique key
-- the trigger's name.
-- chime-compat: additive
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS then_group VARCHAR(190) NULL;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS then_name VARCHAR(190) NULL;
