-- Deletes the fired rows of a completion batch's fires that still succeed
-- (complete.c, delete_fired), by their ids alone (_fired_by_ids.sql): a
-- plain "DELETE ... WHERE fire_id IN (...)" may scan the whole table and
-- wait for the rows of other fires.  A text statement.  Rows (fire_ids),
-- one per fire: id.
-- Called by: complete.c (delete_fired).
DELETE f FROM {_fired_by_ids}
