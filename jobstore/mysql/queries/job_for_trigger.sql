-- trigger_add: the job (locked), whether a FORBID fire of it runs, and
-- whether a remembered matcher pauses the trigger's group (the ? are that
-- group; match kinds are chime_match's values).
-- Called by: trig.c (job_facts_load).
SELECT {job_cols}, EXISTS (SELECT 1 FROM {P}fired f WHERE f.sched_name =
    j.sched_name AND f.job_group = j.job_group AND f.job_name = j.job_name AND
    f.state = 'EXECUTING' AND f.forbid = 1), EXISTS (SELECT 1 FROM
    {P}paused_groups p WHERE p.sched_name = j.sched_name AND (p.match_kind = 4
    OR (p.match_kind = 0 AND p.pattern = ?) OR (p.match_kind = 1 AND LEFT(?,
    CHAR_LENGTH(p.pattern)) = p.pattern) OR (p.match_kind = 2 AND RIGHT(?,
    CHAR_LENGTH(p.pattern)) = p.pattern) OR (p.match_kind = 3 AND
    LOCATE(p.pattern, ?) > 0)))
FROM {P}jobs j
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
FOR UPDATE
