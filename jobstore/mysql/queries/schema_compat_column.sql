-- Whether schema_version has its compatible_with column (migration 011):
-- 1 or 0.
-- Called by: schema.c (compat_column).
SELECT COUNT(*) FROM information_schema.columns
WHERE table_schema = DATABASE()
  AND table_name = '{P}schema_version'
  AND column_name = 'compatible_with'
