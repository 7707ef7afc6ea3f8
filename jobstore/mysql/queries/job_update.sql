-- Replaces a job's definition (the definition, then scheduler, group, name).
-- Called by: tables.c (chime__mysql_job_write).
UPDATE {P}jobs
SET job_type = ?, description = ?, data = ?, durable = ?, requests_recovery =
    ?, concurrency = ?, persist_data = ?, timeout_ms = ?, starting_deadline_ms
    = ?, retry_max_attempts = ?, retry_initial_delay_ms = ?,
    retry_multiplier_milli = ?, retry_max_delay_ms = ?, retry_jitter_ms = ?,
    queue_cap = ?, retry_timed_out = ?, shard_count = ?, shard_params = ?,
    required_tags = ?, history_level = ?, then_group = ?, then_name = ?
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
