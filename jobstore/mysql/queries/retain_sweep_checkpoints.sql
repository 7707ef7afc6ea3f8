-- Sweeps a batch of checkpoints not updated for keep_ms whose run has ended
-- (no fire and no recovery trigger of the run left) (retain.c).  A text
-- statement.  Slots: sched, keep_ms, batch.
-- Called by: retain.c (sweep_checkpoints).
DELETE FROM {P}checkpoints
WHERE sched_name = /*:sched*/
  AND updated_ms < {now_ms} - /*:keep_ms*/
  AND NOT EXISTS (SELECT 1 FROM {P}fired f
      WHERE f.fire_id IN ({P}checkpoints.fire_id, {P}checkpoints.run_id))
  AND NOT EXISTS (SELECT 1 FROM {P}triggers t
      WHERE t.sched_name = {P}checkpoints.sched_name
        AND t.origin_fire_id = {P}checkpoints.run_id)
LIMIT /*:batch*/
