-- The session's row-lock wait, in whole seconds (the store's lock_wait
-- URL key).  A text statement (a SET takes no ?).  Slot: seconds.
-- Called by: tx.c (chime__mysql_conn_open), on a connection just opened.
SET SESSION innodb_lock_wait_timeout = /*:seconds*/
