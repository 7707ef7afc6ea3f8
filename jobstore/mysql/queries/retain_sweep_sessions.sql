-- Sweeps a batch of recorded sessions older than keep_ms (retain.c): those
-- of nodes whose row is gone (they left or were recovered), and, in the
-- part own (one host only: a Galera member lists only its own sessions),
-- this node's sessions the server no longer has (each reconnect registers
-- a new one).  A text statement.  Slots: sched, keep_ms, sched2, node,
-- batch.
-- Called by: retain.c (sweep_sessions).
DELETE FROM {P}node_sessions
WHERE sched_name = /*:sched*/
  AND opened_ms < {now_ms} - /*:keep_ms*/
  AND (node NOT IN (SELECT instance_id FROM {P}nodes
                    WHERE sched_name = /*:sched2*/)
    /*[own*/ OR (node = /*:node*/
      AND conn_id NOT IN (SELECT ID FROM information_schema.PROCESSLIST))
    /*]*/)
LIMIT /*:batch*/
