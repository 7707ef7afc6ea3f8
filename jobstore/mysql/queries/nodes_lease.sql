-- The database's clock, when the first lease of another node runs out, and
-- the earliest next fire of a WAITING trigger, which tells an idle node of
-- changes made elsewhere (one index lookup on triggers_due) (scheduler,
-- scheduler, this node).
-- Called by: maint.c (checkin_fn).
SELECT {now_ms}, MIN({lease_end}), (SELECT MIN(t.next_fire_ms) FROM
    {P}triggers t WHERE t.sched_name = ? AND t.state = 'WAITING')
FROM {P}nodes
WHERE sched_name = ?
  AND instance_id <> ?
