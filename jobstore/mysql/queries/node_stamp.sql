-- node.c: a check-in, only while the row still names this process (interval,
-- tags, scheduler, node, host, pid, started).
-- Called by: node.c (share), node.c (chime__mysql_node_checkin).
UPDATE {P}nodes
SET last_checkin_ms = {now_ms}, checkin_interval_ms = ?, tags = ?, held_ids =
    ?, held_at_ms = ?
WHERE sched_name = ?
  AND instance_id = ?
  AND host = ?
  AND pid = ?
  AND started_ms = ?
