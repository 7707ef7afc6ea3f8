-- Whether a node is known (drain.c, request_fn): its nodes row and its
-- drain request, counted.  A text statement.  Slots: sched, node, twice.
-- Called by: drain.c (set_fn).
SELECT (SELECT COUNT(*) FROM {P}nodes
        WHERE sched_name = /*:sched*/ AND instance_id = /*:node*/)
    + (SELECT COUNT(*) FROM {P}node_drains
        WHERE sched_name = /*:sched2*/ AND instance_id = /*:node2*/)
