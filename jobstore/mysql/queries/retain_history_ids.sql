-- The newest history id and the step ids grow by (auto_increment_increment:
-- a Galera cluster spaces them by its size), for the history's bound by
-- count (retain.c, count_cut).  A text statement.
-- Called by: retain.c (count_cut).
SELECT MAX(id), @@auto_increment_increment
FROM {P}history
