-- Clears the paused flag of every job (scheduler): resume all.
-- Called by: pause.c (by_group_fn).
UPDATE {P}jobs
SET paused = 0
WHERE sched_name = ?
