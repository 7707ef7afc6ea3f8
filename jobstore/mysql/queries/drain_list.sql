-- The nodes of a scheduler asked to drain, by instance id, for an
-- operator (a node that stopped stays listed until undrained): columns in
-- the order of CHIME__ADMIN_DRAIN_COLUMNS (jobstore/admin.h).
-- Arguments: sched_name, limit, offset.
-- Called by: admin_stats.c (list_drains), for chime-admin.h's
-- CHIME_ADMIN_DRAINS.
SELECT instance_id, IF(state = 'DRAINED', 'drained', 'draining'),
       requested_ms, timeout_ms
FROM {P}node_drains
WHERE sched_name = ?
ORDER BY instance_id
LIMIT ? OFFSET ?
