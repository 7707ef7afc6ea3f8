-- The WAITING triggers past the misfire threshold that do not ignore
-- misfires, oldest first, passing over those another session holds
-- (scheduler, threshold instant, at most).
-- Called by: maint.c (misfire_fn).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = ?
  AND state = 'WAITING'
  AND misfire <> 1
  AND next_fire_ms <= ?
  AND next_fire_ms <> {no_fire}
ORDER BY next_fire_ms, priority DESC, trigger_group, trigger_name
LIMIT ?
FOR UPDATE SKIP LOCKED
