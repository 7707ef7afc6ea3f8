-- Ends a transaction, dropping what it wrote (its locks with it).
-- Called by: tx.c (attempt, chime__mysql_session_register), fire_tx.c
-- (finish).
ROLLBACK
