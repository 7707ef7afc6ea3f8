-- A sharded fire's spread (shards.c, chime__mysql_shard_room): its shard
-- count, the shards this node runs or ran (fired rows, history rows but
-- requeued ones), and the live nodes able to run them (as
-- shard_live_count.sql).  A text statement.  Slots: parent, sched, node,
-- parent, sched, parent, node, live_sched, then the part covers
-- (shard_live_count.sql).
-- Called by: shards.c (chime__mysql_shard_room).
SELECT (SELECT shards_total FROM {P}fired WHERE fire_id = /*:parent*/),
    (SELECT COUNT(*) FROM {P}fired
     WHERE sched_name = /*:sched*/ AND node = /*:node*/
       AND shard_parent = /*:parent*/)
    + (SELECT COUNT(*) FROM {P}history
       WHERE sched_name = /*:sched*/ AND shard_parent = /*:parent*/
         AND node = /*:node*/ AND outcome <> 'REQUEUED'),
    (SELECT COUNT(*) FROM {P}nodes n
     WHERE n.sched_name = /*:live_sched*/ AND {node_live:n.}
       /*[covers*/ AND /*{covers*/ LOCATE(/*:tag*/, CONCAT(',', n.tags, ',')) > 0
            /*}AND*/ /*]*/)
