-- Sets a type's limit (chime_scheduler_limit_set, limit.c); a changed rate
-- starts afresh (tat_ms 0).  A text statement; its values named by their
-- columns.
-- Called by: limit.c (set_fn).
INSERT INTO {P}limits (sched_name, job_type, max_running, max_per_key,
    rate_count, rate_period_ms, tat_ms)
VALUES (/*:sched_name*/, /*:job_type*/, /*:max_running*/, /*:max_per_key*/,
    /*:rate_count*/, /*:rate_period_ms*/, 0)
ON DUPLICATE KEY UPDATE max_running = VALUES(max_running),
    max_per_key = VALUES(max_per_key),
    tat_ms = IF(rate_count = VALUES(rate_count)
      AND rate_period_ms = VALUES(rate_period_ms), tat_ms, 0),
    rate_count = VALUES(rate_count), rate_period_ms = VALUES(rate_period_ms)
