-- Forgets a remembered group matcher (scheduler, match kind, pattern).
-- Called by: pause.c (forget).
DELETE FROM {P}paused_groups
WHERE sched_name = ?
  AND match_kind = ?
  AND pattern = ?
