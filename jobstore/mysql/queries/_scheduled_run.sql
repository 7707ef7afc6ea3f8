-- Whether a history row is a scheduled run, whose lateness counts: no
-- fire-now, backfill, retry or recovery (jobstore/admin_stats.c's
-- chime__admin_scheduled_run says the same for the memory store).
(trigger_group NOT IN ('MANUAL_TRIGGER', 'CHIME_BACKFILL', 'CHIME_RETRY',
                       'CHIME_RECOVERING') AND recovering = 0)
