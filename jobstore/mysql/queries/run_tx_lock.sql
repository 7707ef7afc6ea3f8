-- Locks the trigger row of a run kept in it for the run's transactional
-- completion (fire_tx.c): its state, node and fire id, to check it is
-- this node's and executing (fire_tx_lock.sql reads a fired row's).
-- Arguments: sched_name, trigger_group, trigger_name.
-- Called by: fire_tx.c (lock_kept).
SELECT state, owner, claim_fire_id
FROM {P}triggers
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
FOR UPDATE
