-- Releases a held lease: it stays taken until its at_least instant
-- (scheduler, name, token).
-- Called by: lease.c (chime__mysql_lease_release).
UPDATE {P}leases
SET expires_ms = GREATEST({now_ms}, least_until_ms), released = 1
WHERE sched_name = ?
  AND lease_name = ?
  AND token = ?
  AND released = 0
  AND expires_ms > {now_ms}
