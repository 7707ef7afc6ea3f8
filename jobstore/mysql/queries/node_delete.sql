-- Deletes a dead node's row after its recovery (scheduler, instance id).
-- Called by: recover.c (recover_fn).
DELETE FROM {P}nodes
WHERE sched_name = ?
  AND instance_id = ?
