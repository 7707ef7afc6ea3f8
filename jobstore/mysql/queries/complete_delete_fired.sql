-- Deletes the fired rows of a completion batch's fires that still succeed
-- (complete.c, delete_fired), by their ids alone (_fired_by_ids.sql, its
-- parts ids, ids_on and one): a plain "DELETE ... WHERE fire_id IN (...)"
-- may scan the whole table and wait for the rows of other fires.  A text
-- statement.
-- Called by: complete.c (delete_fired).
DELETE f FROM {_fired_by_ids}
/*[one*/ WHERE f.fire_id = /*:one*/ /*]*/
