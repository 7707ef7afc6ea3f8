-- How late the scheduled runs of a scheduler's history started (started
-- minus scheduled, 0 when early), in one row: how many, their lateness
-- summed, then for each of the 15 buckets (CHIME__ADMIN_LATENESS_BUCKETS,
-- jobstore/admin.h, passed as arguments) the runs late by at most it and
-- their lateness summed, of the scheduled runs (_scheduled_run.sql).
-- Arguments: each bucket's ms twice (in order), then sched_name.
-- Called by: admin_stats.c (list_lateness), for chime-admin.h's
-- CHIME_ADMIN_LATENESS.
SELECT COUNT(*), COALESCE(SUM(late), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0),
       COALESCE(SUM(late <= ?), 0), COALESCE(SUM(IF(late <= ?, late, 0)), 0)
FROM (SELECT GREATEST(started_ms - scheduled_ms, 0) AS late
      FROM {P}history
      WHERE sched_name = ?
        AND {_scheduled_run}) h
