-- misfired.sql past the limited types (maint.c, misfire_fn): their fires
-- wait for room, late but never misfired (docs/queue.md, "Limits").  One
-- more than at most, to tell whether there are more.  A text statement.
-- Slots: sched, before (the misfire threshold instant), a row
-- (limited) per limited type: type; then max.
-- Called by: maint.c (misfire_fn).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND state = 'WAITING'
  AND misfire <> 1
  AND next_fire_ms <= /*:before*/
  AND next_fire_ms <> {no_fire}
  AND job_type NOT IN (/*{limited*/ /*:type*/ /*}*/)
ORDER BY next_fire_ms, priority DESC, trigger_group, trigger_name
LIMIT /*:max*/
FOR UPDATE SKIP LOCKED
