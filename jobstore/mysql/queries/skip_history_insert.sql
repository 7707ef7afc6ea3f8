-- The history rows of a trigger's dropped fire times (skip.c,
-- skip_trigger): FORBID_SKIP, REPLACE, a FORBID_QUEUE cap.  One row per
-- time, SKIPPED, fire id 0; the last one may count the rest.  A text
-- statement; its values named by their columns.
-- Called by: skip.c (skip_trigger, skip_row).
INSERT INTO {P}history (sched_name, fire_id, trigger_group, trigger_name,
    job_group, job_name, scheduled_ms, node, outcome, error_code, error_text,
    started_ms, duration_ms, recovering, finished_ms)
VALUES /*{row*/ (/*:sched_name*/, 0, /*:trigger_group*/, /*:trigger_name*/,
    /*:job_group*/, /*:job_name*/, /*:scheduled_ms*/, /*:node*/, 'SKIPPED',
    0, /*:error_text*/, /*:started_ms*/, 0, 0, /*:finished_ms*/) /*}*/
