-- A trigger's state (scheduler, group, name); a row that keeps its run
-- (EXECUTING, runs.c) is a one-shot with no fire left: COMPLETE, as a
-- one-shot whose run has a fired row is.
-- Called by: defs.c (status_fn), pause.c (by_key_fn).
SELECT IF(state = 'EXECUTING', 'COMPLETE', state)
FROM {P}triggers
WHERE sched_name = ?
  AND trigger_group = ?
  AND trigger_name = ?
