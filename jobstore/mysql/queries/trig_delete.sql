-- Deletes a trigger's row (scheduler, group, name).
-- Called by: tables.c (chime__mysql_trigger_delete).
DELETE FROM {P}triggers
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
