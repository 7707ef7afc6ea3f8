-- The audit id max_rows rows below the newest (retain.c, sweep_audit): one
-- scheduler's rows, an audit table is small, the index on (sched_name,
-- at_ms) finds them.  A text statement.  Slots: sched, max_rows.
-- Called by: retain.c (sweep_audit).
SELECT id
FROM {P}audit
WHERE sched_name = /*:sched*/
ORDER BY id DESC
LIMIT 1 OFFSET /*:max_rows*/
