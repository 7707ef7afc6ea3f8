-- How many live nodes can run a broadcast job's shards (shards.c,
-- split_fn): live by the lease rule, their tags covering the job's
-- required ones.  A text statement.  Slots: live_sched, then the part covers
-- (left out when the job requires no tag) with a row per required tag:
-- tag (",tag,").
-- Called by: shards.c (split_fn, live_capable).
SELECT (SELECT COUNT(*) FROM {P}nodes n
        WHERE n.sched_name = /*:live_sched*/ AND {node_live:n.}
          /*[covers*/ AND /*{covers*/ LOCATE(/*:tag*/, CONCAT(',', n.tags, ',')) > 0
            /*}AND*/ /*]*/)
