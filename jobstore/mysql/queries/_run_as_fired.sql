-- The columns of a fired row (columns.h, CHIME__MYSQL_FIRED_COLUMNS, in
-- its order) for the run kept in trigger row t (runs.c): its fire id, its
-- trigger's and job's keys, the time it was due (a one-shot's previous
-- fire), its node, its state (EXECUTING), no FORBID (forbid 0),
-- requests_recovery 1 (its job's flag decides, as runs_spill_insert.sql
-- leaves it), not a recovery, its priority, and no shard.
t.claim_fire_id, t.trigger_group, t.trigger_name, t.job_group, t.job_name,
t.prev_fire_ms, t.owner, t.state, 0, 1, 0, t.priority, 0, 0, 0, 0, '', 0
