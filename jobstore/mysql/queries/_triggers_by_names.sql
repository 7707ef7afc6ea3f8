-- The trigger rows t of one group named by a list, found by their
-- primary key alone (enqueue_existing.sql, enqueue_held_over.sql).
-- "trigger_name IN (...)" is not enough: with some hundreds of names
-- MariaDB reads the whole group instead, and a locking read or a DELETE
-- waits for the lock of every row it passes, such as a run being claimed
-- or completed, or held by a job's open transaction.  So the names are a
-- table (JSON_TABLE), joined first (STRAIGHT_JOIN): each row is one
-- primary-key lookup.  Rows (names), one per name, once each, in
-- ascending order (the key's): name (a JSON string); then sched, group.
-- The names' column has the key's collation: with the connection's
-- (utf8mb4_bin) the comparison is refused as an illegal mix.
JSON_TABLE('[/*{names*/ /*:name*/ /*}*/]', '$[*]'
    COLUMNS (name VARCHAR(190) CHARACTER SET utf8mb4
      COLLATE utf8mb4_nopad_bin PATH '$')) AS names
STRAIGHT_JOIN {P}triggers t FORCE INDEX (PRIMARY)
  ON t.sched_name = /*:sched*/
  AND t.trigger_group = /*:group*/
  AND t.trigger_name = names.name
