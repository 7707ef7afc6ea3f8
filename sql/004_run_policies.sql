-- 004_run_policies.sql (issue 14, run policies): what a job asks around
-- its runs, stored with the job, and the cancellation flag of a running
-- fire.  fired.cancel_requested: 0, or (1 and 2 alternately) flagged by
-- chime_scheduler_interrupt() or `chimectl cancel` on any node; the node
-- running the fire polls its own flagged fires at each check-in.
-- jobs.timeout_ms: 0 for none, otherwise a run is cancelled that long
-- after it started and recorded TIMED_OUT.  jobs.starting_deadline_ms: 0
-- for none, otherwise a fire that starts later than that after its
-- scheduled time is not run and is recorded MISSED.  triggers.timeout_ms:
-- 0 for the job's, otherwise the timeout of the runs this trigger fires.

ALTER TABLE {P}fired ADD COLUMN IF NOT EXISTS cancel_requested TINYINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS timeout_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS starting_deadline_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS timeout_ms BIGINT NOT NULL DEFAULT 0;
