-- What resuming makes of a trigger t's state (resume_key.sql,
-- resume_job.sql, resume_like.sql): one not paused stays as it is; one
-- with no fire left is COMPLETE; one whose job has a FORBID fire running
-- is BLOCKED; any other WAITING.
CASE WHEN t.state NOT IN ('PAUSED', 'PAUSED_BLOCKED') THEN t.state
  WHEN t.next_fire_ms = {no_fire} THEN 'COMPLETE'
  WHEN EXISTS (SELECT 1 FROM {P}fired f
      WHERE f.sched_name = t.sched_name AND f.job_group = t.job_group
        AND f.job_name = t.job_name AND f.state = 'EXECUTING'
        AND f.forbid = 1) THEN 'BLOCKED'
  ELSE 'WAITING' END
