-- CHIME_ADMIN_JOB_STATS (chime-admin(3)): per job with runs started in the
-- window, its figures: runs (not REQUEUED: a dead node's record of a run
-- put back), failures (neither OK nor REQUEUED), recovered (REQUEUED), the
-- lateness (started - scheduled, at least 0) p50 and p99 of its scheduled
-- runs only (not fire-now, backfill, retry or recovery runs, not a
-- recovering run: their scheduled time is not the schedule's), the last
-- start, and the earliest next fire of its triggers waiting, claimed or
-- blocked (an EXECUTING row keeps a one-shot's run, runs.c: no fire
-- left).
-- Window functions: MariaDB 10.3+ (a named window takes no
-- PERCENTILE_CONT).  Arguments: sched_name, from_ms, to_ms, to_ms (0:
-- open), job_group, job_group, job_name (NULL: every job), limit, offset.
-- Called by: admin_list.c (list_job_stats).
SELECT h.job_group, h.job_name, h.runs, h.failures, h.recovered,
       CAST(ROUND(h.p50) AS SIGNED), CAST(ROUND(h.p99) AS SIGNED), h.last_ms,
       (SELECT MIN(t.next_fire_ms) FROM {P}triggers t
        WHERE t.sched_name = h.sched_name
          AND t.job_group = h.job_group AND t.job_name = h.job_name
          AND t.state IN ('WAITING', 'ACQUIRED', 'BLOCKED'))
FROM (SELECT DISTINCT sched_name, job_group, job_name,
        SUM(outcome <> 'REQUEUED')
          OVER (PARTITION BY job_group, job_name) AS runs,
        SUM(outcome NOT IN ('OK', 'REQUEUED'))
          OVER (PARTITION BY job_group, job_name) AS failures,
        SUM(outcome = 'REQUEUED')
          OVER (PARTITION BY job_group, job_name) AS recovered,
        PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY late)
          OVER (PARTITION BY job_group, job_name) AS p50,
        PERCENTILE_CONT(0.99) WITHIN GROUP (ORDER BY late)
          OVER (PARTITION BY job_group, job_name) AS p99,
        MAX(started_ms) OVER (PARTITION BY job_group, job_name) AS last_ms
      FROM (SELECT sched_name, job_group, job_name, outcome, started_ms,
              CASE WHEN trigger_group NOT IN ('{manual_group}',
                     '{backfill_group}', '{retry_group}', 'CHIME_RECOVERING')
                     AND recovering = 0
                   THEN GREATEST(started_ms - scheduled_ms, 0) END AS late
            FROM {P}history
            WHERE sched_name = ?
              AND started_ms >= ?
              AND (? = 0 OR started_ms < ?)
              AND (? IS NULL OR (job_group = ? AND job_name = ?))) x) h
ORDER BY h.job_group, h.job_name
LIMIT ? OFFSET ?
