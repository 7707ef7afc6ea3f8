-- Flags executing fires to be cancelled (interrupt.c, flag_fn): one fire by
-- its id, or every fire of a job.  The flag alternates between 1 and 2
-- (both "cancel"), so that a fire flagged already still counts as a
-- changed row.  A text statement.  Slots: sched, then in the part one_fire
-- fire_id, in the part of_job group and name (one of the two parts).
-- Called by: interrupt.c (flag_fn).
UPDATE {P}fired
SET cancel_requested = IF(cancel_requested = 1, 2, 1)
WHERE sched_name = /*:sched*/
  AND state = 'EXECUTING'
  /*[one_fire*/ AND fire_id = /*:fire_id*/ /*]*/
  /*[of_job*/ AND job_group = /*:group*/ AND job_name = /*:name*/ /*]*/
