-- The instant the next WAITING trigger of some types is due (maint.c,
-- due_fn).  A text statement.  Slots: sched, in
-- the part after the instant it must be later than, types (a part,
-- when the node runs some types only: a row per type).  No row when
-- nothing waits.  The first row in the due index's order, not MIN(): with
-- the type filter MIN() reads every WAITING trigger (the index has no
-- job_type), and this runs at every wake-up of the loop; the first row in
-- order is one index read when its type is wanted.
-- Called by: maint.c (due_fn).
SELECT next_fire_ms
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND state = 'WAITING'
  /*[after*/ AND next_fire_ms > /*:after*/ /*]*/
  /*[types*/ AND job_type IN (/*{types*/ /*:type*/ /*}*/) /*]*/
ORDER BY next_fire_ms
LIMIT 1
