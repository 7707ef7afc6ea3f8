-- Deletes a reservation's markers (runs_reserve.sql, runs_reserve_end.sql)
-- in the claim's transaction, which commits them deleted: a replica or
-- another Galera member moves its own counter as it applies the rows.  A
-- text statement.  Slots: first, last (the same id for one).
-- Called by: runs.c (chime__mysql_runs_reserve).
DELETE FROM {P}fired
WHERE fire_id IN (/*:first*/, /*:last*/)
