-- Resumes the triggers whose group matches a LIKE pattern (scheduler,
-- pattern; escape '!'), as resume_key.
-- Called by: pause.c (by_group).
UPDATE {P}triggers t
SET t.state = {_resume_state}
WHERE t.sched_name = ?
  AND t.trigger_group LIKE ? ESCAPE '!'
