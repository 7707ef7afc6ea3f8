-- The trigger rows t of a list of keys, found by their primary key alone
-- (enqueue_existing.sql, enqueue_held_over.sql, trig_get_lock_many.sql,
-- trig_delete_many.sql, job_block_set.sql, job_unblock_set.sql).
-- "trigger_name IN (...)" or "(trigger_group = ? AND trigger_name = ?) OR
-- ..." is not enough: with a list about as long as the group or the table,
-- or some hundreds of names, MariaDB reads the whole group or table
-- instead, and a locking read, an UPDATE or a DELETE waits for the lock of
-- every row it passes, such as a trigger another node is claiming or
-- completing, or a run a job's open transaction has enqueued.  So the keys
-- are a table (JSON_TABLE), joined first (STRAIGHT_JOIN): each row is one
-- primary-key lookup.  Rows (keys), one per trigger, once each, in
-- ascending order (the key's): key (a JSON array ["group","name"]); then
-- sched.  The keys' columns have the table's collation: with the
-- connection's (utf8mb4_bin, say) the comparison is refused as an illegal
-- mix.
JSON_TABLE('[/*{keys*/ /*:key*/ /*}*/]', '$[*]'
    COLUMNS (g VARCHAR(190) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin
               PATH '$[0]',
             n VARCHAR(190) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin
               PATH '$[1]')) AS k
STRAIGHT_JOIN {P}triggers t FORCE INDEX (PRIMARY)
  ON t.sched_name = /*:sched*/
  AND t.trigger_group = k.g
  AND t.trigger_name = k.n
