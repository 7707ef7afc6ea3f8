-- How many other live nodes do not read runs kept in trigger rows
-- (nodes.runs_in_triggers is not their started_ms: an earlier release),
-- as a node claims its id (node.c; its check-ins read the same in
-- nodes_lease.sql).  Arguments: scheduler, node.
-- Called by: node.c (read_runs_gate).
SELECT COUNT(*)
FROM {P}nodes
WHERE sched_name = ?
  AND instance_id <> ?
  AND runs_in_triggers <> started_ms
  AND {node_live}
