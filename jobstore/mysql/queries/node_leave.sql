-- node.c: removes this node's row when it holds no fires and still names this
-- process (scheduler, node, host, pid, started, scheduler, node).
-- Called by: node.c (chime__mysql_node_leave_tx).
DELETE FROM {P}nodes
WHERE sched_name = ?
  AND instance_id = ?
  AND host = ?
  AND pid = ?
  AND started_ms = ?
  AND NOT EXISTS (SELECT 1 FROM {P}fired WHERE sched_name = ? AND node = ?)
