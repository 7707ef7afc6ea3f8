-- A scheduler's claimed fires counted by state (ACQUIRED, EXECUTING),
-- for an operator: columns in the order of
-- CHIME__ADMIN_STATE_COUNT_COLUMNS (jobstore/admin.h); the runs kept in
-- trigger rows (runs.c) are EXECUTING.
-- Arguments: sched_name, sched_name, limit, offset.
-- Called by: admin_stats.c (list_fire_states), for chime-admin.h's
-- CHIME_ADMIN_FIRE_STATES.
SELECT x.state, CAST(SUM(x.n) AS SIGNED)
FROM (SELECT state, COUNT(*) AS n
      FROM {P}fired
      WHERE sched_name = ?
      GROUP BY state
      UNION ALL
      SELECT 'EXECUTING', COUNT(*)
      FROM {P}triggers
      WHERE sched_name = ? AND state = 'EXECUTING') x
GROUP BY x.state
HAVING SUM(x.n) > 0
ORDER BY x.state
LIMIT ? OFFSET ?
