-- A run's checkpoint (shards.c), written only while its fired row is this
-- node's and EXECUTING (the SELECT locks it in share mode).
-- Called by: shards.c (ckpt_set_fn).
INSERT INTO {P}checkpoints (sched_name, run_id, fire_id, node, data,
    updated_ms)
SELECT ?, ?, ?, ?, ?, ?
FROM {P}fired
WHERE fire_id = ?
  AND sched_name = ?
  AND node = ?
  AND state = 'EXECUTING'
LOCK IN SHARE MODE
ON DUPLICATE KEY UPDATE fire_id = VALUES(fire_id), node = VALUES(node), data =
    VALUES(data), updated_ms = VALUES(updated_ms)
