-- The triggers of a job to block (WAITING or PAUSED), locked, passing over
-- the rows another session holds (a DBA's SELECT ... FOR UPDATE, a stuck
-- client): waiting for one would hold up the whole transaction, the claims
-- or completions of every other trigger in it.  A held row stays WAITING:
-- harmless, no trigger of a job with a fire is claimed (acquire.c).  A
-- text statement.  Slots: sched, group, name (the job's key).
-- Called by: tables.c (chime__mysql_job_block, job_triggers_set).
SELECT trigger_group, trigger_name
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND job_group = /*:group*/
  AND job_name = /*:name*/
  AND state IN ('WAITING','PAUSED')
FOR UPDATE SKIP LOCKED
