-- The operators' list of fires claimed or running (chime-admin.h,
-- CHIME_ADMIN_FIRES): the columns of CHIME__ADMIN_FIRE_COLUMNS in order,
-- with whether the fire's node is live; filters node (NULL: any), fire id
-- (0: any), job and trigger (group, name; NULL: any); a page of them.  A
-- fire is a fired row or a run kept in its trigger row (runs.c: the
-- EXECUTING range of triggers_due).  Arguments: scheduler twice, then the
-- filters, limit, offset.
-- Called by: admin_list.c (list_fires).
SELECT f.fire_id, f.job_group, f.job_name, f.trigger_group, f.trigger_name,
  f.node, f.state, f.scheduled_ms, f.acquired_ms,
  {now_ms} - f.acquired_ms, f.recovering,
  (SELECT COUNT(*) FROM {P}nodes n
   WHERE n.sched_name = f.sched_name AND n.instance_id = f.node
     AND {node_live:n.})
FROM (SELECT sched_name, fire_id, job_group, job_name, trigger_group,
        trigger_name, node, state, scheduled_ms, acquired_ms, recovering
      FROM {P}fired
      WHERE sched_name = ?
      UNION ALL
      SELECT sched_name, claim_fire_id, job_group, job_name, trigger_group,
        trigger_name, owner, state, prev_fire_ms,
        COALESCE(run_acquired_ms, 0), 0
      FROM {P}triggers
      WHERE sched_name = ? AND state = 'EXECUTING') f
WHERE (? IS NULL OR f.node = ?)
  AND (? = 0 OR f.fire_id = ?)
  AND (? IS NULL OR (f.job_group = ? AND f.job_name = ?))
  AND (? IS NULL OR (f.trigger_group = ? AND f.trigger_name = ?))
ORDER BY f.fire_id
LIMIT ? OFFSET ?
