-- Deletes a batch of the history rows beyond the bound by count: ids up to
-- the cut, oldest first (retain.c, trim_fn).  A text statement.  Slots:
-- sched, cut, batch.
-- Called by: retain.c (trim_fn).
DELETE FROM {P}history
WHERE sched_name = /*:sched*/
  AND id <= /*:cut*/
ORDER BY id
LIMIT /*:batch*/
