-- The sharded fires of a removed job (part of_job) or trigger (part
-- of_trigger), found without locks (fired has no index by trigger, and a
-- locking scan would wait for every fire a job's own transaction holds),
-- then locked one by one by primary key (shards.c).  A text statement.
-- Slots: sched, then group and name in the one part kept.
-- Called by: shards.c (chime__mysql_shards_end_removed).
SELECT fire_id
FROM {P}fired
WHERE sched_name = /*:sched*/
  /*[of_job*/ AND job_group = /*:group*/ AND job_name = /*:name*/ /*]*/
  /*[of_trigger*/
  AND trigger_group = /*:group*/ AND trigger_name = /*:name*/
  /*]*/
  AND state = 'SHARDED'
