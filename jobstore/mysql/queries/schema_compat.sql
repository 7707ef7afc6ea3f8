-- The oldest library version a schema version is compatible with (NULL:
-- only its own).  A text statement.  Slot: version.
-- Called by: schema.c (chime__mysql_schema_compat).
SELECT compatible_with FROM {P}schema_version WHERE version = /*:version*/
