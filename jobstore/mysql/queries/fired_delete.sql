-- Deletes a fired row (fire id).
-- Called by: fire.c (fire_unusual), tables.c (chime__mysql_claim_return),
-- tables.c (chime__mysql_fire_end).
DELETE FROM {P}fired
WHERE fire_id = ?
