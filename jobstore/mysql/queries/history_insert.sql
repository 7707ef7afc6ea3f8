-- A shard's row (shard_parent > 0) takes its index from its trigger, still
-- there while its fire ends; every row the run's own data, its trigger's
-- (NULL: none, the run read its job's).
-- Called by: recover.c (chime__mysql_fire_record).
INSERT INTO {P}history (sched_name, fire_id, trigger_group, trigger_name,
    job_group, job_name, scheduled_ms, node, outcome, error_code, error_text,
    started_ms, duration_ms, recovering, finished_ms, shard_parent,
    shard_index, data)
SELECT ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?, f.p, IF(f.p > 0, COALESCE((SELECT
    t.shard_index FROM {P}triggers t WHERE t.sched_name = f.s AND
    t.trigger_group = f.g AND t.trigger_name = f.n AND t.shard_parent = f.p),
    -1), -1), (SELECT t.data FROM {P}triggers t WHERE t.sched_name = f.s AND
    t.trigger_group = f.g AND t.trigger_name = f.n AND LENGTH(t.data) > 0)
FROM (SELECT ? AS p, ? AS s, ? AS g, ? AS n) f
