-- Each node's database sessions the server has now, for an operator: its
-- registered sessions (chime__mysql_session_register) that
-- information_schema.PROCESSLIST lists (a user without the PROCESS
-- privilege sees only its own user's), in the order of
-- CHIME__ADMIN_SESSION_COLUMNS (jobstore/admin.h); a node without any is
-- left out, as is the operator's own node (its instance id, "" for none).
-- Arguments: sched_name, the operator's node, limit, offset.
-- Called by: admin_stats.c (list_sessions), for chime-admin.h's
-- CHIME_ADMIN_SESSIONS.
SELECT s.node, COUNT(*)
FROM {P}node_sessions s
JOIN information_schema.PROCESSLIST p ON p.ID = s.conn_id
WHERE s.sched_name = ? AND s.node <> ?
GROUP BY s.node
ORDER BY s.node
LIMIT ? OFFSET ?
