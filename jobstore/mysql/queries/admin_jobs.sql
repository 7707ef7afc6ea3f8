-- The operators' list of jobs (chime-admin.h, CHIME_ADMIN_JOBS), each with
-- its count of triggers; admin_list.c applies the group pattern (the
-- stores' rule, chime__group_matches) and the page.
-- Called by: admin_list.c (list_jobs).
SELECT j.job_group, j.job_name, j.job_type, j.concurrency, j.durable,
  j.requests_recovery, j.persist_data, j.paused,
  (SELECT COUNT(*) FROM {P}triggers t
   WHERE t.sched_name = j.sched_name AND t.job_group = j.job_group
     AND t.job_name = j.job_name),
  j.description, j.timeout_ms, j.starting_deadline_ms, j.history_level,
  j.data
FROM {P}jobs j
WHERE j.sched_name = ?
ORDER BY j.job_group, j.job_name
