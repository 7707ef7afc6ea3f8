-- The fire ids of the rows a multi-row fired INSERT made, when the
-- AUTO_INCREMENT ids of one INSERT need not be consecutive
-- (innodb_autoinc_lock_mode 2): this node's rows in that state from the
-- first id on.  A text statement.  Slots: sched, node, state (ACQUIRED or
-- EXECUTING), first (the INSERT's first id).
-- Called by: batch.c (read_ids).
SELECT fire_id, trigger_group, trigger_name
FROM {P}fired
WHERE sched_name = /*:sched*/
  AND node = /*:node*/
  AND state = /*:state*/
  AND fire_id >= /*:first*/
ORDER BY fire_id
