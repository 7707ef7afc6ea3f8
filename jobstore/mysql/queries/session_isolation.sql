-- Every session of the store reads committed rows: a locking read sees
-- the latest row, and no gap lock of REPEATABLE READ blocks other nodes'
-- inserts.
-- Called by: tx.c (chime__mysql_conn_open), on a connection just opened.
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED
