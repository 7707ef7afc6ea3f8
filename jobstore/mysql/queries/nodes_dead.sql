-- recover.c: the dead nodes as this node sees them: their lease ran out, this
-- node's own lease has not (a node cut off from the database, or stalled,
-- never judges others when it comes back), and this node checked in at least
-- a check-in interval after the other's last check-in (after an outage of the
-- database nobody is judged until it had the time to check in again).
-- Arguments: this node, the scheduler.
-- Called by: recover.c (dead_query_fn).
SELECT d.instance_id
FROM {P}nodes d
JOIN {P}nodes me ON me.sched_name = d.sched_name
  AND me.instance_id = ?
WHERE d.sched_name = ?
  AND d.instance_id <> me.instance_id
  AND {lease_end:d.} < {now_ms}
  AND {node_live:me.}
  AND me.last_checkin_ms >= d.last_checkin_ms + d.checkin_interval_ms
