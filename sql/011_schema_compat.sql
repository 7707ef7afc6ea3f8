-- 011_schema_compat.sql (issue 34, rolling upgrades): each schema version
-- records the oldest version whose nodes can still serve it, so that a
-- node meeting a newer schema knows whether it may run on it
-- (docs/operations.md, "Rolling upgrades").  compatible_with: that
-- version, written when the migration is applied (sql/embed.py computes
-- it from the "chime-compat: additive" lines); 0 on the rows of the
-- migrations applied before this one.
-- chime-compat: additive
ALTER TABLE {P}schema_version ADD COLUMN IF NOT EXISTS compatible_with INT NOT NULL DEFAULT 0;
