-- Pauses the triggers whose group matches a LIKE pattern (scheduler, pattern;
-- escape '!').
-- Called by: pause.c (by_group).
UPDATE {P}triggers
SET owner = NULL, claim_fire_id = NULL, state = {_pause_state}
WHERE sched_name = ?
  AND trigger_group LIKE ? ESCAPE '!'
  AND state <> 'EXECUTING'
