-- Whether the member runs Galera and is ready: rows (name in lower case,
-- value) of wsrep_on, wsrep_ready and wsrep_cluster_status, those the
-- server has.  Run on a bare connection as it opens, before any store
-- exists.
-- Called by: conn.c (member_ready).
SELECT LOWER(variable_name), variable_value
FROM information_schema.global_variables
WHERE variable_name = 'WSREP_ON'
UNION ALL
SELECT LOWER(variable_name), variable_value
FROM information_schema.global_status
WHERE variable_name IN ('WSREP_READY', 'WSREP_CLUSTER_STATUS')
