-- A type's limit (limit.c, get_fn).  A text statement.  Slots: sched, type.
-- Called by: limit.c (get_fn).
SELECT max_running, max_per_key, rate_count, rate_period_ms, key_rate_count,
    key_rate_period_ms, partition_field
FROM {P}limits
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
