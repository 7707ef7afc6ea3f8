-- The fired rows of the runs kept in some trigger rows, locked by
-- runs_spill_lock.sql (runs.c, chime__mysql_runs_spill): the same fire id,
-- node and times, EXECUTING; requests_recovery 1, so that the job's flag
-- as it is then decides a recovery (the run's job neither runs alone nor
-- splits into shards: forbid and shard_parent 0).  A text statement.  Rows
-- (keys): key; then sched.
-- Called by: runs.c (chime__mysql_runs_spill).
INSERT INTO {P}fired (fire_id, sched_name, trigger_group, trigger_name,
    job_group, job_name, scheduled_ms, acquired_ms, node, state, forbid,
    requests_recovery, recovering, priority, shard_parent, job_type,
    partition_key)
SELECT t.claim_fire_id, t.sched_name, t.trigger_group, t.trigger_name,
    t.job_group, t.job_name, t.prev_fire_ms, COALESCE(t.run_acquired_ms, 0),
    t.owner, 'EXECUTING', 0, 1, 0, t.priority, 0, t.job_type,
    t.partition_key
FROM {_triggers_by_keys}
WHERE t.state = 'EXECUTING'
