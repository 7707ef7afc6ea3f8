-- Forgets the sessions of a node that were ended (sessions.c, end_fn); a
-- row whose id a new session of another node took meanwhile stays.  A
-- text statement.  Rows (conn_ids), one per session: id; then slots
-- sched, node.
-- Called by: sessions.c (end_fn).
DELETE FROM {P}node_sessions
WHERE conn_id IN (/*{conn_ids*/ /*:id*/ /*}*/)
  AND sched_name = /*:sched*/
  AND node = /*:node*/
