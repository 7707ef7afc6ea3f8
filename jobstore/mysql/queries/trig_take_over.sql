-- Deletes a keyed run's COMPLETE row kept for its unique period, so that
-- a new run of the key takes it over, or the row that keeps the run of the
-- fire its retry follows (runs.c: EXECUTING, that fire's, completed by
-- the same transaction).  Args: sched_name, trigger_group, trigger_name,
-- the fire id (0: none).
-- Called by: tables.c (chime__mysql_trigger_take_over).
DELETE FROM {P}triggers
WHERE sched_name = ? AND trigger_group = ? AND trigger_name = ?
  AND (state = 'COMPLETE' OR (state = 'EXECUTING' AND claim_fire_id = ?))
