-- 010_history_level.sql (issue 34, bounded tables): a job's history level
-- (chime_job_set_history_level): 0 every run is recorded in history (the
-- default), 1 only the runs whose outcome is not OK, 2 none; a fire ended
-- by another node (death, hand-over, cancel) is recorded whatever it says.
-- IF NOT EXISTS: a migration cut short after this statement completes when
-- it is run again.
ALTER TABLE {P}jobs ADD COLUMN IF NOT EXISTS history_level TINYINT NOT NULL DEFAULT 0;
