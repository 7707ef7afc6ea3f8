-- The fired rows of a batch of fires (batch.c, chime__mysql_fired_insert):
-- one multi-row INSERT, each row ACQUIRED (a claim) or EXECUTING (fired
-- now), this node's, its values named by their columns: forbid is whether
-- the job runs alone, job_type and partition_key what a limited type's
-- claim counts (acquire.c, limit.c).  A text statement.
-- Called by: batch.c (chime__mysql_fired_insert, fired_values).
INSERT INTO {P}fired (sched_name, trigger_group, trigger_name, job_group,
    job_name, scheduled_ms, acquired_ms, node, state, forbid,
    requests_recovery, recovering, priority, shard_parent, job_type,
    partition_key)
VALUES /*{row*/ (
    /*:sched_name*/, /*:trigger_group*/, /*:trigger_name*/, /*:job_group*/,
    /*:job_name*/, /*:scheduled_ms*/, /*:acquired_ms*/, /*:node*/,
    /*:state*/, /*:forbid*/, /*:requests_recovery*/, /*:recovering*/,
    /*:priority*/, /*:shard_parent*/, /*:job_type*/, /*:partition_key*/)
    /*}*/
