-- 015_run_data.sql (issue 35, retry with the run's data): what a run saw.
-- history.data: the bytes the run read through chime_ctx_get_data when
-- they were its trigger's own (a fire-now's, a one-off's, a retry's: at
-- most CHIME_MAX_DATA_LEN), so that a retry of the run, or its page,
-- still has them once its one-shot trigger is gone; NULL when the run
-- used its job's data (the job still holds it), so an ordinary run's row
-- costs nothing more.  A node that does not know the column leaves it
-- NULL, which reads "the job's data": additive.  Index history_fire:
-- the runs of one fire (a fire's page, `chimectl retry`, the completion's
-- check after a lost COMMIT reply) without a scan.
-- chime-compat: additive
ALTER TABLE {P}history ADD COLUMN IF NOT EXISTS data MEDIUMBLOB NULL;
CREATE INDEX IF NOT EXISTS {P}history_fire ON {P}history (sched_name, fire_id) ALGORITHM=INPLACE LOCK=NONE;
