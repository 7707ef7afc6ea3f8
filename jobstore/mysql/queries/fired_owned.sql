-- Whether a fire is this node's and executing (fire id, scheduler, node).
-- Called by: maint.c (owned_fn), shards.c (ckpt_set_fn).
SELECT 1
FROM {P}fired
WHERE fire_id = ?
  AND sched_name = ?
  AND node = ?
  AND state = 'EXECUTING'
