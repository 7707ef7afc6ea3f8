-- The blocked triggers of a job still blocked after job_unblock_set.sql,
-- read without locking: those another session held, which tables.c names
-- at WARN.  A text statement.  Slots: sched, group, name.
-- Called by: tables.c (job_unblock, job_triggers_set).
SELECT trigger_group, trigger_name
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND job_group = /*:group*/
  AND job_name = /*:name*/
  AND state IN ('BLOCKED','PAUSED_BLOCKED')
