-- recover.c: the dead nodes as this node sees them (the rule is
-- _nodes_dead.sql), then the nodes with no row left that still own runs
-- kept in trigger rows (runs.c: a node of an earlier release, which reads
-- only fired rows, recovered such a node and deleted its row), found
-- through the EXECUTING range of triggers_due, as many entries as runs
-- are kept.  Arguments: this node, the scheduler, the scheduler, this
-- node.
-- Called by: recover.c (dead_query_fn).
SELECT d.instance_id
FROM {_nodes_dead}
UNION
SELECT DISTINCT t.owner
FROM {P}triggers t
WHERE t.sched_name = ?
  AND t.state = 'EXECUTING'
  AND t.owner <> ?
  AND NOT EXISTS (SELECT 1 FROM {P}nodes n
      WHERE n.sched_name = t.sched_name AND n.instance_id = t.owner)
