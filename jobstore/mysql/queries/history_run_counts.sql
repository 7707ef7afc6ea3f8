-- The runs a scheduler's history holds (within its retention), counted
-- by job and outcome, for an operator: columns in the order of
-- CHIME__ADMIN_RUN_COUNT_COLUMNS (jobstore/admin.h).
-- Arguments: sched_name, limit, offset.
-- Called by: admin_stats.c (list_run_counts), for chime-admin.h's
-- CHIME_ADMIN_RUN_COUNTS.
SELECT job_group, job_name, outcome, COUNT(*)
FROM {P}history
WHERE sched_name = ?
GROUP BY job_group, job_name, outcome
ORDER BY job_group, job_name, outcome
LIMIT ? OFFSET ?
