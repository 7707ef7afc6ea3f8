-- The store's tables, for an operator: each one's name (without the
-- prefix), its rows (COUNT(*): exact, of every cluster sharing the prefix),
-- InnoDB's estimate of them (TABLE_ROWS) and its bytes (DATA_LENGTH +
-- INDEX_LENGTH of information_schema.TABLES, refreshed by InnoDB's
-- statistics), in the order of CHIME__ADMIN_STORAGE_COLUMNS
-- (jobstore/admin.h); every table of the schema, the order fixed here.
-- Arguments: limit, offset.
-- Called by: admin_stats.c (list_storage), for chime-admin.h's
-- CHIME_ADMIN_STORAGE.
SELECT x.name, x.row_count, t.TABLE_ROWS, t.DATA_LENGTH + t.INDEX_LENGTH
FROM (
  SELECT 1 AS ord, 'schema_version' AS name,
         (SELECT COUNT(*) FROM {P}schema_version) AS row_count
  UNION ALL SELECT 2, 'jobs', (SELECT COUNT(*) FROM {P}jobs)
  UNION ALL SELECT 3, 'triggers', (SELECT COUNT(*) FROM {P}triggers)
  UNION ALL SELECT 4, 'calendars', (SELECT COUNT(*) FROM {P}calendars)
  UNION ALL SELECT 5, 'paused_groups', (SELECT COUNT(*) FROM {P}paused_groups)
  UNION ALL SELECT 6, 'fired', (SELECT COUNT(*) FROM {P}fired)
  UNION ALL SELECT 7, 'nodes', (SELECT COUNT(*) FROM {P}nodes)
  UNION ALL SELECT 8, 'node_sessions', (SELECT COUNT(*) FROM {P}node_sessions)
  UNION ALL SELECT 9, 'history', (SELECT COUNT(*) FROM {P}history)
  UNION ALL SELECT 10, 'checkpoints', (SELECT COUNT(*) FROM {P}checkpoints)
  UNION ALL SELECT 11, 'leases', (SELECT COUNT(*) FROM {P}leases)
  UNION ALL SELECT 12, 'audit', (SELECT COUNT(*) FROM {P}audit)
  UNION ALL SELECT 13, 'node_drains', (SELECT COUNT(*) FROM {P}node_drains)
  UNION ALL SELECT 14, 'limits', (SELECT COUNT(*) FROM {P}limits)
  UNION ALL SELECT 15, 'limit_keys', (SELECT COUNT(*) FROM {P}limit_keys)
) x
LEFT JOIN information_schema.TABLES t
  ON t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME = CONCAT('{P}', x.name)
ORDER BY x.ord
LIMIT ? OFFSET ?
