-- 007_retries.sql (issue 14, run policies: retries with back-off): a job's
-- retry policy (chime_job_set_retry), stored with the job so every node
-- applies it.  retry_max_attempts: 0 or 1 for none, otherwise the runs made
-- at most, the first included.  retry_multiplier_milli: the back-off
-- multiplier in thousandths (1000: constant delay).  triggers.retry_attempt
-- and retry_scheduled_ms: on a retry's one-shot trigger (group CHIME_RETRY),
-- the attempt it runs and the failed run's original scheduled time; 0 on
-- every other trigger.
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS retry_max_attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS retry_initial_delay_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS retry_multiplier_milli BIGINT NOT NULL DEFAULT 1000;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS retry_max_delay_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS retry_jitter_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS retry_attempt BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS retry_scheduled_ms BIGINT NOT NULL DEFAULT 0;
