-- recompute_zones (zones.c): the next batch of unclaimed triggers in a zone,
-- or naming a calendar, after the cursor (group, name), in key order.
-- Called by: zones.c (cursor_at).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = ?
  AND (trigger_group > ? OR (trigger_group = ? AND trigger_name > ?))
  AND zone_name = ?
  AND state IN ('WAITING', 'PAUSED', 'BLOCKED', 'PAUSED_BLOCKED')
ORDER BY trigger_group, trigger_name
LIMIT {zone_batch}
FOR UPDATE SKIP LOCKED
