-- Extends a held lease (at_most, scheduler, name, token); extensions counts,
-- so that a matched row is always a changed one.
-- Called by: lease.c (change_fn), lease.c (chime__mysql_lease_extend).
UPDATE {P}leases
SET expires_ms = {now_ms} + ?, extensions = extensions + 1
WHERE sched_name = ?
  AND lease_name = ?
  AND token = ?
  AND released = 0
  AND expires_ms > {now_ms}
