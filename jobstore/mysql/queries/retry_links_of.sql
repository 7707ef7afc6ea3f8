-- The retry links of one fire F, for an operator: the fire F retried (its
-- own rows name CHIME_RETRY.retry-P), then the fires that retried F (a
-- later fire of CHIME_RETRY.retry-F), recorded ones before running ones,
-- each by the history's (sched_name, fire_id) index (migration 015),
-- without a scan.  Columns in the order of CHIME__ADMIN_RETRY_COLUMNS
-- (jobstore/admin.h).
-- Arguments: sched_name, F, sched_name, F, F, sched_name, F, retry-F, F,
-- sched_name, F, retry-F, limit, offset.
-- Called by: admin_stats.c (list_retries), for chime-admin.h's
-- CHIME_ADMIN_RETRIES filtered by a fire.
SELECT fire_id, CAST(SUBSTRING(trigger_name, 7) AS SIGNED)
FROM {P}history
WHERE sched_name = ? AND fire_id = ? AND trigger_group = 'CHIME_RETRY'
  AND trigger_name LIKE 'retry-%'
UNION ALL
SELECT fire_id, CAST(SUBSTRING(trigger_name, 7) AS SIGNED)
FROM {P}fired
WHERE sched_name = ? AND fire_id = ? AND trigger_group = 'CHIME_RETRY'
  AND trigger_name LIKE 'retry-%'
UNION ALL
SELECT fire_id, ?
FROM {P}history
WHERE sched_name = ? AND fire_id > ? AND trigger_group = 'CHIME_RETRY'
  AND trigger_name = ?
UNION ALL
SELECT fire_id, ?
FROM {P}fired
WHERE sched_name = ? AND fire_id > ? AND trigger_group = 'CHIME_RETRY'
  AND trigger_name = ?
LIMIT ? OFFSET ?
