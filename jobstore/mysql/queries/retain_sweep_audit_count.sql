-- Deletes a batch of audit entries beyond the bound by count: ids up to
-- the cut (retain.c, sweep_audit).  A text statement.  Slots: sched, cut,
-- batch.
-- Called by: retain.c (sweep_audit).
DELETE FROM {P}audit
WHERE sched_name = /*:sched*/
  AND id <= /*:cut*/
ORDER BY id
LIMIT /*:batch*/
