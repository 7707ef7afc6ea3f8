-- The fired rows f of a list of fire ids, found by their primary key alone
-- and locked by nothing else (complete_lock_fired.sql,
-- complete_delete_fired.sql, fire_lock_batch.sql).  "fire_id IN (...)"
-- is not enough: with a fired table about as small as the list (a steady
-- load, a burst of completions), MariaDB scans the whole table instead,
-- FORCE INDEX or not, and a locking scan waits for the lock of every row
-- it passes, such as the fired row a job's open completion transaction
-- (fire_tx.c) holds for its whole run.  So the ids are a table (JSON_TABLE),
-- joined first (STRAIGHT_JOIN): each row is one primary-key lookup.  One
-- id alone (a transactional completion) needs no such table: the part one,
-- "WHERE f.fire_id = /*:one*/", which the statement places, is a constant
-- lookup, and cheaper.  Fire ids are unique across schedulers: no
-- scheduler is named (given it, MariaDB may pick the (scheduler, node)
-- index and lock every fired row of every node).  Parts ids and ids_on,
-- kept for two ids or more: rows (fire_ids), one per fire, in ascending
-- order (the order every locker of fired rows takes them in): id.
/*[ids*/ JSON_TABLE('[/*{fire_ids*/ /*:id*/ /*}*/]', '$[*]'
    COLUMNS (id BIGINT PATH '$')) AS ids STRAIGHT_JOIN /*]*/
{P}fired f FORCE INDEX (PRIMARY) /*[ids_on*/ ON f.fire_id = ids.id /*]*/
