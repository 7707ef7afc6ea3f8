-- A limited type's running fires (claimed or executing; a shard counts as
-- part of its sharded fire), of one partition in the part partition
-- (limit.c, count_running): its fired rows and its runs kept in trigger
-- rows (runs.c: the EXECUTING range of triggers_due).  A text statement.
-- Slots: sched, type, key, then the same again for the kept runs.
-- Called by: limit.c (count_running).
SELECT (SELECT COUNT(*)
        FROM {P}fired
        WHERE sched_name = /*:sched*/
          AND job_type = /*:type*/
          /*[partition*/ AND partition_key = /*:key*/ /*]*/
          AND shard_parent = 0)
     + (SELECT COUNT(*)
        FROM {P}triggers t
        WHERE t.sched_name = /*:sched*/
          AND t.state = 'EXECUTING'
          AND t.job_type = /*:type*/
          /*[partition*/ AND t.partition_key = /*:key*/ /*]*/)
