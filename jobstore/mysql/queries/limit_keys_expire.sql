-- Drops a type's partition rows whose time has passed (limit.c,
-- write_key_tats): they mean what no row means.  A text statement.
-- Slots: sched, type, before (the database's clock of the claim).
-- Called by: limit.c (write_key_tats).
DELETE FROM {P}limit_keys
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
  AND tat_ms < /*:before*/
