-- Records a migration applied (a second node that applied it too
-- changes nothing), with the oldest version it is compatible with once
-- the table has that column (part compat, twice: the column and its
-- value).  A text statement.  Slots: version; in part compat_value,
-- compat.
-- Called by: schema.c (apply).
INSERT IGNORE INTO {P}schema_version
  (version, applied_ms /*[compat_column*/, compatible_with /*]*/)
VALUES (/*:version*/, {now_ms} /*[compat_value*/, /*:compat*/ /*]*/)
