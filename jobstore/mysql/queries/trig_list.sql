-- The keys of the triggers whose group matches a LIKE pattern (scheduler,
-- pattern; escape '!').
-- Called by: defs.c (chime__mysql_trigger_list).
SELECT trigger_group, trigger_name
FROM {P}triggers
WHERE sched_name = ?
  AND trigger_group LIKE ? ESCAPE '!'
