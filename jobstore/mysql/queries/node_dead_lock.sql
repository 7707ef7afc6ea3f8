-- recover.c: nodes_dead.sql for one node (one more argument), locking its
-- row.  A row another session holds is skipped, not waited for: another
-- survivor is recovering that node (a recovery under load takes a while,
-- and waiting for it held this node's loop past its own check-in), or the
-- node just checked in again.  Arguments: this node, the scheduler, the
-- node.
-- Called by: recover.c (recover_fn).
SELECT d.instance_id
FROM {_nodes_dead}
  AND d.instance_id = ?
FOR UPDATE SKIP LOCKED
