-- A pool connection: every statement opens a transaction that COMMIT or
-- ROLLBACK ends, one round trip fewer than START TRANSACTION.
-- Called by: tx.c (chime__mysql_conn_open), once the session registered.
SET SESSION autocommit = 0
