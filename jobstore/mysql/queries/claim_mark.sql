-- Marks the triggers of a claim's fires ACQUIRED by their fired rows
-- (owner and claim id from the fired row); a trigger no longer WAITING is
-- not changed (acquire.c counts the changed rows).  A text statement.
-- Rows (fire_ids), one per fire: id.
-- Called by: acquire.c (mark_claimed).
UPDATE {P}triggers t
JOIN {P}fired f FORCE INDEX (PRIMARY) ON f.sched_name = t.sched_name
  AND f.trigger_group = t.trigger_group
  AND f.trigger_name = t.trigger_name
SET t.state = 'ACQUIRED', t.owner = f.node, t.claim_fire_id = f.fire_id
WHERE t.state = 'WAITING'
  AND f.fire_id IN (/*{fire_ids*/ /*:id*/ /*}*/)
