-- Which runs kept in trigger rows t a statement reads (runs.c,
-- chime__mysql_runs_of): parts of_node (slot node), of_key (group, name),
-- of_job (job_group, job_name) and of_fire (fire_id), each kept when its
-- filter is set (runs_find.sql, runs_spill_lock.sql).
/*[of_node*/ AND t.owner = /*:node*/ /*]*/
/*[of_key*/
AND t.trigger_group = /*:group*/ AND t.trigger_name = /*:name*/
/*]*/
/*[of_job*/
AND t.job_group = /*:job_group*/ AND t.job_name = /*:job_name*/
/*]*/
/*[of_fire*/ AND t.claim_fire_id = /*:fire_id*/ /*]*/
