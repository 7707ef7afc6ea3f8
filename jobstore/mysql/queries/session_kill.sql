-- Ends another session of the server (its transaction rolls back, its
-- locks go).  A text statement (KILL takes no ?).  Slot: conn_id.
-- Called by: sessions.c (end_fn: a dead node's sessions), recover.c
-- (end_job_sessions: a job's completion transaction past its deadline).
KILL CONNECTION /*:conn_id*/
