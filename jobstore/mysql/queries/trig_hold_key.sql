-- Keeps a keyed run's COMPLETE row, and its key, for its unique period
-- (chime_enqueue_set_unique_for_ms, migration 016): the period's end; a
-- row that kept the run (runs.c) is COMPLETE from then on, unclaimed.
-- Args: held_until_ms (the database's clock plus the period), sched_name,
-- trigger_group, trigger_name.
-- Called by: tables.c (hold_key).
UPDATE {P}triggers SET held_until_ms = ?, state = 'COMPLETE', owner = NULL,
    claim_fire_id = NULL, run_acquired_ms = NULL
WHERE sched_name = ? AND trigger_group = ? AND trigger_name = ?
