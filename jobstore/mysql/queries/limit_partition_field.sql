-- The data field a type's runs without a partition key take it from
-- (limit.c, chime__mysql_limit_partition; no row: none).  A text
-- statement.  Slots: sched, type.
-- Called by: limit.c (chime__mysql_limit_partition).
SELECT partition_field
FROM {P}limits
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
  AND partition_field IS NOT NULL
