-- 001_init.sql: the first chime schema (MySQL 8 / MariaDB 10.6+, InnoDB,
-- utf8mb4).  {P} is replaced by the table prefix (default "chime_") when
-- the library loads this file; statements end with a semicolon at the end
-- of a line.  Every row carries sched_name so that several clusters can
-- share one database.  Times are BIGINT milliseconds of the database's
-- clock; -9223372036854775808 (INT64_MIN) means "no fire time".
-- docs/schema.md describes every column.

CREATE TABLE IF NOT EXISTS {P}schema_version (
  version INT NOT NULL PRIMARY KEY,
  applied_ms BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS {P}jobs (
  sched_name VARCHAR(190) NOT NULL,
  job_group VARCHAR(190) NOT NULL,
  job_name VARCHAR(190) NOT NULL,
  job_type VARCHAR(190) NOT NULL,
  description TEXT NULL,
  data MEDIUMBLOB NULL,
  durable TINYINT NOT NULL,
  requests_recovery TINYINT NOT NULL,
  concurrency TINYINT NOT NULL,
  persist_data TINYINT NOT NULL,
  paused TINYINT NOT NULL DEFAULT 0,
  PRIMARY KEY (sched_name, job_group, job_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS {P}triggers (
  sched_name VARCHAR(190) NOT NULL,
  trigger_group VARCHAR(190) NOT NULL,
  trigger_name VARCHAR(190) NOT NULL,
  job_group VARCHAR(190) NOT NULL,
  job_name VARCHAR(190) NOT NULL,
  job_type VARCHAR(190) NOT NULL,
  kind TINYINT NOT NULL,
  description TEXT NULL,
  calendar_name VARCHAR(190) NULL,
  data MEDIUMBLOB NULL,
  zone_name VARCHAR(190) NULL,
  cron_text TEXT NULL,
  start_set TINYINT NOT NULL,
  start_ms BIGINT NOT NULL,
  end_ms BIGINT NOT NULL,
  misfire TINYINT NOT NULL,
  priority INT NOT NULL,
  interval_ms BIGINT NOT NULL DEFAULT 0,
  repeat_count INT NOT NULL DEFAULT 0,
  interval_n INT NOT NULL DEFAULT 0,
  interval_unit TINYINT NOT NULL DEFAULT 0,
  preserve_hour TINYINT NOT NULL DEFAULT 0,
  skip_day TINYINT NOT NULL DEFAULT 0,
  day_start_s INT NOT NULL DEFAULT 0,
  day_end_s INT NOT NULL DEFAULT 0,
  days_of_week INT NOT NULL DEFAULT 0,
  next_fire_ms BIGINT NOT NULL,
  prev_fire_ms BIGINT NOT NULL,
  times_triggered BIGINT NOT NULL,
  state_start_ms BIGINT NOT NULL,
  state_repeat_count INT NOT NULL,
  state VARCHAR(16) NOT NULL,
  owner VARCHAR(190) NULL,
  claim_fire_id BIGINT NULL,
  recovering TINYINT NOT NULL DEFAULT 0,
  recover_scheduled_ms BIGINT NULL,
  PRIMARY KEY (sched_name, trigger_group, trigger_name),
  KEY {P}triggers_due (sched_name, state, next_fire_ms, priority DESC),
  KEY {P}triggers_job (sched_name, job_group, job_name),
  KEY {P}triggers_calendar (sched_name, calendar_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS {P}calendars (
  sched_name VARCHAR(190) NOT NULL,
  calendar_name VARCHAR(190) NOT NULL,
  definition MEDIUMTEXT NOT NULL,
  PRIMARY KEY (sched_name, calendar_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS {P}paused_groups (
  sched_name VARCHAR(190) NOT NULL,
  match_kind TINYINT NOT NULL,
  pattern VARCHAR(190) NOT NULL,
  PRIMARY KEY (sched_name, match_kind, pattern)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS {P}fired (
  fire_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sched_name VARCHAR(190) NOT NULL,
  trigger_group VARCHAR(190) NOT NULL,
  trigger_name VARCHAR(190) NOT NULL,
  job_group VARCHAR(190) NOT NULL,
  job_name VARCHAR(190) NOT NULL,
  scheduled_ms BIGINT NOT NULL,
  acquired_ms BIGINT NOT NULL,
  node VARCHAR(190) NOT NULL,
  state VARCHAR(16) NOT NULL,
  forbid TINYINT NOT NULL DEFAULT 0,
  requests_recovery TINYINT NOT NULL DEFAULT 0,
  recovering TINYINT NOT NULL DEFAULT 0,
  priority INT NOT NULL DEFAULT 5,
  KEY {P}fired_node (sched_name, node),
  KEY {P}fired_job (sched_name, job_group, job_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS {P}nodes (
  sched_name VARCHAR(190) NOT NULL,
  instance_id VARCHAR(190) NOT NULL,
  host VARCHAR(255) NOT NULL,
  pid BIGINT NOT NULL,
  started_ms BIGINT NOT NULL,
  last_checkin_ms BIGINT NOT NULL,
  checkin_interval_ms BIGINT NOT NULL,
  version VARCHAR(32) NOT NULL,
  PRIMARY KEY (sched_name, instance_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS {P}history (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sched_name VARCHAR(190) NOT NULL,
  fire_id BIGINT NOT NULL,
  trigger_group VARCHAR(190) NOT NULL,
  trigger_name VARCHAR(190) NOT NULL,
  job_group VARCHAR(190) NOT NULL,
  job_name VARCHAR(190) NOT NULL,
  scheduled_ms BIGINT NOT NULL,
  node VARCHAR(190) NOT NULL,
  outcome VARCHAR(16) NOT NULL,
  error_code INT NOT NULL,
  error_text TEXT NULL,
  started_ms BIGINT NOT NULL,
  duration_ms BIGINT NOT NULL,
  recovering TINYINT NOT NULL DEFAULT 0,
  finished_ms BIGINT NOT NULL,
  KEY {P}history_finished (sched_name, finished_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
