-- 016_unique_for.sql (issue 31, unique keys held for the run's whole life
-- and for a period after it, and a run's own retry policy: docs/queue.md).  triggers.unique_for_ms: on
-- a keyed enqueued run's trigger (CHIME_QUEUE, "K_" key), how long its key
-- stays taken after the run's final outcome (chime_enqueue_set_unique_for_ms;
-- 0: not after it).  triggers.held_until_ms: once that run ended, its
-- trigger stays COMPLETE and keeps the key until this time (the store's
-- clock, the database's); an enqueue after it takes the row over, and the
-- sweep deletes it.  0 on every other trigger.  run_retry_*: an enqueued
-- run's own retry policy (chime_enqueue_set_retry), carried by its
-- retries and its recovered run, as the jobs' retry_* columns (migration
-- 007, 008); run_retry_max_attempts 0: the run follows its job's.  A node
-- without the columns writes 0 (no period, the job's policy): additive.
-- chime-compat: additive
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS unique_for_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS held_until_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS run_retry_max_attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS run_retry_initial_delay_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS run_retry_multiplier_milli BIGINT NOT NULL DEFAULT 1000;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS run_retry_max_delay_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS run_retry_jitter_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS run_retry_timed_out TINYINT NOT NULL DEFAULT 1;
