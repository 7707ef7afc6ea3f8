-- Deletes the checkpoints of the runs of a completion batch that wrote or
-- read one, or were recovered (and may have found one): a checkpoint ends
-- with its run.  A text statement.  Slots: sched, then one
-- row (run_ids) per run: id.
-- Called by: complete.c (drop_checkpoints).
DELETE FROM {P}checkpoints
WHERE sched_name = /*:sched*/
  AND run_id IN (/*{run_ids*/ /*:id*/ /*}*/)
