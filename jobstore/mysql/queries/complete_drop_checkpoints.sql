-- Deletes the checkpoints of the runs of a completion batch that wrote or
-- read one, or were recovered (and may have found one): a checkpoint ends
-- with its run.  The run ids are a table joined first, each one
-- primary-key lookup: "run_id IN (...)" with a list about as long as the
-- table reads it all, and that DELETE waits for every locked row it
-- passes.  A text statement.  Rows (run_ids), one per run, in ascending
-- order: id; then sched.
-- Called by: complete.c (drop_checkpoints).
DELETE c
FROM JSON_TABLE('[/*{run_ids*/ /*:id*/ /*}*/]', '$[*]'
    COLUMNS (id BIGINT PATH '$')) AS ids
STRAIGHT_JOIN {P}checkpoints c FORCE INDEX (PRIMARY)
  ON c.sched_name = /*:sched*/
  AND c.run_id = ids.id
