-- CHIME_ADMIN_STUCK's "lease": the leases held by a node that is gone (no
-- nodes row, or one naming another process), and which: the reason
-- "node_gone" or "id_reused" (scheduler, name, name: NULL for all).
-- Called by: admin_repair.c (list_stuck); repair.c (fix_lease, which checks
-- again before it releases).
SELECT l.lease_name, l.holder_node, l.holder_host, l.holder_pid,
       IF(n.instance_id IS NULL, 'node_gone', 'id_reused')
FROM {P}leases l
LEFT JOIN {P}nodes n ON n.sched_name = l.sched_name
  AND n.instance_id = l.holder_node
WHERE l.sched_name = ?
  AND (? IS NULL OR l.lease_name = ?)
  AND l.released = 0
  AND l.expires_ms > {now_ms}
  AND (n.instance_id IS NULL OR n.host <> l.holder_host
       OR n.pid <> l.holder_pid)
ORDER BY l.lease_name
