-- Locks a completion batch's fired rows (complete.c, lock_fired): the
-- fired columns, then the trigger's state (NULL when it is gone), read
-- without locking the trigger.  By their ids alone (_fired_by_ids.sql,
-- its parts ids, ids_on and one).  A text statement.
-- Called by: complete.c (lock_fired).
SELECT {fired_cols_f}, (SELECT t.state FROM {P}triggers t
    WHERE t.sched_name = f.sched_name
      AND t.trigger_group = f.trigger_group
      AND t.trigger_name = f.trigger_name)
FROM {_fired_by_ids}
/*[one*/ WHERE f.fire_id = /*:one*/ /*]*/
FOR UPDATE
