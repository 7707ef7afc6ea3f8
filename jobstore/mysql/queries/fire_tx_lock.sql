-- Locks a fire's row for its transactional completion (fire_tx.c): its
-- state and node, to check it is this node's and executing.  A text
-- statement.  Slots: fire_id, sched.
-- Called by: fire_tx.c (lock_fire).
SELECT state, node
FROM {P}fired FORCE INDEX (PRIMARY)
WHERE fire_id = /*:fire_id*/
  AND sched_name = /*:sched*/
FOR UPDATE
