-- Writes a trigger's fire state and state, unclaimed (next, prev, times,
-- state start, state repeat count, state, then scheduler, group, name).
-- Called by: tables.c (chime__mysql_trigger_save_state).
UPDATE {P}triggers
SET next_fire_ms = ?, prev_fire_ms = ?, times_triggered = ?, state_start_ms =
    ?, state_repeat_count = ?, state = ?, owner = NULL, claim_fire_id = NULL
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
