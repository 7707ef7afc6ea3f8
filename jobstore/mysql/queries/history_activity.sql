-- A scheduler's runs started in [from_ms, to_ms) (to_ms 0: open), minute
-- by minute, for an operator: columns in the order of
-- CHIME__ADMIN_ACTIVITY_COLUMNS (jobstore/admin.h): the minute, its runs,
-- its failures (an outcome other than OK or REQUEUED), the average and
-- greatest lateness of its scheduled runs (no fire-now, backfill, retry
-- or recovery; NULL when none).  The memory store's admin_stats.c counts
-- the same.
-- Arguments: sched_name, from_ms, to_ms, to_ms, limit, offset.
-- Called by: admin_stats.c (list_plain), for chime-admin.h's
-- CHIME_ADMIN_ACTIVITY.
SELECT FLOOR(started_ms / 60000) * 60000 AS m, COUNT(*),
       SUM(outcome NOT IN ('OK', 'REQUEUED')),
       CAST(AVG(CASE WHEN {_scheduled_run} THEN
                GREATEST(started_ms - scheduled_ms, 0) END) AS SIGNED),
       MAX(CASE WHEN {_scheduled_run} THEN
           GREATEST(started_ms - scheduled_ms, 0) END)
FROM {P}history
WHERE sched_name = ?
  AND started_ms >= ?
  AND (? = 0 OR started_ms < ?)
GROUP BY m
ORDER BY m
LIMIT ? OFFSET ?
