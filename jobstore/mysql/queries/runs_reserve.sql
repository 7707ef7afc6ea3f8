-- Reserves a claim's fire ids for runs kept in their trigger rows (runs.c,
-- chime__mysql_runs_reserve): a marker row inserted with the counter's
-- step multiplied by the ids wanted, so that InnoDB moves fired's
-- AUTO_INCREMENT counter past them all (the marker's id is the first; the
-- next insert of any session gets one past the last).  The marker names
-- no node, trigger or job, and its transaction deletes it
-- (runs_reserve_drop.sql): no reader ever sees it.  A text statement.
-- Slots: step (ids wanted x the server's auto_increment_increment, at
-- most 65535; innodb_autoinc_lock_mode 0 or 1, so not Galera), sched.
-- Called by: runs.c (chime__mysql_runs_reserve).
SET STATEMENT auto_increment_increment = /*:step*/ FOR
INSERT INTO {P}fired (sched_name, trigger_group, trigger_name, job_group,
    job_name, scheduled_ms, acquired_ms, node, state)
VALUES (/*:sched*/, '', '', '', '', 0, 0, '', 'RESERVED')
