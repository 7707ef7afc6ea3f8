-- Sweeps a batch of leases expired longer than keep_ms ago (retain.c).  A
-- text statement.  Slots: sched, keep_ms, batch.
-- Called by: retain.c (sweep_leases).
DELETE FROM {P}leases
WHERE sched_name = /*:sched*/
  AND expires_ms < {now_ms} - /*:keep_ms*/
LIMIT /*:batch*/
