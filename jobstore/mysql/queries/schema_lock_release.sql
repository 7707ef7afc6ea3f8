-- Releases the schema lock schema_lock_take.sql took.  A text statement.
-- Slot: name.
-- Called by: schema.c (schema_lock).
SELECT RELEASE_LOCK(/*:name*/)
