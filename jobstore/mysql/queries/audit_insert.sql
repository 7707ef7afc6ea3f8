-- One entry of the audit trail (audit.c, chime__mysql_audit_tx), stamped
-- with the database's clock.  A text statement; its values named by their
-- columns (cut to their columns' lengths by audit.c).
-- Called by: audit.c (chime__mysql_audit_tx).
INSERT INTO {P}audit (sched_name, at_ms, who, origin, action, target,
    details)
VALUES (/*:sched_name*/, {now_ms}, /*:who*/, /*:origin*/, /*:action*/,
    /*:target*/, /*:details*/)
