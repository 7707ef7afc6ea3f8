-- The rows of some triggers of the scheduler, locked for update: the
-- triggers whose fire was their last, checked again under the lock
-- (tables.c, chime__mysql_triggers_remove_if_complete).  A text statement.
-- Slots: sched, then a row (keys) per trigger: group, name.
-- Called by: tables.c (chime__mysql_triggers_remove_if_complete).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND (/*{keys*/ (trigger_group = /*:group*/ AND trigger_name = /*:name*/) /*}OR*/)
FOR UPDATE
