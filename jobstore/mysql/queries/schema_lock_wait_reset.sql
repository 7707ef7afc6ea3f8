-- Back to the server's metadata-lock wait once migrations ran, for the
-- session's later use.
-- Called by: schema.c (settle).
SET SESSION lock_wait_timeout = DEFAULT
