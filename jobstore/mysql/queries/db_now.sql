-- The database's clock (tx.c measures its offset from this host's).
-- Called by: tx.c (measure_now: on the heartbeat connection, bare), tx.c
-- (chime__mysql_clock_measure).
SELECT {now_ms}
