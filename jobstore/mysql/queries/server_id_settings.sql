-- The server's settings that say whether the ids of one multi-row INSERT
-- are consecutive (store.c, settings_fn; batch.c reads them back
-- otherwise).
-- Called by: store.c (settings_fn).
SELECT @@innodb_autoinc_lock_mode, @@auto_increment_increment
