-- lease.c: takes a lease name when it is free, in one statement: a new row
-- with token 1, or the row's next token when its lease ran out by the
-- database's clock (expires_ms <= now; expires_ms is assigned last, so every
-- condition reads the old value). Affects no row when the name is held.
-- Arguments: scheduler, name, node, host, pid, claim, at_most, at_least.
-- Called by: lease.c (take_fn).
INSERT INTO {P}leases (sched_name, lease_name, token, holder_node,
    holder_host, holder_pid, claim, acquired_ms, expires_ms, least_until_ms,
    released, extensions)
VALUES (?, ?, ({now_ms} * {lease_tokens_per_ms}), ?, ?, ?, ?, {now_ms},
    {now_ms} + ?, {now_ms} + ?, 0, 0)
ON DUPLICATE KEY UPDATE
    token = IF(expires_ms <= {now_ms},
      GREATEST(token + 1, ({now_ms} * {lease_tokens_per_ms})), token),
    holder_node = IF(expires_ms <= {now_ms}, VALUES(holder_node), holder_node),
    holder_host = IF(expires_ms <= {now_ms}, VALUES(holder_host), holder_host),
    holder_pid = IF(expires_ms <= {now_ms}, VALUES(holder_pid), holder_pid),
    claim = IF(expires_ms <= {now_ms}, VALUES(claim), claim),
    acquired_ms = IF(expires_ms <= {now_ms}, VALUES(acquired_ms), acquired_ms),
    least_until_ms = IF(expires_ms <= {now_ms}, VALUES(least_until_ms),
      least_until_ms),
    released = IF(expires_ms <= {now_ms}, 0, released),
    extensions = IF(expires_ms <= {now_ms}, 0, extensions),
    expires_ms = IF(expires_ms <= {now_ms}, VALUES(expires_ms), expires_ms)
