-- The operators' list of recorded runs (chime-admin.h, CHIME_ADMIN_HISTORY):
-- the columns of CHIME__ADMIN_HISTORY_COLUMNS in order, with only the
-- filters the query has, newest first (or by id, oldest first), a page of
-- them.  A text statement.
-- Slots: sched; the parts job (job_group, job_name), trigger
-- (trigger_group, trigger_name), node (node), fire (fire_id), from
-- (from_ms), to (to_ms), failed, outcome (outcome), after (after_id),
-- upto (upto_id), and one of the parts asc and desc; limit, offset.
-- Called by: admin_list.c (list_history).
SELECT id, fire_id, job_group, job_name, trigger_group, trigger_name, node,
  outcome, scheduled_ms, started_ms, duration_ms, error_code, error_text,
  recovering, COALESCE(LENGTH(data), 0), data, finished_ms,
  NULLIF(shard_parent, 0), IF(shard_parent > 0, shard_index, NULL)
FROM {P}history
WHERE sched_name = /*:sched*/
  /*[job*/ AND job_group = /*:job_group*/ AND job_name = /*:job_name*/ /*]*/
  /*[trigger*/ AND trigger_group = /*:trigger_group*/
    AND trigger_name = /*:trigger_name*/ /*]*/
  /*[node*/ AND node = /*:node*/ /*]*/
  /*[fire*/ AND fire_id = /*:fire_id*/ /*]*/
  /*[from*/ AND started_ms >= /*:from_ms*/ /*]*/
  /*[to*/ AND started_ms < /*:to_ms*/ /*]*/
  /*[failed*/ AND outcome <> 'OK' /*]*/
  /*[outcome*/ AND outcome = /*:outcome*/ /*]*/
  /*[after*/ AND id > /*:after_id*/ /*]*/
  /*[upto*/ AND id <= /*:upto_id*/ /*]*/
/*[asc*/ ORDER BY id ASC /*]*/
/*[desc*/ ORDER BY id DESC /*]*/
LIMIT /*:limit*/ OFFSET /*:offset*/
