-- 002_node_sessions.sql: the database sessions (connection ids) of each
-- node, so that a survivor can end a dead node's sessions before it
-- recovers the node's fires: a node frozen inside a transaction (SIGSTOP,
-- a stalled VM) would otherwise hold its row locks until its connection
-- times out.  Every connection of a node registers itself when it opens
-- (conn_id is CONNECTION_ID(), unique among the server's live sessions, so
-- a reused id moves to its new owner); opened_ms is the database's clock.

CREATE TABLE IF NOT EXISTS {P}node_sessions (
  conn_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  sched_name VARCHAR(190) NOT NULL,
  node VARCHAR(190) NOT NULL,
  opened_ms BIGINT NOT NULL,
  KEY {P}node_sessions_node (sched_name, node)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
