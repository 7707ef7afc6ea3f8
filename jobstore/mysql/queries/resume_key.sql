-- Resumes one trigger (scheduler, group, name): WAITING, BLOCKED while a
-- FORBID fire of its job runs, COMPLETE when it has no fire left.
-- Called by: pause.c (chime__mysql_resume_trigger).
UPDATE {P}triggers t
SET t.state = {_resume_state}
WHERE t.sched_name = ?
  AND t.trigger_group = ?
  AND t.trigger_name = ?
