-- The session's metadata-lock wait in whole seconds (MariaDB takes no
-- fraction): 0 or 1 while a migration runs (schema.c, run_ddl says why).
-- A text statement (a SET takes no ?).  Slot: seconds.
-- Called by: schema.c (set_lock_wait).
SET SESSION lock_wait_timeout = /*:seconds*/
