-- 017_partition_limits.sql (issue 31, limits per partition: docs/queue.md,
-- "Limits").  limits.partition_field: the top-level field of a run's JSON
-- data its partition key is taken from when it is stored without one
-- (chime_scheduler_set_partition_limit; NULL: none).  limits.key_rate_count
-- and key_rate_period_ms: starts per period of each partition key, smoothed
-- (0: none).  limit_keys: the per-partition rate's state, one row per
-- partition key whose theoretical arrival time (tat_ms, ms of the
-- database's clock) is still ahead; a row whose time has passed means
-- what no row means, so a claim deletes them as it writes.  A claim
-- reads and writes these rows under its type's locked limits row.  A node
-- that does not know the columns applies no per-partition rate: additive.
-- chime-compat: additive
ALTER TABLE {P}limits ADD COLUMN IF NOT EXISTS partition_field VARCHAR(190) NULL;
ALTER TABLE {P}limits ADD COLUMN IF NOT EXISTS key_rate_count INT NOT NULL DEFAULT 0;
ALTER TABLE {P}limits ADD COLUMN IF NOT EXISTS key_rate_period_ms BIGINT NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS {P}limit_keys (
  sched_name VARCHAR(190) NOT NULL,
  job_type VARCHAR(190) NOT NULL,
  partition_key VARCHAR(190) NOT NULL,
  tat_ms BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (sched_name, job_type, partition_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
