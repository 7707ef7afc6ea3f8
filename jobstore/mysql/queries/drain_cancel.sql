-- Withdraws a node's drain request (drain.c).  A text statement.  Slots:
-- sched, node.
-- Called by: drain.c (set_fn).
DELETE FROM {P}node_drains
WHERE sched_name = /*:sched*/
  AND instance_id = /*:node*/
