-- A partition's rate state (its theoretical arrival time) as the last
-- claim wrote it, locked (limit.c, read_tat; no row: none).  A text
-- statement.  Slots: sched, type, key.
-- Called by: limit.c (read_tat).
SELECT tat_ms
FROM {P}limit_keys
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
  AND partition_key = /*:key*/
FOR UPDATE
