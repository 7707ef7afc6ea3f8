-- The history rows of a completion batch (complete.c, write_history): one
-- multi-row INSERT, more when the runs' own data is large.  A text
-- statement; one row per completion that writes its history, its values
-- named by their columns: the scheduler, the fire, its trigger and job
-- (from its fired row), the instant it was scheduled (a retry's own), this
-- node, the outcome (RETRIED, the run's status, FAILED or OK), its error
-- code and text, when the run started, how long it ran, whether it was
-- recovered, when it finished, a shard's parent fire and index (0, -1
-- otherwise) and the run's own data (NULL when it used its job's).
-- Called by: complete.c (write_history, history_row).
INSERT INTO {P}history (sched_name, fire_id, trigger_group, trigger_name,
    job_group, job_name, scheduled_ms, node, outcome, error_code, error_text,
    started_ms, duration_ms, recovering, finished_ms, shard_parent,
    shard_index, data)
VALUES /*{row*/ (
    /*:sched_name*/, /*:fire_id*/, /*:trigger_group*/, /*:trigger_name*/,
    /*:job_group*/, /*:job_name*/, /*:scheduled_ms*/, /*:node*/,
    /*:outcome*/, /*:error_code*/, /*:error_text*/, /*:started_ms*/,
    /*:duration_ms*/, /*:recovering*/, /*:finished_ms*/, /*:shard_parent*/,
    /*:shard_index*/, /*:data*/) /*}*/
