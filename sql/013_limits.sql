-- 013_limits.sql (issue 31, cluster-wide limits: docs/queue.md, "Limits").
-- limits: one row per limited job type (chime_scheduler_set_limit,
-- chimectl limit set): max_running runs at a time (0: none), max_per_key
-- of them per partition key (0: none), rate_count starts per
-- rate_period_ms (0: none), smoothed by the generic cell rate algorithm
-- whose theoretical arrival time, in ms of the database's clock, is
-- tat_ms.  A claim of a limited type locks its row (FOR UPDATE SKIP
-- LOCKED) and counts the type's fired rows.
-- triggers.partition_key: chime_trigger_set_partition_key (NULL: none).
-- fired.job_type / fired.partition_key: the run's, copied when it is
-- claimed, so that a claim counts the running fires of a type and of a
-- partition with the fired_limit index ('' job_type on the rows of
-- schemas before this one: they are counted by no limit).
-- chime-compat: additive
CREATE TABLE IF NOT EXISTS {P}limits (
  sched_name VARCHAR(190) NOT NULL,
  job_type VARCHAR(190) NOT NULL,
  max_running INT NOT NULL DEFAULT 0,
  max_per_key INT NOT NULL DEFAULT 0,
  rate_count INT NOT NULL DEFAULT 0,
  rate_period_ms BIGINT NOT NULL DEFAULT 0,
  tat_ms BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (sched_name, job_type)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS partition_key VARCHAR(190) NULL;
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS job_type VARCHAR(190) NOT NULL DEFAULT '';
ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS partition_key VARCHAR(190) NULL;
CREATE INDEX IF NOT EXISTS {P}fired_limit ON {P}fired (sched_name, job_type, partition_key) ALGORITHM=INPLACE LOCK=NONE;
