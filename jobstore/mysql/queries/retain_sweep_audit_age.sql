-- Sweeps a batch of audit entries past their retention, oldest first
-- (retain.c, sweep_audit).  A text statement.  Slots: sched, keep_ms,
-- batch.
-- Called by: retain.c (sweep_audit).
DELETE FROM {P}audit
WHERE sched_name = /*:sched*/
  AND at_ms < {now_ms} - /*:keep_ms*/
ORDER BY at_ms
LIMIT /*:batch*/
