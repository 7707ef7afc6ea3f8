-- Whether a type's limit row is there (limit.c, lock_limit: held by
-- another session, or cleared since the list was read).  A text
-- statement.  Slots: sched, type.
-- Called by: limit.c (lock_limit).
SELECT 1
FROM {P}limits
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
