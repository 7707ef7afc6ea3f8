-- 003_nopad_keys.sql (issue 22, finding 8): keys compare byte for byte, trailing
-- spaces included.  utf8mb4_bin is a PAD SPACE collation, under which
-- 'k' and 'k ' are the same primary key (replacing job 'k  ' overwrote job
-- 'k'); utf8mb4_nopad_bin (MariaDB) is the same binary order without the
-- padding.  Every text column of every table moves to it, so that joins
-- and comparisons between tables agree.

ALTER TABLE {P}schema_version CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}jobs CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}triggers CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}calendars CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}paused_groups CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}fired CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}nodes CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}history CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE {P}node_sessions CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
