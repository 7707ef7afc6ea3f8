-- The instant the next WAITING trigger of some types is due (maint.c,
-- due_fn): NULL when nothing waits.  A text statement.  Slots: sched, in
-- the part after the instant it must be later than, types (a part,
-- when the node runs some types only: a row per type).
-- Called by: maint.c (due_fn).
SELECT MIN(next_fire_ms)
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND state = 'WAITING'
  /*[after*/ AND next_fire_ms > /*:after*/ /*]*/
  /*[types*/ AND job_type IN (/*{types*/ /*:type*/ /*}*/) /*]*/
