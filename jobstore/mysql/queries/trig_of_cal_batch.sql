-- recompute_zones (zones.c): the next batch of unclaimed triggers naming a
-- calendar after the cursor (group, name), in key order (scheduler, group,
-- group, name, calendar).
-- Called by: zones.c (cursor_at).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = ?
  AND (trigger_group > ? OR (trigger_group = ? AND trigger_name > ?))
  AND calendar_name = ?
  AND state IN ('WAITING', 'PAUSED', 'BLOCKED', 'PAUSED_BLOCKED')
ORDER BY trigger_group, trigger_name
LIMIT {zone_batch}
FOR UPDATE SKIP LOCKED
