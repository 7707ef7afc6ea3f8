-- Ends a transaction, keeping what it wrote: a pool connection runs with
-- autocommit off, so its first statement began one.
-- Called by: tx.c (attempt, chime__mysql_session_register), fire_tx.c
-- (chime__mysql_fire_tx_commit), schema.c (after reading and settling the
-- schema).
COMMIT
