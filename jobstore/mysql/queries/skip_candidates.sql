-- The WAITING triggers of a job that drops fire times (FORBID_SKIP,
-- REPLACE, FORBID_QUEUE with a cap) with times before now (skip.c): each
-- trigger's columns, then its job's concurrency, queue cap and history
-- level.  A row another session holds keeps its missed times this time
-- (dropped at a later completion, or its misfire instruction applies)
-- rather than hold up this completion and the others of its batch.  A
-- text statement.  Slots: sched, group, name (the job's key), the
-- concurrency values forbid_skip, replace, forbid_queue, now, no_fire.
-- Called by: skip.c (chime__mysql_skip_missed).
SELECT {trigger_cols_t}, j.concurrency, j.queue_cap, j.history_level
FROM {P}triggers t
JOIN {P}jobs j ON j.sched_name = t.sched_name
  AND j.job_group = t.job_group
  AND j.job_name = t.job_name
WHERE t.sched_name = /*:sched*/
  AND t.job_group = /*:group*/
  AND t.job_name = /*:name*/
  AND (j.concurrency = /*:forbid_skip*/ OR j.concurrency = /*:replace*/
    OR (j.queue_cap > 0 AND j.concurrency = /*:forbid_queue*/))
  AND t.state = 'WAITING'
  AND t.next_fire_ms < /*:now*/
  AND t.next_fire_ms <> /*:no_fire*/
FOR UPDATE SKIP LOCKED
