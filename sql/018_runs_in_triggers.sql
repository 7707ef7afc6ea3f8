-- 018_runs_in_triggers.sql (issue 32, fewer rows per fire: docs/schema.md,
-- "A run kept in its trigger row").  The run of a one-shot trigger may be
-- kept in the trigger's own row instead of a fired row: the row is then
-- EXECUTING, owner is the running node and claim_fire_id the fire id (both
-- columns of 001), and triggers.run_acquired_ms is when it was claimed
-- (the fired row's acquired_ms; NULL on every other row).
-- nodes.runs_in_triggers: the started_ms of the process that wrote the row
-- when that process reads such runs wherever it reads fired rows.  A node
-- keeps runs in trigger rows only while every other live node's row has
-- runs_in_triggers = started_ms, so a node of an earlier release (which
-- leaves the default, 0, and sets its own started_ms when it takes a row
-- over) never misses one.  Additive.
-- chime-compat: additive
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS run_acquired_ms BIGINT NULL;
ALTER TABLE {P}nodes ADD COLUMN IF NOT EXISTS runs_in_triggers BIGINT NOT NULL DEFAULT 0;
