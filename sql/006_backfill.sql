-- 006_backfill.sql (issue 23, time): what the time features keep.
-- jitter_ms: a trigger's deterministic jitter window J (0: none); the
-- offset in [0, J) is derived from the trigger's key, so it is not stored.
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS jitter_ms BIGINT NOT NULL DEFAULT 0;
