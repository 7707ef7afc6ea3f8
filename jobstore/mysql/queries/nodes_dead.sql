-- recover.c: the dead nodes as this node sees them (the rule is
-- _nodes_dead.sql).  Arguments: this node, the scheduler.
-- Called by: recover.c (dead_query_fn).
SELECT d.instance_id
FROM {_nodes_dead}
