-- An operator's release (chimectl lease release): the lease ends now,
-- at_least or not; its holder's token is refused from then on (scheduler,
-- name).
-- Called by: lease.c (chime__mysql_lease_end).
UPDATE {P}leases
SET expires_ms = {now_ms}, released = 1
WHERE sched_name = ?
  AND lease_name = ?
  AND expires_ms > {now_ms}
