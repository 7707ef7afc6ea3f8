-- Fails with ER_NO_SUCH_TABLE when one of the schema's tables is missing
-- (reads no row).  A text statement.  Slot: table (a table of the store,
-- its prefix included: chime__mysql_sqlbuf_table).
-- Called by: schema.c (check_tables).
SELECT 1 FROM /*:table*/ LIMIT 0
