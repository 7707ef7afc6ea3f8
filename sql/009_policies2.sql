-- 009_policies2.sql (issue 14, run policies): a starting deadline per
-- trigger.  triggers.starting_deadline_ms: 0 for the job's, otherwise how
-- late after its scheduled time a fire of this trigger may start (later
-- ones are not run: MISSED).
ALTER TABLE {P}triggers ADD COLUMN starting_deadline_ms BIGINT NOT NULL DEFAULT 0;
