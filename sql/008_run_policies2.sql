-- 008_run_policies2.sql (issue 14, run policies): a starting deadline per
-- trigger, and the cap on a FORBID_QUEUE job's queue.
-- triggers.starting_deadline_ms: 0 for the job's, otherwise how late after
-- its scheduled time a fire of this trigger may start (later ones are not
-- run: MISSED).  jobs.queue_cap: 0 for none, otherwise at most that many
-- fire times of each trigger of the job wait behind a run; the older ones
-- are recorded SKIPPED.  jobs.retry_timed_out: 1 (the default) when a run
-- that timed out is retried by the retry policy, 0 when it is not.
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS starting_deadline_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS queue_cap BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS retry_timed_out TINYINT NOT NULL DEFAULT 1;
