-- Asks a node to drain (chimectl drain, drain.c), stamped with the
-- database's clock; a request again replaces the one before.  A text
-- statement; its values named by their columns.
-- Called by: drain.c (set_fn).
INSERT INTO {P}node_drains (sched_name, instance_id, requested_ms,
    timeout_ms, requested_by)
VALUES (/*:sched_name*/, /*:instance_id*/, {now_ms}, /*:timeout_ms*/,
    /*:requested_by*/)
ON DUPLICATE KEY UPDATE requested_ms = VALUES(requested_ms),
    timeout_ms = VALUES(timeout_ms), requested_by = VALUES(requested_by)
