-- Every lease of a scheduler, by name, for an operator: its last holder,
-- times, token, whether its holder released it, and whether it ran out
-- by the database's clock (then it is free to take).  Columns in the
-- order of CHIME__ADMIN_LEASE_COLUMNS (jobstore/admin.h).
-- Arguments: sched_name, limit, offset.
-- Called by: admin_list.c (list_leases), for chime-admin.h's
-- CHIME_ADMIN_LEASES.
SELECT lease_name, holder_node, holder_host, holder_pid, acquired_ms,
       expires_ms, token, released, expires_ms <= {now_ms}
FROM {P}leases
WHERE sched_name = ?
ORDER BY lease_name
LIMIT ? OFFSET ?
