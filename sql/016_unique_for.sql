-- 016_unique_for.sql (issue 31, unique keys held for the run's whole life
-- and for a period after it: docs/queue.md).  triggers.unique_for_ms: on
-- a keyed enqueued run's trigger (CHIME_QUEUE, "K_" key), how long its key
-- stays taken after the run's final outcome (chime_enqueue_set_unique_for_ms;
-- 0: not after it).  triggers.held_until_ms: once that run ended, its
-- trigger stays COMPLETE and keeps the key until this time (the store's
-- clock, the database's); an enqueue after it takes the row over, and the
-- sweep deletes it.  0 on every other trigger.  A node without the columns
-- writes 0 (no period): additive.
-- chime-compat: additive
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS unique_for_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {P}triggers ADD COLUMN IF NOT EXISTS held_until_ms BIGINT NOT NULL DEFAULT 0;
