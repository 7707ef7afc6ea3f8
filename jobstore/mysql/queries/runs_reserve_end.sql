-- The last id of a reservation (runs_reserve.sql), written: after a
-- restart InnoDB takes the counter back from the largest id written, and
-- the first marker alone would leave it at the reservation's first id.
-- A text statement.  Slots: id, sched.
-- Called by: runs.c (chime__mysql_runs_reserve).
INSERT INTO {P}fired (fire_id, sched_name, trigger_group, trigger_name,
    job_group, job_name, scheduled_ms, acquired_ms, node, state)
VALUES (/*:id*/, /*:sched*/, '', '', '', '', 0, 0, '', 'RESERVED')
