-- The schema's version: the highest migration applied (NULL in an empty
-- table).  Run on the connection opening the store, before its
-- statements exist.
-- Called by: schema.c (chime__mysql_schema_version).
SELECT MAX(version) FROM {P}schema_version
