-- A completion retried after a lost reply to its COMMIT (complete.c): the
-- history rows its fires already have, to tell this node's own (written
-- by the lost COMMIT) from none.  A text statement.  Slots: sched, since
-- (the least finished_ms such a row can have), fire_ids (",id,id..." of
-- the fires whose fired row is gone).
-- Called by: complete.c (find_own_commit).
SELECT fire_id, node, error_code, started_ms, finished_ms
FROM {P}history
WHERE sched_name = /*:sched*/
  AND finished_ms >= /*:since*/
  AND fire_id IN (0 /*:fire_ids*/)
