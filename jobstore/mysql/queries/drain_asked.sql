-- This node's drain request, if any (drain.c): its state, and whether its
-- timeout ran out by the database's clock.  A text statement.  Slots:
-- sched, node.
-- Called by: drain.c (chime__mysql_drain_read).
SELECT state, timeout_ms > 0 AND requested_ms + timeout_ms <= {now_ms}
FROM {P}node_drains
WHERE sched_name = /*:sched*/
  AND instance_id = /*:node*/
