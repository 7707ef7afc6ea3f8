-- node.c: the row of an instance id, live or not, locked: a second claimer
-- waits for the first one's commit and then sees its row (scheduler, instance
-- id).
-- Called by: node.c (claim_row).
SELECT host, pid, started_ms, {node_live}
FROM {P}nodes
WHERE sched_name = ?
  AND instance_id = ?
FOR UPDATE
