-- node.c: whom the row of an instance id names (scheduler, id).
-- Called by: node.c (holder), recover.c (recover_rowless).
SELECT host, pid, started_ms
FROM {P}nodes
WHERE sched_name = ?
  AND instance_id = ?
