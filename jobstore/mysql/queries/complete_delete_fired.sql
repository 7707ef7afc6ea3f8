-- Deletes the fired rows of a completion batch's fires that still succeed
-- (complete.c, delete_fired).  A single-table DELETE: its IN list is point
-- lookups on the primary key; the multi-table form scans the range between
-- them, and waits for the locks of fires in between (a job's open
-- completion transaction, fire_tx.c, holds its fire's row for the whole
-- run).  A text statement.  Rows (fire_ids), one per fire: id.
-- Called by: complete.c (delete_fired).
DELETE FROM {P}fired
WHERE fire_id IN (/*{fire_ids*/ /*:id*/ /*}*/)
