-- The runs kept in trigger rows (migration 018) a spill moves to fired
-- rows (runs.c, chime__mysql_runs_spill), found without locks: the
-- EXECUTING rows of triggers_due (there are as many as runs are kept),
-- filtered by _runs_filter.sql.  A locking read of that range would wait
-- for the lock of every run it passes, such as one a job's open
-- completion transaction (fire_tx.c) holds for its whole run; the rows
-- are locked by their keys next (runs_spill_lock.sql).  A text statement.
-- Slots: sched, then _runs_filter.sql's.
-- Called by: runs.c (find).
SELECT t.trigger_group, t.trigger_name
FROM {P}triggers t
WHERE t.sched_name = /*:sched*/
  AND t.state = 'EXECUTING'
  {_runs_filter}
