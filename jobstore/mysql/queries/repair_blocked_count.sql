-- How many triggers of a job are blocked (chimectl repair, repair.c).  A
-- text statement.  Slots: sched, group, name (the job's key).
-- Called by: repair.c (blocked_count).
SELECT COUNT(*)
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND job_group = /*:group*/
  AND job_name = /*:name*/
  AND state IN ('BLOCKED', 'PAUSED_BLOCKED')
