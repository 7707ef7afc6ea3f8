-- A limited type's running fires (claimed or executing; a shard counts as
-- part of its sharded fire), of one partition in the part partition
-- (limit.c, count_running).  A text statement.  Slots: sched, type, key.
-- Called by: limit.c (count_running).
SELECT COUNT(*)
FROM {P}fired
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
  /*[partition*/ AND partition_key = /*:key*/ /*]*/
  AND shard_parent = 0
