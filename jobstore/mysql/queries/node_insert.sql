-- node.c: the row of a new instance id. A plain INSERT: of two processes
-- claiming one new id at once, the primary key lets one in and refuses the
-- other (duplicate key), whatever the timing (scheduler, node, host, pid,
-- started, interval, version, tags, runs_in_triggers: started again).
-- Called by: node.c (claim_row), node.c (chime__mysql_node_checkin).
INSERT INTO {P}nodes (sched_name, instance_id, host, pid, started_ms,
    last_checkin_ms, checkin_interval_ms, version, tags, runs_in_triggers)
VALUES (?,?,?,?,?,{now_ms},?,?,?,?)
