-- A node's fired rows but the sharded parents', locked, in id order
-- (scheduler, node): a recovery or hand-over.
-- Called by: recover.c (recover_fn), recover.c (chime__mysql_recover_own),
-- recover.c (hand_over_tx).
SELECT {fired_cols}
FROM {P}fired
WHERE sched_name = ?
  AND node = ?
  AND state <> 'SHARDED'
ORDER BY fire_id
FOR UPDATE
