-- Marks this node's drain request DRAINED, counting the fires it handed
-- over (drain.c).  A text statement.  Slots: handed, sched, node.
-- Called by: drain.c (report_fn).
UPDATE {P}node_drains
SET state = 'DRAINED', drained_ms = {now_ms}, handed = handed + /*:handed*/
WHERE sched_name = /*:sched*/
  AND instance_id = /*:node*/
