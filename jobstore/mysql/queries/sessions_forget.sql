-- Forgets the sessions of a node that were ended (sessions.c, end_fn); a
-- row whose id a new session of another node took meanwhile stays.  The
-- ids are a table joined first, each one primary-key lookup: "conn_id IN
-- (...)" with a list about as long as the table reads it all, and that
-- DELETE waits for every locked row it passes, such as another node's
-- session registering itself (a node stopped there holds it).  A text
-- statement.  Rows (conn_ids), one per session, in ascending order: id;
-- then sched, node.
-- Called by: sessions.c (end_fn).
DELETE s
FROM JSON_TABLE('[/*{conn_ids*/ /*:id*/ /*}*/]', '$[*]'
    COLUMNS (id BIGINT UNSIGNED PATH '$')) AS ids
STRAIGHT_JOIN {P}node_sessions s FORCE INDEX (PRIMARY)
  ON s.conn_id = ids.id
WHERE s.sched_name = /*:sched*/
  AND s.node = /*:node*/
