-- The row of a lease name (scheduler, name), locked by TAKE.
-- Called by: lease.c (take_fn), lease.c (change_fn).
SELECT token, acquired_ms, expires_ms, claim
FROM {P}leases
WHERE sched_name = ?
  AND lease_name = ?
