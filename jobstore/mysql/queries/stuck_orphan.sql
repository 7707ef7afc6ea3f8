-- CHIME_ADMIN_STUCK's "orphan": the unclaimed shard, retry and recovery
-- triggers whose job, or whose sharded fire, is gone, and which: the reason
-- "job_gone" or "fire_gone" (scheduler).
-- Called by: admin_repair.c (list_stuck).
SELECT t.trigger_group, t.trigger_name,
       IF(j.job_name IS NULL, 'job_gone', 'fire_gone')
FROM {P}triggers t
LEFT JOIN {P}jobs j ON j.sched_name = t.sched_name
  AND j.job_group = t.job_group AND j.job_name = t.job_name
WHERE t.sched_name = ?
  AND t.trigger_group IN ('{shard_group}', '{retry_group}', 'CHIME_RECOVERING')
  AND t.state NOT IN ('ACQUIRED', 'EXECUTING')
  AND (j.job_name IS NULL
       OR (t.shard_parent > 0
           AND NOT EXISTS (SELECT 1 FROM {P}fired p
                           WHERE p.sched_name = t.sched_name
                             AND p.fire_id = t.shard_parent)))
ORDER BY t.trigger_group, t.trigger_name
