-- A scheduler's retry links, for an operator: each run of a retry
-- trigger (CHIME_RETRY.retry-F, model/records.h) with the fire F it ran
-- again; those claimed or running first, then the recorded ones newest
-- first.  Columns in the order of CHIME__ADMIN_RETRY_COLUMNS
-- (jobstore/admin.h).
-- Arguments: sched_name, sched_name, limit + offset (the recorded ones
-- read at most), limit, offset.
-- Called by: admin_stats.c (list_retries), for chime-admin.h's
-- CHIME_ADMIN_RETRIES.
SELECT fire_id, CAST(SUBSTRING(trigger_name, 7) AS SIGNED)
FROM {P}fired
WHERE sched_name = ? AND trigger_group = 'CHIME_RETRY'
  AND trigger_name LIKE 'retry-%'
UNION ALL
SELECT * FROM (
  SELECT fire_id, CAST(SUBSTRING(trigger_name, 7) AS SIGNED)
  FROM {P}history
  WHERE sched_name = ? AND trigger_group = 'CHIME_RETRY'
    AND trigger_name LIKE 'retry-%'
  ORDER BY id DESC
  LIMIT ?) h
LIMIT ? OFFSET ?
