-- Every session of the store runs in UTC: the database's clock
-- ({now_ms}) and any DATETIME it prints are the same on every node.
-- Called by: tx.c (chime__mysql_conn_open), on a connection just opened.
SET SESSION time_zone = '+00:00'
