-- The operators' list of triggers (chime-admin.h, CHIME_ADMIN_TRIGGERS),
-- of one job (group, name; NULL: any) and one trigger (group, name; NULL:
-- any); admin_list.c applies the group pattern and the page.
-- Called by: admin_list.c (list_triggers).
SELECT {trigger_cols}
FROM {P}triggers
WHERE sched_name = ?
  AND (? IS NULL OR (job_group = ? AND job_name = ?))
  AND (? IS NULL OR (trigger_group = ? AND trigger_name = ?))
ORDER BY trigger_group, trigger_name
