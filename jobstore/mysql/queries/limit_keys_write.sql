-- Writes the partitions' rate state of a type before the claim commits
-- (limit.c, write_key_tats), one row per partition.  A text statement;
-- its values named by their columns.
-- Called by: limit.c (write_key_tats).
INSERT INTO {P}limit_keys (sched_name, job_type, partition_key, tat_ms)
VALUES /*{row*/ (/*:sched_name*/, /*:job_type*/, /*:partition_key*/,
    /*:tat_ms*/) /*}*/
ON DUPLICATE KEY UPDATE tat_ms = VALUES(tat_ms)
