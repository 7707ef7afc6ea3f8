-- Forgets every remembered group matcher (scheduler): resume all.
-- Called by: pause.c (by_group_fn).
DELETE FROM {P}paused_groups
WHERE sched_name = ?
