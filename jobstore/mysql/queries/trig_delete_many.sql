-- Deletes some triggers' rows of the scheduler (locked already by
-- trig_get_lock_many).  A text statement.
-- Slots: sched, then a row (keys) per trigger: group, name.
-- Called by: tables.c (chime__mysql_triggers_remove_if_complete).
DELETE FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND (/*{keys*/ (trigger_group = /*:group*/ AND trigger_name = /*:name*/) /*}OR*/)
