-- Writes a type's rate state (its theoretical arrival time) before the
-- claim commits (limit.c, chime__mysql_limits_write).  A text statement.
-- Slots: tat_ms, sched, type.
-- Called by: limit.c (chime__mysql_limits_write).
UPDATE {P}limits
SET tat_ms = /*:tat_ms*/
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
