-- The same for one node (one more argument), locking its row. A row another
-- session holds is skipped, not waited for: another survivor is recovering
-- that node (a recovery under load takes a while, and waiting for it held
-- this node's loop past its own check-in), or the node just checked in again.
-- Called by: recover.c (recover_fn).
SELECT d.instance_id
FROM {P}nodes d
JOIN {P}nodes me ON me.sched_name = d.sched_name
  AND me.instance_id = ?
WHERE d.sched_name = ?
  AND d.instance_id <> me.instance_id
  AND {lease_end:d.} < {now_ms}
  AND {node_live:me.}
  AND me.last_checkin_ms >= d.last_checkin_ms + d.checkin_interval_ms
  AND d.instance_id = ?
FOR UPDATE SKIP LOCKED
