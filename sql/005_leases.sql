-- 005_leases.sql (issue 16): named leases, ShedLock's lock with fencing.
-- One row per (scheduler, lease name), kept after release and expiry so
-- that the next acquisition's token is this one's plus one: tokens only
-- grow.  Every instant is the database's clock in epoch milliseconds.  A
-- lease is held while expires_ms is later than the database's now; a
-- release moves expires_ms to least_until_ms (at_least) or now, whichever
-- is later, and sets released.  holder_* name the acquiring node (its
-- instance id), host and process for operators (chimectl leases);
-- claim is a random number of the acquisition, by which it recognises
-- its own row (also when its COMMIT's reply was lost and it retried).

CREATE TABLE IF NOT EXISTS {P}leases (
  sched_name VARCHAR(190) NOT NULL,
  lease_name VARCHAR(190) NOT NULL,
  token BIGINT NOT NULL,
  holder_node VARCHAR(190) NOT NULL,
  holder_host VARCHAR(255) NOT NULL,
  holder_pid BIGINT NOT NULL,
  claim BIGINT NOT NULL,
  acquired_ms BIGINT NOT NULL,
  expires_ms BIGINT NOT NULL,
  least_until_ms BIGINT NOT NULL,
  released TINYINT NOT NULL DEFAULT 0,
  extensions BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (sched_name, lease_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
