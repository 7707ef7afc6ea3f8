-- Pauses one trigger (scheduler, group, name): a claim it had is dropped.
-- Called by: pause.c (chime__mysql_pause_trigger).
UPDATE {P}triggers
SET owner = NULL, claim_fire_id = NULL, state = {_pause_state}
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
  AND state <> 'EXECUTING'
