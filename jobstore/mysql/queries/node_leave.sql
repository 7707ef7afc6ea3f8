-- node.c: removes this node's row when it holds no fires (fired rows, runs
-- kept in trigger rows: runs.c) and still names this process (scheduler,
-- node, host, pid, started, scheduler, node, scheduler, node).
-- Called by: node.c (chime__mysql_node_leave_tx).
DELETE FROM {P}nodes
WHERE sched_name = ?
  AND instance_id = ?
  AND host = ?
  AND pid = ?
  AND started_ms = ?
  AND NOT EXISTS (SELECT 1 FROM {P}fired WHERE sched_name = ? AND node = ?)
  AND NOT EXISTS (SELECT 1 FROM {P}triggers
      WHERE sched_name = ? AND state = 'EXECUTING' AND owner = ?)
