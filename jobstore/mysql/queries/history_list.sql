-- The recorded runs of chime_history_list (history.c), with only the
-- filters asked for, newest first.  A text statement.
-- Slots: sched; the parts job (job_group, job_name), trigger
-- (trigger_group, trigger_name), outcome (outcome), from (from_ms), to
-- (to_ms), before (before_id); limit.
-- Called by: history.c (chime__mysql_history_list).
SELECT id, fire_id, job_group, job_name, trigger_group, trigger_name,
  scheduled_ms, started_ms, finished_ms, node, outcome, error_code,
  error_text, recovering, data
FROM {P}history
WHERE sched_name = /*:sched*/
  /*[job*/ AND job_group = /*:job_group*/ AND job_name = /*:job_name*/ /*]*/
  /*[trigger*/ AND trigger_group = /*:trigger_group*/
    AND trigger_name = /*:trigger_name*/ /*]*/
  /*[outcome*/ AND outcome = /*:outcome*/ /*]*/
  /*[from*/ AND started_ms >= /*:from_ms*/ /*]*/
  /*[to*/ AND started_ms < /*:to_ms*/ /*]*/
  /*[before*/ AND id < /*:before_id*/ /*]*/
ORDER BY id DESC
LIMIT /*:limit*/
