-- A trigger's row (scheduler, group, name), not locked.
-- Called by: tables.c (chime__mysql_trigger_load).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
