-- Whether a holder's (name, token) still holds its lease (scheduler, name,
-- token).
-- Called by: lease.c (held_fn).
SELECT 1
FROM {P}leases
WHERE sched_name = ?
  AND lease_name = ?
  AND token = ?
  AND released = 0
  AND expires_ms > {now_ms}
