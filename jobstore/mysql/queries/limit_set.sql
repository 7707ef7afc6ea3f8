-- Sets a type's limit (chime_scheduler_limit_set, limit.c): only the
-- figures the definition sets are updated, the type's (part type) and the
-- partitions' (part partition); a changed rate starts afresh (tat_ms 0; a
-- partition's: limit_keys_delete.sql after it).  A text statement; its
-- values named by their columns (partition_field NULL: none).
-- Called by: limit.c (set_fn).
INSERT INTO {P}limits (sched_name, job_type, max_running, max_per_key,
    rate_count, rate_period_ms, key_rate_count, key_rate_period_ms, tat_ms,
    partition_field)
VALUES (/*:sched_name*/, /*:job_type*/, /*:max_running*/, /*:max_per_key*/,
    /*:rate_count*/, /*:rate_period_ms*/, /*:key_rate_count*/,
    /*:key_rate_period_ms*/, 0, /*:partition_field*/)
ON DUPLICATE KEY UPDATE max_per_key = VALUES(max_per_key)
  /*[type*/
  , max_running = VALUES(max_running),
    tat_ms = IF(rate_count = VALUES(rate_count)
      AND rate_period_ms = VALUES(rate_period_ms), tat_ms, 0),
    rate_count = VALUES(rate_count), rate_period_ms = VALUES(rate_period_ms)
  /*]*/
  /*[partition*/
  , key_rate_count = VALUES(key_rate_count),
    key_rate_period_ms = VALUES(key_rate_period_ms),
    partition_field = VALUES(partition_field)
  /*]*/
