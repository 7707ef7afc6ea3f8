-- Locks the row of a FORBID job unless another session holds it (no row
-- then): a node frozen in a transaction must not stall the claims of every
-- other trigger in the batch (SKIP LOCKED, as for the triggers).  A text
-- statement: one round trip.  Slots: sched, group, name (the job's key).
-- Called by: acquire.c (lock_job_row).
SELECT 1
FROM {P}jobs
WHERE sched_name = /*:sched*/
  AND job_group = /*:group*/
  AND job_name = /*:name*/
FOR UPDATE SKIP LOCKED
