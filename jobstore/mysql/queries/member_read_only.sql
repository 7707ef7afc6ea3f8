-- Whether the server takes writes: read_only (OFF, or ON, NO_LOCK,
-- NO_LOCK_NO_ADMIN in MariaDB 11) and innodb_read_only, in that order.
-- Run on a bare connection as it opens, before any store exists.
-- Called by: conn.c (writable).
SELECT @@global.read_only, @@global.innodb_read_only
