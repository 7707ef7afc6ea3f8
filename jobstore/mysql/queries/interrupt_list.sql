-- The executing fires of this node to cancel (interrupt.c, list_fn):
-- flagged, or replaced (a REPLACE job whose blocked trigger came due).  A
-- text statement.  Slots: sched, node, replace (CHIME_CONCURRENCY_REPLACE),
-- no_fire (CHIME_NO_FIRE), now (the database's clock).  Through the
-- (scheduler, node) index, forced: left to itself, MariaDB reads every
-- node's rows through the primary key for the order (fired_of_node.sql).
-- Called by: interrupt.c (list_fn).
SELECT f.fire_id
FROM {P}fired f FORCE INDEX ({P}fired_node)
WHERE f.sched_name = /*:sched*/
  AND f.node = /*:node*/
  AND f.state = 'EXECUTING'
  AND (f.cancel_requested <> 0
    OR (EXISTS (SELECT 1 FROM {P}jobs j
          WHERE j.sched_name = f.sched_name AND j.job_group = f.job_group
            AND j.job_name = f.job_name AND j.concurrency = /*:replace*/)
      AND EXISTS (SELECT 1 FROM {P}triggers t
          WHERE t.sched_name = f.sched_name AND t.job_group = f.job_group
            AND t.job_name = f.job_name AND t.state = 'BLOCKED'
            AND t.next_fire_ms <> /*:no_fire*/
            AND t.next_fire_ms <= /*:now*/)))
ORDER BY fire_id
