-- Deletes a batch of history rows past retention, oldest first (retain.c,
-- trim_fn).  A text statement.  Slots: sched, cutoff (rows finished before
-- it go), batch.
-- Called by: retain.c (trim_fn).
DELETE FROM {P}history
WHERE sched_name = /*:sched*/
  AND finished_ms < /*:cutoff*/
ORDER BY finished_ms
LIMIT /*:batch*/
