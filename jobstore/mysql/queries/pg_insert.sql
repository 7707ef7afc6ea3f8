-- Remembers a group matcher that pauses new triggers (scheduler, match kind,
-- pattern).
-- Called by: pause.c (by_group_fn).
INSERT IGNORE INTO {P}paused_groups (sched_name, match_kind, pattern)
VALUES (?,?,?)
