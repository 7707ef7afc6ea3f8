-- Locks a completion batch's fired rows (complete.c, lock_fired): the
-- fired columns, then the trigger's state (NULL when it is gone), read
-- without locking the trigger.  Only the primary key is named (fire ids
-- are unique across schedulers): given the scheduler too, MariaDB may pick
-- the (scheduler, node) index and lock every fired row of every node.  A
-- text statement.  Rows (fire_ids), one per fire of the batch: id.
-- Called by: complete.c (lock_fired).
SELECT {fired_cols_f}, (SELECT t.state FROM {P}triggers t
    WHERE t.sched_name = f.sched_name
      AND t.trigger_group = f.trigger_group
      AND t.trigger_name = f.trigger_name)
FROM {P}fired f FORCE INDEX (PRIMARY)
WHERE f.fire_id IN (/*{fire_ids*/ /*:id*/ /*}*/)
FOR UPDATE
