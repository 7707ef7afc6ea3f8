-- Pauses the triggers whose group matches a LIKE pattern (scheduler, pattern;
-- escape '!').
-- Called by: pause.c (by_group).
UPDATE {P}triggers
SET owner = NULL, claim_fire_id = NULL, state = CASE state WHEN 'WAITING' THEN
    'PAUSED' WHEN 'ACQUIRED' THEN 'PAUSED' WHEN 'EXECUTING' THEN 'PAUSED' WHEN
    'BLOCKED' THEN 'PAUSED_BLOCKED' ELSE state END
WHERE sched_name = ?
  AND trigger_group LIKE ? ESCAPE '!'
