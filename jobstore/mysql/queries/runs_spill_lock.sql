-- Locks the trigger rows runs_find.sql found, by their keys alone
-- (_triggers_by_keys.sql), and keeps those still holding a run that the
-- filter selects (_runs_filter.sql): the row may have changed between the
-- two reads.  A text statement.  Rows (keys): key; then sched and
-- _runs_filter.sql's slots.
-- Called by: runs.c (chime__mysql_runs_spill).
SELECT t.trigger_group, t.trigger_name
FROM {_triggers_by_keys}
WHERE t.state = 'EXECUTING'
  {_runs_filter}
FOR UPDATE
