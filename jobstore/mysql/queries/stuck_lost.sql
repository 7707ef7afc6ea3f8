-- CHIME_ADMIN_STUCK's suspects of "lost": the fires EXECUTING on a live
-- node that reports the fires it holds (held_ids, held.c) and did not list
-- them, with the node's last report (held_at_ms), its check-in interval
-- and the database's now (scheduler, scheduler): fired rows and runs kept
-- in trigger rows (runs.c).  A suspect is lost only once a report
-- made after it was seen still leaves it out (chime-admin(3)).
-- Called by: admin_repair.c (list_stuck).
SELECT f.fire_id, f.node, f.trigger_group, f.trigger_name, n.held_at_ms,
       n.checkin_interval_ms, {now_ms}
FROM (SELECT sched_name, fire_id, node, trigger_group, trigger_name
      FROM {P}fired
      WHERE sched_name = ? AND state = 'EXECUTING'
      UNION ALL
      SELECT sched_name, claim_fire_id, owner, trigger_group, trigger_name
      FROM {P}triggers
      WHERE sched_name = ? AND state = 'EXECUTING') f
JOIN {P}nodes n ON n.sched_name = f.sched_name AND n.instance_id = f.node
WHERE n.held_ids IS NOT NULL
  AND n.held_at_ms IS NOT NULL
  AND {node_live:n.}
  AND FIND_IN_SET(CAST(f.fire_id AS CHAR), n.held_ids) = 0
ORDER BY f.fire_id
