-- Deletes a scheduler's rows from one table of the store (tests and
-- chime_store_clear).  A text statement.  Slots: table (a table of the
-- store, its prefix included: chime__mysql_sqlbuf_table), sched.
-- Called by: schema.c (clear_fn).
DELETE FROM /*:table*/ WHERE sched_name = /*:sched*/
