-- The nodes d that node me judges dead (nodes_dead.sql,
-- node_dead_lock.sql): their lease ran out, me's own lease has not (a node
-- cut off from the database, or stalled, never judges others when it
-- comes back), and me checked in at least a check-in interval after d's
-- last check-in (after an outage of the database nobody is judged until it
-- had the time to check in again).  Its ? are me, the scheduler.
{P}nodes d
JOIN {P}nodes me ON me.sched_name = d.sched_name AND me.instance_id = ?
WHERE d.sched_name = ?
  AND d.instance_id <> me.instance_id
  AND {lease_end:d.} < {now_ms}
  AND {node_live:me.}
  AND me.last_checkin_ms >= d.last_checkin_ms + d.checkin_interval_ms
