-- Registers the connection running it as one of a node's sessions, so
-- that a survivor can end them before it recovers the node (sessions.c).
-- A text statement, run on the connection as it opens, before the store's
-- transactions.  Slots: sched, node.
-- Called by: tx.c (chime__mysql_session_register).
REPLACE INTO {P}node_sessions (conn_id, sched_name, node, opened_ms)
VALUES (CONNECTION_ID(), /*:sched*/, /*:node*/, {now_ms})
