-- The jobs with BLOCKED triggers and no fire executing: a completion passed
-- over a trigger row another session held (tables.c) (scheduler, at most).
-- Called by: tables.c (chime__mysql_unblock_orphans).
SELECT DISTINCT t.job_group, t.job_name
FROM {P}triggers t
WHERE t.sched_name = ?
  AND t.state IN ('BLOCKED', 'PAUSED_BLOCKED')
  AND NOT EXISTS (SELECT 1 FROM {P}fired f WHERE f.sched_name = t.sched_name
      AND f.job_group = t.job_group AND f.job_name = t.job_name AND f.state =
      'EXECUTING' AND f.forbid = 1)
LIMIT ?
