-- Takes the schema lock of a database and prefix (a named lock, waiting
-- up to 60 s), so that nodes starting together create or migrate the
-- schema once: 1 taken, 0 timed out.  A text statement.  Slot: name.
-- Called by: schema.c (schema_lock).
SELECT GET_LOCK(/*:name*/, 60)
