-- A completion retried after a lost reply to its COMMIT (complete.c): the
-- history rows its fires already have, to tell this node's own (written
-- by the lost COMMIT) from none.  A text statement.  Slots: sched, since
-- (the least finished_ms such a row can have), then one row (fire_ids)
-- per fire whose fired row is gone: id.
-- Called by: complete.c (find_own_commit).
SELECT fire_id, node, error_code, started_ms, finished_ms
FROM {P}history
WHERE sched_name = /*:sched*/
  AND finished_ms >= /*:since*/
  AND fire_id IN (/*{fire_ids*/ /*:id*/ /*}*/)
