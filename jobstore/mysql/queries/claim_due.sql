-- The claim (acquire.c, select_due): locks up to max due WAITING triggers
-- of this node's job types and tags, oldest first, then by priority,
-- passing over those other sessions hold.  A text statement: it changes
-- with the type lists, so a prepared one would be prepared anew each time.
-- Slots: sched (the scheduler), due_by (the instant a trigger is due by),
-- misfired_before (a trigger due before it misfired), limited (the limited
-- types, in the part limited: late, never misfired), types ("AND job_type
-- IN (...)", when the node runs some types only), tags (the node's tags
-- cover the job's required ones), and in the part second_look (the
-- claim's second look, past the types found full and the first look's
-- rows, which this transaction holds): full ("AND job_type NOT IN (...)")
-- and held (a row per first look's row: its group and name).
-- Called by: acquire.c (select_due).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND state = 'WAITING'
  AND next_fire_ms <= /*:due_by*/
  -- Misfired ones wait for the misfire scan, unless they ignore misfires.
  AND (next_fire_ms > /*:misfired_before*/ OR misfire = 1
    /*[limited*/ OR job_type IN /*:limited*/ /*]*/)
  /*:types*/
  /*:tags*/
  /*[second_look*/
  /*:full*/
  AND (trigger_group, trigger_name) NOT IN (
    /*{held*/ (/*:group*/, /*:name*/) /*}*/)
  /*]*/
ORDER BY next_fire_ms, priority DESC, trigger_group, trigger_name
LIMIT /*:max*/
FOR UPDATE SKIP LOCKED
