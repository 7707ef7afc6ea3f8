-- 014_audit_drain.sql (issue 35, the operator's console): the audit trail
-- of operator actions and the drain requests of nodes.
-- chime-compat: additive
--
-- audit: one row per operator action (chimectl, chime-web, the API's
-- drain calls), written by the action itself once it succeeded: who
-- (chimectl: the OS user@host; chime-web: the signed-in user or token
-- name), origin (where from: chimectl, the console's client address, a
-- node's instance id), action (pause, resume, fire, cancel, delete,
-- backfill, drain, undrain, repair, ...), target (what it acted on:
-- "trigger G.N", "node n1", ...), details (free text) and at_ms (the
-- database's clock).  Bounded like history: rows older than the store's
-- audit_retention_ms, and all but the newest audit_max_rows, are swept
-- (jobstore/mysql/retain.c; docs/schema.md).

CREATE TABLE IF NOT EXISTS {P}audit (
  id BIGINT NOT NULL AUTO_INCREMENT,
  sched_name VARCHAR(190) NOT NULL,
  at_ms BIGINT NOT NULL,
  who VARCHAR(190) NOT NULL,
  origin VARCHAR(190) NOT NULL,
  action VARCHAR(64) NOT NULL,
  target VARCHAR(400) NOT NULL,
  details TEXT NULL,
  PRIMARY KEY (id),
  KEY audit_time (sched_name, at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

-- node_drains: a node asked to drain (chimectl drain, the console,
-- chime_scheduler_drain).  Kept apart from the nodes row, which goes when
-- the node stops: a node restarted under the same instance id stays
-- drained until it is undrained (the row deleted).  timeout_ms: how long
-- the node may finish its runs before it hands the rest over (0: no
-- limit); state DRAINING until the node says it runs nothing, then
-- DRAINED (drained_ms, handed: fires it handed over at its timeout).

CREATE TABLE IF NOT EXISTS {P}node_drains (
  sched_name VARCHAR(190) NOT NULL,
  instance_id VARCHAR(190) NOT NULL,
  requested_ms BIGINT NOT NULL,
  timeout_ms BIGINT NOT NULL DEFAULT 0,
  requested_by VARCHAR(190) NOT NULL DEFAULT '',
  state VARCHAR(16) NOT NULL DEFAULT 'DRAINING',
  drained_ms BIGINT NULL,
  handed BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (sched_name, instance_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

-- nodes.held_ids: the fires the node holds EXECUTING ("id,id,..."), as its
-- last check-in reported them, read at held_at_ms (the database's clock,
-- before the list was taken).  chimectl repair calls a fire EXECUTING on a
-- live node lost only when a check-in that began after the tool saw it
-- does not list it (docs/operations.md).  NULL: a node of an older
-- version, which reports nothing (its fires are never called lost).
ALTER TABLE {P}nodes ADD COLUMN IF NOT EXISTS held_ids MEDIUMTEXT NULL;
ALTER TABLE {P}nodes ADD COLUMN IF NOT EXISTS held_at_ms BIGINT NULL;
