-- The WAITING triggers a node should have fired by an instant, for an
-- operator (chime-admin.h's chime_admin_query_set_late): due before it,
-- not finished, not ignoring misfires (misfire 1, CHIME_MISFIRE_IGNORE),
-- not a backfill's; earliest due first, on the triggers_due index
-- (sched_name, state, next_fire_ms).  Reads only: no lock.
-- Arguments: sched_name, job_group, job_group, job_name (NULL: any job),
-- before_ms.
-- Called by: admin_list.c (list_triggers).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = ?
  AND (? IS NULL OR (job_group = ? AND job_name = ?))
  AND state = 'WAITING'
  AND next_fire_ms < ?
  AND next_fire_ms <> {no_fire}
  AND misfire <> 1
  AND trigger_group <> '{backfill_group}'
ORDER BY next_fire_ms
