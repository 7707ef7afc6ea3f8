-- A scheduler's triggers counted by state, for an operator: columns in
-- the order of CHIME__ADMIN_STATE_COUNT_COLUMNS (jobstore/admin.h).
-- Arguments: sched_name, limit, offset.
-- Called by: admin_stats.c (list_states), for chime-admin.h's
-- CHIME_ADMIN_TRIGGER_STATES.
SELECT state, COUNT(*)
FROM {P}triggers
WHERE sched_name = ?
GROUP BY state
ORDER BY state
LIMIT ? OFFSET ?
