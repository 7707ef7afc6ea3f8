-- Whether a fire is this node's and executing: its fired row, or, in the
-- part kept, the trigger row its run is kept in (runs.c): EXECUTING, this
-- node's, for that fire id.  A plain read.  A text statement.  Slots:
-- fire_id, sched, node, then in the part kept sched, group, name (the
-- trigger's key), run_id (the fire id) and owner (the node).
-- Called by: tables.c (chime__mysql_fire_owned).
SELECT 1
FROM {P}fired
WHERE fire_id = /*:fire_id*/
  AND sched_name = /*:sched*/
  AND node = /*:node*/
  AND state = 'EXECUTING'
/*[kept*/
UNION ALL
SELECT 1
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND trigger_group = /*:group*/
  AND trigger_name = /*:name*/
  AND state = 'EXECUTING'
  AND claim_fire_id = /*:run_id*/
  AND owner = /*:owner*/
/*]*/
