-- 007_retries.sql (issue 14, run policies: retries with back-off): a job's
-- retry policy (chime_job_set_retry), stored with the job so every node
-- applies it.  retry_max_attempts: 0 or 1 for none, otherwise the runs made
-- at most, the first included.  retry_multiplier_milli: the back-off
-- multiplier in thousandths (1000: constant delay).
ALTER TABLE {P}jobs ADD COLUMN retry_max_attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN retry_initial_delay_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN retry_multiplier_milli BIGINT NOT NULL DEFAULT 1000;
ALTER TABLE {P}jobs ADD COLUMN retry_max_delay_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN retry_jitter_ms BIGINT NOT NULL DEFAULT 0;
