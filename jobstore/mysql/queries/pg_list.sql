-- The remembered group matchers that pause new triggers (scheduler).
-- Called by: pause.c (forget), tables.c (chime__mysql_group_paused).
SELECT match_kind, pattern
FROM {P}paused_groups
WHERE sched_name = ?
