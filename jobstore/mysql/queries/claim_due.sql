-- The claim (acquire.c, select_due): locks up to max due WAITING triggers
-- of this node's job types and tags, oldest first, then by priority,
-- passing over those other sessions hold.  A text statement: it changes
-- with the type lists, so a prepared one would be prepared anew each time.
-- Slots: sched (the scheduler), due_by (the instant a trigger is due by),
-- misfired_before (a trigger due before it misfired), in the part limited
-- a row (limited) per limited type: type (late, never misfired), types (a
-- part, when the node runs some types only: a row per type), the part
-- untagged (a node without tags) or the part tags (its tags cover the
-- job's required ones: a row replace per tag of ours, then a row tag per
-- tag: ",tag,"), and in the part second_look (the claim's second look,
-- past the types found full and the first look's rows, which this
-- transaction holds): the part full (a row per type found full: type), the
-- part full_keys (a row per full partition of another type: type, key) and
-- held (a row per first look's row: its group and name).
-- Called by: acquire.c (select_due).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = /*:sched*/
  AND state = 'WAITING'
  AND next_fire_ms <= /*:due_by*/
  -- Misfired ones wait for the misfire scan, unless they ignore misfires.
  AND (next_fire_ms > /*:misfired_before*/ OR misfire = 1
    /*[limited*/ OR job_type IN (/*{limited*/ /*:type*/ /*}*/) /*]*/)
  /*[types*/ AND job_type IN (/*{types*/ /*:type*/ /*}*/) /*]*/
  -- The job requires no tag, or every tag it requires is one of ours:
  -- taking each of ours out of ",a,b," (one REPLACE per tag) leaves ",".
  /*[untagged*/ AND job_tags = '' /*]*/
  /*[tags*/ AND (job_tags = '' OR /*{replace*/ REPLACE( /*}_*/
    CONCAT(',', job_tags, ',') /*{tag*/ , /*:tag*/, ',') /*}_*/ = ',') /*]*/
  /*[second_look*/
  /*[full*/ AND job_type NOT IN (/*{full*/ /*:type*/ /*}*/) /*]*/
  -- A run without a partition key is in no full partition.
  /*[full_keys*/ AND (partition_key IS NULL OR (job_type, partition_key) NOT IN (
    /*{full_key*/ (/*:type*/, /*:key*/) /*}*/)) /*]*/
  AND (trigger_group, trigger_name) NOT IN (
    /*{held*/ (/*:group*/, /*:name*/) /*}*/)
  /*]*/
ORDER BY next_fire_ms, priority DESC, trigger_group, trigger_name
LIMIT /*:max*/
FOR UPDATE SKIP LOCKED
