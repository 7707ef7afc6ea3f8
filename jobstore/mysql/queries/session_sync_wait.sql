-- Sets this session's wsrep_sync_wait (Galera): READ (1) around the
-- decision that a node is dead, then back to the store's own level
-- (recover.c, with_sync_wait).  A text statement (a SET takes no ?).
-- Slot: level.
-- Called by: recover.c (with_sync_wait); tx.c (chime__mysql_conn_open: the
-- store's own level, on a Galera member).
SET SESSION wsrep_sync_wait = /*:level*/
