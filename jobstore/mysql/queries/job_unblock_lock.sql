-- The blocked triggers of a job (BLOCKED or PAUSED_BLOCKED) to unblock,
-- locked, passing over the rows another session holds (as
-- job_block_lock.sql).  A text statement.  Slots: sched, group, name.
-- Called by: tables.c (job_unblock, job_triggers_set).
SELECT trigger_group, trigger_name
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND job_group = /*:group*/
  AND job_name = /*:name*/
  AND state IN ('BLOCKED','PAUSED_BLOCKED')
FOR UPDATE SKIP LOCKED
