-- A run's checkpoint (scheduler, run id).
-- Called by: shards.c (ckpt_get_fn).
SELECT data
FROM {P}checkpoints
WHERE sched_name = ?
  AND run_id = ?
