-- Gives back a trigger this claim holds (scheduler, group, name, claim's fire
-- id): WAITING again, or COMPLETE when it has no fire left.
-- Called by: tables.c (chime__mysql_claim_return).
UPDATE {P}triggers
SET state = IF(next_fire_ms = {no_fire}, 'COMPLETE', 'WAITING'), owner = NULL,
    claim_fire_id = NULL
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
  AND state = 'ACQUIRED'
  AND claim_fire_id = ?
