-- Deletes a keyed run's COMPLETE row kept for its unique period, so that
-- a new run of the key takes it over.  Args: sched_name, trigger_group,
-- trigger_name.
-- Called by: tables.c (chime__mysql_trigger_take_over).
DELETE FROM {P}triggers
WHERE sched_name = ? AND trigger_group = ? AND trigger_name = ?
  AND state = 'COMPLETE'
