-- How many live nodes can run a broadcast job's shards (shards.c,
-- split_fn): live by the lease rule, their tags covering the job's
-- required ones.  A text statement.  Slots: live_sched, covers (one "AND
-- LOCATE(',tag,', CONCAT(',', n.tags, ',')) > 0" per required tag).
-- Called by: shards.c (split_fn, live_capable).
SELECT (SELECT COUNT(*) FROM {P}nodes n
        WHERE n.sched_name = /*:live_sched*/ AND {node_live:n.}
          /*:covers*/)
