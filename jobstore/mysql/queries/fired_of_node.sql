-- A node's fired rows but the sharded parents', locked, in id order
-- (scheduler, node): a recovery or hand-over.  Through the (scheduler,
-- node) index, forced: left to itself, MariaDB reads a fired table of a
-- few dozen rows or more through the primary key (it is in id order), and
-- that locking read waits for the lock of every node's rows, such as the
-- fire a live node's job holds in its open transaction for its whole run.
-- The index ends with the primary key: the order costs no sort.
-- Called by: recover.c (recover_fn), recover.c (chime__mysql_recover_own),
-- recover.c (hand_over_tx).
SELECT {fired_cols}
FROM {P}fired FORCE INDEX ({P}fired_node)
WHERE sched_name = ?
  AND node = ?
  AND state <> 'SHARDED'
ORDER BY fire_id
FOR UPDATE
