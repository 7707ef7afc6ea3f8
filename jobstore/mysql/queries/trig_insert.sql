-- A new trigger's row: the scheduler, then every trigger column (columns.h,
-- chime__mysql_trigger_to_args).
-- Called by: complete.c (store_retries), recover.c (requeue), recover.c
-- (store_retry), shards.c (split_fn), trig.c (add_fn).
INSERT INTO {P}triggers (sched_name, {trigger_cols})
VALUES (?, {trigger_params})
