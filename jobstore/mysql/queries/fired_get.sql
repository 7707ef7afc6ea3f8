-- A fired row, locked (fire id, scheduler).
-- Called by: tables.c (chime__mysql_fired_get).
SELECT {fired_cols}
FROM {P}fired
WHERE fire_id = ?
  AND sched_name = ?
FOR UPDATE
