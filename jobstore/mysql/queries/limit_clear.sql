-- Clears a type's limit (limit.c, set_fn).  A text statement.  Slots:
-- sched, type.
-- Called by: limit.c (set_fn).
DELETE FROM {P}limits
WHERE sched_name = /*:sched*/
  AND job_type = /*:type*/
