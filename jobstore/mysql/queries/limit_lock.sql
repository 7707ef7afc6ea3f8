-- Locks a type's limit row for the claim, passed over when another session
-- holds it (limit.c, lock_limit): the limit, the rate's theoretical
-- arrival time, the database's clock, and the per-partition rate.  A text
-- statement.  Slots: sched, type.
-- Called by: limit.c (lock_limit).
SELECT max_running, max_per_key, rate_count, rate_period_ms, tat_ms,
    {now_ms}, key_rate_count, key_rate_period_ms
FROM {P}limits
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
FOR UPDATE SKIP LOCKED
