-- The stuck states of chime-admin.h's CHIME_ADMIN_STUCK, first kind: the
-- jobs whose triggers are BLOCKED (PAUSED_BLOCKED) with no fire of the job
-- executing, and how many such triggers each has (scheduler).
-- Called by: admin_repair.c (list_stuck).
SELECT t.job_group, t.job_name, COUNT(*)
FROM {P}triggers t
WHERE t.sched_name = ?
  AND t.state IN ('BLOCKED', 'PAUSED_BLOCKED')
  AND NOT EXISTS (SELECT 1 FROM {P}fired f
                  WHERE f.sched_name = t.sched_name
                    AND f.job_group = t.job_group
                    AND f.job_name = t.job_name
                    AND f.state = 'EXECUTING'
                    AND f.forbid = 1)
GROUP BY t.job_group, t.job_name
ORDER BY t.job_group, t.job_name
