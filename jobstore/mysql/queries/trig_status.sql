-- A trigger's state (scheduler, group, name).
-- Called by: defs.c (status_fn), pause.c (by_key_fn).
SELECT state
FROM {P}triggers
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
