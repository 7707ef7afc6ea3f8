-- 009_shards.sql (issue 15, cluster-aware batches: docs/batch.md): sharded
-- fires, node tags and checkpoints.
-- jobs.shard_count: 0 (not sharded), -1 (one shard per live capable node)
-- or the count; shard_params: "0=a,1=b" or NULL; required_tags: the tags
-- a node needs to claim the job's fires, sorted and comma-separated ('':
-- none), copied to triggers.job_tags as job_type is.
-- triggers.shard_parent: on a shard's one-shot trigger (group CHIME_SHARD,
-- or CHIME_RECOVERING / CHIME_RETRY for a shard run again), the fire id of
-- its sharded fire, with shard_index, shard_total and shard_param; 0 on
-- every other trigger.  origin_fire_id: on a recovered run's trigger, the
-- first fire of the run it continues (its checkpoint's key); 0 otherwise.
-- fired.shard_parent: as the trigger's.  A sharded fire's own fired row
-- has state SHARDED once split: shards_left counts down as its shards
-- complete, shards_failed and failed_list say which failed, split_ms when.
-- history.shard_parent / shard_index: a shard's run (0 / -1 otherwise).
-- nodes.tags: the node's tags (chime_config_add_tag).
-- checkpoints: the last checkpoint of a run (chime_ctx_checkpoint), by run
-- id (the first fire of the run), written only by the node executing it.
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS shard_count INT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS shard_params TEXT NULL;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS required_tags VARCHAR(1100) NOT NULL DEFAULT '';
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS job_tags VARCHAR(1100) NOT NULL DEFAULT '';
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS shard_parent BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS shard_index INT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS shard_total INT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS shard_param TEXT NULL;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS origin_fire_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS {P}triggers_shard ON {P}triggers (sched_name, shard_parent) ALGORITHM=INPLACE LOCK=NONE;
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS shard_parent BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS shards_total INT NOT NULL DEFAULT 0;
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS shards_left INT NOT NULL DEFAULT 0;
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS shards_failed INT NOT NULL DEFAULT 0;
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS failed_list VARCHAR(255) NOT NULL DEFAULT '';
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS split_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}history ADD COLUMN IF NOT EXISTS shard_parent BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}history ADD COLUMN IF NOT EXISTS shard_index INT NOT NULL DEFAULT -1;
CREATE INDEX IF NOT EXISTS {P}history_shard ON {P}history (sched_name, shard_parent) ALGORITHM=INPLACE LOCK=NONE;
ALTER TABLE {P}nodes ADD COLUMN IF NOT EXISTS tags VARCHAR(1100) NOT NULL DEFAULT '';
CREATE TABLE IF NOT EXISTS {P}checkpoints (
  sched_name VARCHAR(190) NOT NULL,
  run_id BIGINT NOT NULL,
  fire_id BIGINT NOT NULL,
  node VARCHAR(190) NOT NULL,
  data MEDIUMBLOB NULL,
  updated_ms BIGINT NOT NULL,
  PRIMARY KEY (sched_name, run_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
