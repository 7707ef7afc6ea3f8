-- Per limited type and per partition of it with fires, what waits (WAITING
-- triggers due by a time) and what runs (limit.c, stats_fn; chimectl limit
-- show): ROLLUP adds each type's total and the grand total.  What runs is
-- a fired row or a run kept in its trigger row (runs.c).  A text
-- statement.  Slots: sched, due_by, sched, sched, sched.
-- Called by: limit.c (stats_fn).
SELECT l.job_type, p.partition_key, l.max_running, l.max_per_key,
    l.rate_count, l.rate_period_ms, COALESCE(SUM(p.waiting), 0),
    COALESCE(SUM(p.running), 0), l.key_rate_count, l.key_rate_period_ms,
    l.partition_field
FROM {P}limits l
LEFT JOIN (
    SELECT job_type, partition_key, COUNT(*) AS waiting, 0 AS running
    FROM {P}triggers
    WHERE sched_name = /*:sched*/ AND state = 'WAITING'
      AND next_fire_ms <= CAST(/*:due_by*/ AS SIGNED)
      AND next_fire_ms <> {no_fire}
    GROUP BY job_type, partition_key
    UNION ALL
    SELECT job_type, partition_key, 0, COUNT(*)
    FROM {P}fired
    WHERE sched_name = /*:sched*/ AND shard_parent = 0
    GROUP BY job_type, partition_key
    UNION ALL
    SELECT job_type, partition_key, 0, COUNT(*)
    FROM {P}triggers
    WHERE sched_name = /*:sched*/ AND state = 'EXECUTING'
    GROUP BY job_type, partition_key) p ON p.job_type = l.job_type
WHERE l.sched_name = /*:sched*/
GROUP BY l.job_type, p.partition_key WITH ROLLUP
