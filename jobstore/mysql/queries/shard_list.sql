-- The shards of a sharded fire F (docs/batch.md), for an operator: one
-- row per shard run, waiting, claimed or running (from the shard triggers
-- and their fired rows, the run's checkpoint as its progress: its first
-- 40 characters) and done (from the history: node, outcome), by shard,
-- then fire.  Columns in the order of CHIME__ADMIN_SHARD_COLUMNS
-- (jobstore/admin.h).  A shard trigger exists until its run completed;
-- its fired row while it runs; its checkpoint is kept under its first
-- run's fire id.
-- Arguments: sched_name, F, sched_name, F, limit, offset.
-- Called by: admin_stats.c (list_shards), for chime-admin.h's
-- CHIME_ADMIN_SHARDS.
SELECT * FROM (
  SELECT t.shard_index AS s,
         IF(f.fire_id IS NULL, IF(t.state = 'ACQUIRED', 'claimed', 'waiting'),
            'running'),
         COALESCE(f.node, t.owner),
         COALESCE(f.fire_id, NULLIF(t.claim_fire_id, 0)) AS fid,
         (SELECT LEFT(CAST(k.data AS CHAR), 40) FROM {P}checkpoints k
          WHERE k.sched_name = t.sched_name
            AND k.run_id = IF(t.origin_fire_id > 0, t.origin_fire_id,
                              f.fire_id)) AS pr,
         NULL AS oc, NULL AS fin
  FROM {P}triggers t
  LEFT JOIN {P}fired f ON f.sched_name = t.sched_name
    AND f.trigger_group = t.trigger_group
    AND f.trigger_name = t.trigger_name AND f.state = 'EXECUTING'
  WHERE t.sched_name = ? AND t.shard_parent = ?
  UNION ALL
  SELECT h.shard_index, 'done', h.node, h.fire_id, NULL, h.outcome,
         h.finished_ms
  FROM {P}history h
  WHERE h.sched_name = ? AND h.shard_parent = ?) s
ORDER BY 1, 4
LIMIT ? OFFSET ?
