-- The operators' list of nodes (chime-admin.h, CHIME_ADMIN_NODES): the
-- columns of CHIME__ADMIN_NODE_COLUMNS in order, a page of them, leaving
-- out an operator's own node (its id, or '').  A node runs its EXECUTING
-- fired rows and its runs kept in trigger rows (runs.c).
-- Called by: admin_list.c (list_nodes).
SELECT n.instance_id, n.host, n.pid, n.version, n.started_ms,
  n.last_checkin_ms, n.checkin_interval_ms, {now_ms} - n.last_checkin_ms,
  {node_live:n.},
  COALESCE((SELECT IF(d.state = 'DRAINED', 'drained', 'draining')
            FROM {P}node_drains d
            WHERE d.sched_name = n.sched_name
              AND d.instance_id = n.instance_id), 'active'),
  (SELECT COUNT(*) FROM {P}fired f
   WHERE f.sched_name = n.sched_name AND f.node = n.instance_id
     AND f.state = 'EXECUTING')
  + (SELECT COUNT(*) FROM {P}triggers t
     WHERE t.sched_name = n.sched_name AND t.state = 'EXECUTING'
       AND t.owner = n.instance_id),
  n.tags
FROM {P}nodes n
WHERE n.sched_name = ?
  AND n.instance_id <> ?
ORDER BY n.instance_id
LIMIT ? OFFSET ?
