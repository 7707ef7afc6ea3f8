-- Copies a job's type and required tags onto its triggers' rows (type, tags,
-- scheduler, group, name): the claim filters on them.
-- Called by: tables.c (chime__mysql_job_write).
UPDATE {P}triggers
SET job_type = ?, job_tags = ?
WHERE sched_name = ?
  AND job_group = ?
  AND job_name = ?
