-- The new triggers of an enqueued batch, one multi-row INSERT (enqueue.c,
-- insert_rest): sent as text, since a statement of a thousand rows has
-- some 40,000 parameters, which costs more to prepare for one execution
-- than the literals cost to escape.  A text statement; per row (row) its
-- values, each slot named by its column: sched_name, then the trigger
-- columns in the order of {trigger_cols} (columns.h,
-- chime__mysql_trigger_to_args).
-- Called by: enqueue.c (insert_rest).
INSERT INTO {P}triggers (sched_name, {trigger_cols})
VALUES /*{row*/ (/*:sched_name*/, {trigger_slots}) /*}*/
