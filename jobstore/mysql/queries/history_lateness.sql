-- How late the scheduled runs of a scheduler's history started (started
-- minus scheduled, 0 when early), in one row: how many, their lateness
-- summed, then for each of the 15 buckets (CHIME__ADMIN_LATENESS_BUCKETS,
-- jobstore/admin.h, passed as arguments) the runs late by at most it and
-- their lateness summed.  A scheduled run: no fire-now, backfill, retry
-- or recovery (chime__admin_scheduled_run says the same for the memory
-- store).
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
        AND trigger_group NOT IN ('MANUAL_TRIGGER', 'CHIME_BACKFILL',
                                  'CHIME_RETRY', 'CHIME_RECOVERING')
        AND recovering = 0) h
