-- The recorded sessions of a node (sessions.c, end_fn): each one's
-- connection id, and whether it is that node's for sure (a live session
-- of this user, not ours, opened since the server started: the server's
-- start in its clock is now less its uptime).  A text statement.  Slots:
-- sched, node.
-- Called by: sessions.c (end_fn).
SELECT n.conn_id, p.ID IS NOT NULL AND p.ID <> CONNECTION_ID()
    AND p.USER = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)
    AND n.opened_ms >= ({now_ms} - 1000 * (SELECT CAST(VARIABLE_VALUE AS
      SIGNED) FROM information_schema.GLOBAL_STATUS
      WHERE VARIABLE_NAME = 'UPTIME'))
FROM {P}node_sessions n
LEFT JOIN information_schema.PROCESSLIST p ON p.ID = n.conn_id
WHERE n.sched_name = /*:sched*/
  AND n.node = /*:node*/
