-- Locks the fired rows and the triggers of a batch of claims about to
-- fire, in one query, by the fired rows' ids alone (_fired_by_ids.sql, its
-- parts ids, ids_on and one), each then its trigger (STRAIGHT_JOIN: never
-- the triggers first): each trigger's columns, then its fire's id, node
-- and state.  A text statement.
-- Called by: fire.c (lock_batch).
SELECT {trigger_cols_t}, f.fire_id, f.node, f.state
FROM {_fired_by_ids}
STRAIGHT_JOIN {P}triggers t ON t.sched_name = f.sched_name
  AND t.trigger_group = f.trigger_group
  AND t.trigger_name = f.trigger_name
/*[one*/ WHERE f.fire_id = /*:one*/ /*]*/
FOR UPDATE
