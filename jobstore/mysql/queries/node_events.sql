-- A scheduler's node events, newest first, for an operator: columns in
-- the order of CHIME__ADMIN_EVENT_COLUMNS (jobstore/admin.h).  A node's
-- start is its row's; a death shows in the fires its recovery ended
-- (error code CHIME_ENOTOWNER: outcome REQUEUED or FAILED, the node lost
-- them), a cancel too.
-- Arguments: sched_name, instance_id left out ("" for none), sched_name,
-- the error code, limit, offset.
-- Called by: admin_stats.c (list_events), for chime-admin.h's
-- CHIME_ADMIN_EVENTS.
SELECT * FROM (
  SELECT started_ms AS t, instance_id, 'started',
         CONCAT('host ', host, ', pid ', pid, ', version ', version)
  FROM {P}nodes
  WHERE sched_name = ? AND instance_id <> ?
  UNION ALL
  SELECT finished_ms, node, LOWER(outcome),
         CONCAT('fire ', fire_id, ' (', job_group, '.', job_name, '): ',
                COALESCE(error_text, ''))
  FROM {P}history
  WHERE sched_name = ? AND error_code = ?) e
ORDER BY t DESC
LIMIT ? OFFSET ?
