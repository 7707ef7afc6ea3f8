-- node.c: an id whose row this process holds locked (a dead earlier run's, or
-- its own) now names this process (host, pid, started, interval, version,
-- tags, runs_in_triggers: started again, scheduler, node).
-- Called by: node.c (claim_row).
UPDATE {P}nodes
SET host = ?, pid = ?, started_ms = ?, last_checkin_ms = {now_ms},
    checkin_interval_ms = ?, version = ?, tags = ?, runs_in_triggers = ?
WHERE sched_name = ?
  AND instance_id = ?
