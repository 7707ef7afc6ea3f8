-- The database's clock, when the first lease of another node runs out,
-- the earliest next fire of a WAITING trigger, which tells an idle node of
-- changes made elsewhere (one index lookup on triggers_due), and this
-- node's drain request, if any: its state and whether its timeout ran out
-- by the database's clock (drain.c; primary-key reads of node_drains, NULL
-- without a request), and how many other live nodes do not read runs kept
-- in trigger rows (runs.c: an earlier release's, nodes.runs_in_triggers
-- not their started_ms; NULL with no other node).  One statement, so that
-- a check-in costs an idle node two (with its UPDATE).  Arguments:
-- scheduler; scheduler, node; scheduler, node; scheduler, node.
-- Called by: maint.c (checkin_fn).
SELECT {now_ms}, MIN({lease_end}),
    (SELECT MIN(t.next_fire_ms) FROM {P}triggers t
      WHERE t.sched_name = ? AND t.state = 'WAITING'),
    (SELECT d.state FROM {P}node_drains d
      WHERE d.sched_name = ? AND d.instance_id = ?),
    (SELECT d.timeout_ms > 0 AND d.requested_ms + d.timeout_ms <= {now_ms}
      FROM {P}node_drains d WHERE d.sched_name = ? AND d.instance_id = ?),
    SUM({node_live} AND runs_in_triggers <> started_ms)
FROM {P}nodes
WHERE sched_name = ?
  AND instance_id <> ?
