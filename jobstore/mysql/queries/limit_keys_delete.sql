-- Deletes a type's per-partition rate state (limit.c, delete_keys): its
-- limit set again (the partitions' rate starts afresh) or cleared.  A
-- text statement.  Slots: sched, type.
-- Called by: limit.c (delete_keys).
DELETE FROM {P}limit_keys
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
