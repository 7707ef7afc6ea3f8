-- The operators' actions of a scheduler, newest first, for an operator:
-- columns in the order of CHIME__ADMIN_AUDIT_COLUMNS (jobstore/admin.h).
-- The time range is on the audit_time index (sched_name, at_ms).
-- Arguments: sched_name, from_ms, to_ms, to_ms (0: open), who, who,
-- action, action (NULL: any), limit, offset.
-- Called by: admin_list.c (list_audit), for chime-admin.h's
-- CHIME_ADMIN_AUDIT.
SELECT id, at_ms, who, origin, action, target, details
FROM {P}audit
WHERE sched_name = ?
  AND at_ms >= ?
  AND (? = 0 OR at_ms < ?)
  AND (? IS NULL OR who = ?)
  AND (? IS NULL OR action = ?)
ORDER BY id DESC
LIMIT ? OFFSET ?
