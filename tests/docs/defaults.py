#!/usr/bin/env python3
"""defaults.py: every default value a page states is the one the code uses.

The code's values come from tests/docs/defaults.c (a fresh configuration
and trigger, and a MySQL store opened on the throwaway MariaDB: see its
opening comment), from the tools' --help, and, for the few constants no
program prints (static macros of the store, chime-web's port, chimectl
watch's interval), from their lines in the source.
CLAIMS below lists, page by page, the sentences that state a default; each
must be found (a reworded sentence fails too, so that the table follows the
pages) and must state the code's value.  A failure names the page and line:

  FAIL docs/embedding.md:31: says workers default 4, the code uses 32

usage: defaults.py SOURCE_DIR DEFAULTS_EXE CHIMECTL CHIME_CRON
"""
import os
import re
import subprocess
import sys

SOURCE, DEFAULTS, CHIMECTL, CHIME_CRON = sys.argv[1:5]

MS = {"ms": 1, "s": 1000, "second": 1000, "seconds": 1000, "minute": 60000,
      "minutes": 60000, "hour": 3600000, "hours": 3600000, "h": 3600000, "day": 86400000,
      "days": 86400000}


def num(text):
    """An integer as a page writes it: 1000, 1 000, 1,000, 60 000."""
    return int(re.sub(r"[ ,]", "", text))


def dur(text):
    """A duration as a page writes it, in ms: "7 days", "1 s", "30 s"."""
    m = re.fullmatch(r"([\d ,]+)\s*([a-z]+)", text.strip())
    return num(m.group(1)) * MS[m.group(2)]


# (page, pattern, [(group, key, convert)]).  In a pattern a space matches
# any run of white space and comment stars (a wrapped line of a C comment).
CLAIMS = [
    # The engine's configuration.
    ("docs/embedding.md", r"`chime_config_set_workers` \(threads that run jobs, default (\d+)\)",
     [(1, "workers", int)]),
    ("docs/embedding.md", r"pool of its worker count plus (\d+) connections",
     [(1, "pool_overhead", int)]),
    ("docs/embedding.md", r"\(workers asking .*?; at most (\d+)\)", [(1, "pool_max", int)]),
    ("docs/embedding.md", r"up to (\d+) with the default (\d+) workers",
     [(1, "connections", int), (2, "workers", int)]),
    ("docs/architecture.md", r"pool of `workers \+ (\d+)` connections .*?; at most (\d+),",
     [(1, "pool_overhead", int), (2, "pool_max", int)]),
    ("include/chime.h", r"workers (\d+) \(1 to 1024; with the MySQL store a node opens, as it needs them, up to workers \+ (\d+) database connections \(a pool of workers \+ (\d+), at most (\d+), and one for check-ins\), (\d+) by default",
     [(1, "workers", int), (2, "connection_overhead", int), (3, "pool_overhead", int),
      (4, "pool_max", int), (5, "connections", int)]),
    ("docs/man/chime-scheduler.3.scd", r"workers (\d+) \(1 to 1024; with the MySQL store a node opens, as it needs them, up to workers \+ (\d+) database connections \(a pool of workers \+ (\d+), at most (\d+), and one for check-ins\), (\d+) by default",
     [(1, "workers", int), (2, "connection_overhead", int), (3, "pool_overhead", int),
      (4, "pool_max", int), (5, "connections", int)]),
    ("include/chime.h", r"up to this many database connections plus (\d+) \(.*?the pool of workers \+ (\d+) is capped at (\d+)\)",
     [(1, "connection_overhead", int), (2, "pool_overhead", int), (3, "pool_max", int)]),
    ("docs/man/chime-scheduler.3.scd", r"up to this many database connections plus (\d+) \(.*?the pool of workers \+ (\d+) is capped at (\d+)\)",
     [(1, "connection_overhead", int), (2, "pool_overhead", int), (3, "pool_max", int)]),
    ("include/chime.h", r"run jobs \(1 to 1024; default (\d+)\)", [(1, "workers", int)]),
    ("docs/man/chime-scheduler.3.scd", r"run jobs \(1 to 1024; default (\d+)\)",
     [(1, "workers", int)]),
    ("include/chime.h", r"idle wait (\d+(?:\s\d{3})*) ms", [(1, "idle_wait_ms", num)]),
    ("include/chime.h", r"batch size: the workers plus the local queue", []),
    ("include/chime.h", r"local queue (\d+) \(fires claimed beyond", [(1, "local_queue", int)]),
    ("include/chime.h", r"beyond its free workers, to wait in its local queue for the next free worker \(0 to 4096; default (\d+):",
     [(1, "local_queue", int)]),
    ("include/chime.h", r"batch window (\d+) ms", [(1, "batch_window_ms", num)]),
    ("include/chime.h", r"misfire threshold (\d+(?:\s\d{3})*) ms", [(1, "misfire_threshold_ms", num)]),
    ("include/chime.h", r"check-in interval (\d+(?:\s\d{3})*) ms", [(1, "checkin_interval_ms", num)]),
    ("include/chime.h", r"no log callback, level (\w+)", [(1, "log_level", str)]),
    ("include/chime.h", r"scheduler name \"(\w+)\"", [(1, "scheduler_name", str)]),
    ("include/chime.h", r"store URL \"([a-z:]+)\"", [(1, "store_url", str)]),
    ("include/chime.h", r"claimed and fired \(0 to 1000, default (\d+)\)",
     [(1, "claim_ahead_ms", int)]),
    ("include/chime.h", r"CHIME_EVENT_JOB_CANCEL_IGNORED and a warning \(0 to a day; default (\d+)\)",
     [(1, "cancel_grace_ms", int)]),
    ("include/chime.h", r"priorities are claimed first \(default (\d+)\)", [(1, "priority", int)]),
    ("docs/man/chime-scheduler.3.scd", r"idle wait (\d+(?:\s\d{3})*) ms", [(1, "idle_wait_ms", num)]),
    ("docs/man/chime-scheduler.3.scd", r"misfire threshold (\d+(?:\s\d{3})*) ms",
     [(1, "misfire_threshold_ms", num)]),
    ("docs/man/chime-scheduler.3.scd", r"check-in interval (\d+(?:\s\d{3})*) ms",
     [(1, "checkin_interval_ms", num)]),
    ("docs/man/chime-scheduler.3.scd", r"\(0 to 1000, default (\d+)\)",
     [(1, "claim_ahead_ms", int)]),
    ("docs/cluster.md", r"`chime_config_set_checkin_interval_ms`, default (\d+) ms",
     [(1, "checkin_interval_ms", int)]),
    ("docs/cluster.md", r"\| check-in \| every `I`, stamped with the database's time \| (\d+ s) \|",
     [(1, "checkin_interval_ms", dur)]),
    ("docs/cluster.md", r"\| lease \| `2 × I` .*? \| (\d+ s) \|", [(1, "lease_ms", dur)]),
    ("docs/cluster.md", r"`chime_config_set_idle_wait_ms`, (\d+ s) by default",
     [(1, "idle_wait_ms", dur)]),
    ("docs/cluster.md", r"within one check-in interval \((\d+ s) by default\)",
     [(1, "checkin_interval_ms", dur)]),
    ("docs/cluster.md", r"`chime_config_set_claim_ahead_ms`, (\d+) ms by default",
     [(1, "claim_ahead_ms", int)]),
    ("docs/architecture.md", r"`chime_config_set_claim_ahead_ms`, (\d+) ms by default",
     [(1, "claim_ahead_ms", int)]),
    ("docs/architecture.md", r"With the default batch window of (\d+),",
     [(1, "batch_window_ms", int)]),
    ("docs/operations.md", r"within one check-in interval \((\d+ s) by default\)",
     [(1, "checkin_interval_ms", dur)]),
    ("README.md", r"within one check-in interval \((\d+ s) by default\)",
     [(1, "checkin_interval_ms", dur)]),
    ("docs/galera.md", r"one interval \((\d+ s) by default", [(1, "checkin_interval_ms", dur)]),
    ("docs/policies.md", r"After the grace \(default (\d+ s)\)", [(1, "cancel_grace_ms", dur)]),
    ("docs/recurrence.md", r"below the default (\d+)\)", [(1, "priority", int)]),
    ("docs/operations.md", r"The default level is (\w+)\.", [(1, "log_level", str)]),
    # The MySQL store's URL parameters.
    ("docs/schema.md", r"\| `prefix` \| [^|]* \| `(\w+)` \|", [(1, "prefix", str)]),
    ("docs/schema.md", r"\| `history_retention_ms` \| [^|]* \| (\d+) \((\d+ days)\) \|",
     [(1, "history_retention_ms", int), (2, "history_retention_ms", dur)]),
    ("docs/schema.md", r"\| `history_max_rows` \| [^|]* \| (\d+) \|", [(1, "history_max_rows", int)]),
    ("docs/schema.md", r"\| `audit_retention_ms` \| [^|]* \| (\d+) \((\d+ days)\) \|",
     [(1, "audit_retention_ms", int), (2, "audit_retention_ms", dur)]),
    ("docs/schema.md", r"\| `audit_max_rows` \| [^|]* \| (\d+) \|", [(1, "audit_max_rows", int)]),
    ("docs/schema.md", r"older than `audit_retention_ms` \(default\s+(\d+ days)\)",
     [(1, "audit_retention_ms", dur)]),
    ("docs/schema.md", r"`audit_max_rows` \(default ([\d,]+)\)",
     [(1, "audit_max_rows", lambda t: int(t.replace(",", "")))]),
    ("docs/man/chime-store.7.scd", r"operator actions: \*chimectl audit\*\) are kept\s+\(default (\d+ days)\)",
     [(1, "audit_retention_ms", dur)]),
    ("docs/man/chime-store.7.scd", r"audit rows are kept, the newest \(default (\d+);",
     [(1, "audit_max_rows", int)]),
    ("docs/schema.md", r"A \*step\* deletes at most (\d+) rows", [(1, "history_trim_rows", int)]),
    ("docs/schema.md", r"\| `io_timeout_s` \| [^|]* \| (\d+) with several hosts, else (\d+) \(none\) \|",
     [(1, "io_timeout_s_several_hosts", int), (2, "io_timeout_s_one_host", int)]),
    ("docs/schema.md", r"\| `lock_wait_timeout_s` \| [^|]* \| (\d+) \|", [(1, "lock_wait_timeout_s", int)]),
    ("docs/schema.md", r"`innodb_lock_wait_timeout = (\d+)`", [(1, "lock_wait_timeout_s", int)]),
    ("docs/man/chime-store.7.scd", r"default \*chime\\_\*", []),
    ("docs/man/chime-store.7.scd", r"How long history rows are kept \(default (\d+ days)\)",
     [(1, "history_retention_ms", dur)]),
    ("docs/man/chime-store.7.scd", r"as fast as they are written, (\d+) rows a transaction",
     [(1, "history_trim_rows", int)]),
    ("docs/man/chime-store.7.scd", r"the newest \(default (\d+),", [(1, "history_max_rows", int)]),
    ("docs/operations.md", r"its rows \(default ([\d,]+), about", [(1, "history_max_rows", lambda t: int(t.replace(",", "")))]),
    ("docs/man/chime-store.7.scd", r"\(1 to 3600; default (\d+ s),", [(1, "lock_wait_timeout_s", lambda t: dur(t) // 1000)]),
    ("docs/man/chime-store.7.scd", r"\(default (\d+) s with several hosts, none with one\)",
     [(1, "io_timeout_s_several_hosts", int)]),
    ("docs/galera.md", r"`io_timeout_s` \(default \*\*(\d+)\*\* with several hosts, none with one\)",
     [(1, "io_timeout_s_several_hosts", int)]),
    # chime_mysql_url_connect (chime-mysql.h), a program's own connection.
    ("include/chime-mysql.h", r"a (\d+) s connect timeout, and read and write timeouts of the URL's io_timeout_s \(0 to 3600; by default none with one host, (\d+) s with several\)",
     [(1, "connect_url_timeout_s", int), (2, "io_timeout_s_several_hosts", int)]),
    ("docs/man/chime-mysql.3.scd", r"a (\d+) s connect timeout, and read and write timeouts of the URL's io_timeout_s \(0 to 3600; by default none with one host, (\d+) s with several\)",
     [(1, "connect_url_timeout_s", int), (2, "io_timeout_s_several_hosts", int)]),
    ("docs/operations.md", r"bounds its size \(default (\d+ days)\)", [(1, "history_retention_ms", dur)]),
    ("README.md", r"`prefix=NAME_` \(table prefix, default `(\w+)`\)", [(1, "prefix", str)]),
    ("docs/man/chime-jobs.3.scd", r"higher priorities are claimed first \(default (\d+)\)",
     [(1, "priority", int)]),
    # Enqueued runs (docs/queue.md).
    ("docs/queue.md", r"\| priority among runs due at the same time \| `chime_enqueue_set_priority` \| (\d+) \|",
     [(1, "enqueue_priority", int)]),
    ("docs/queue.md", r"\| `chime_enqueue_set_run_at_ms` \| (\d+): now \|",
     [(1, "enqueue_run_at_ms", int)]),
    ("docs/queue.md", r"\| `chime_enqueue_set_timeout_ms` \| (\d+): the job's \|",
     [(1, "enqueue_timeout_ms", int)]),
    ("docs/queue.md", r"one multi-row INSERT per ([\d,]+) runs\*\*",
     [(1, "enqueue_batch", num)]),
    ("include/chime.h", r"\(chime_trigger_set_priority; default (\d+)\)",
     [(1, "enqueue_priority", int)]),
    ("docs/man/chime-queue.3.scd", r"its priority among runs due together \(default (\d+)\)",
     [(1, "enqueue_priority", int)]),
    ("docs/man/chime-policies.3.scd", r"CHIME_EVENT_JOB_CANCEL_IGNORED and a warning \(0 to a day; default (\d+)\)",
     [(1, "cancel_grace_ms", int)]),
    ("docs/man/chime-scheduler.3.scd", r"0 restores the default \(the worker count plus the local queue", []),
    ("docs/man/chime-scheduler.3.scd", r"local queue (\d+) \(fires claimed beyond", [(1, "local_queue", int)]),
    ("docs/man/chime-scheduler.3.scd", r"for the next free worker \(0 to 4096; default (\d+):", [(1, "local_queue", int)]),
    ("docs/performance.md", r"\(`chime_config_set_local_queue`, default (\d+);", [(1, "local_queue", int)]),
    ("docs/performance.md", r"absent otherwise, chime's default \((\d+); 0 claims", [(1, "local_queue", int)]),
    # chime-bench's --help, in its source.
    ("bench/chime-bench/options.c", r"Q: chime's\\n\" \"local queue, default (\d+), 0 to claim",
     [(1, "local_queue", int)]),
    # The tools.
    ("docs/man/chime-cron.1.scd", r"How many fire times, 1 to 100000\. Default: (\d+)\.",
     [(1, "cron_count", int)]),
    ("docs/man/chime-web.1.scd", r"The TCP port \(default (\d+);", [(1, "web_port", int)]),
    ("docs/man/chime-web.1.scd", r"at most (\d+) connections are open at once and (\d+) of one client address",
     [(1, "web_max_connections", int), (2, "web_max_per_client", int)]),
    ("docs/man/chime-web.1.scd", r"must arrive within (\d+ s) of its connection's start",
     [(1, "web_request_ms", dur)]),
    ("docs/man/chime-web.1.scd", r"sends or reads nothing for (\d+) s is closed",
     [(1, "web_idle_s", int)]),
    ("docs/man/chime-web.1.scd", r"\*count\* \(1-50, default (\d+)\)",
     [(1, "web_preview_fires", int)]),
    ("docs/operations.md", r"at most (\d+) connections at once and (\d+) of one address",
     [(1, "web_max_connections", int), (2, "web_max_per_client", int)]),
    ("docs/operations.md", r"a request must arrive within (\d+ s), and an idle connection is closed after (\d+) s",
     [(1, "web_request_ms", dur), (2, "web_idle_s", int)]),
    ("README.md", r"`--count N` \(default (\d+)\)", [(1, "cron_count", int)]),
    ("docs/cron.md", r"prints the next N fire times \(default (\d+)\)", [(1, "cron_count", int)]),
    ("docs/operations.md", r"listens on 127\.0\.0\.1 \(port (\d+)\)", [(1, "web_port", int)]),
    ("README.md", r"names the cluster \(default `(\w+)`\)", [(1, "scheduler_name", str)]),
    ("docs/observability.md", r"every S seconds \(default (\d+),", [(1, "watch_interval_s", float)]),
    # chime-alert.
    ("docs/man/chime-alert.1.scd", r"Seconds between polls, 0\.05 to 3600 \(default (\d+)\)",
     [(1, "alert_interval_s", int)]),
    ("docs/man/chime-alert.1.scd", r"How late a trigger is a misfire \(default (\d+), the store's own",
     [(1, "misfire_threshold_s", int)]),
    ("docs/man/chime-alert.1.scd", r"per job per _S_ seconds \(default (\d+);",
     [(1, "alert_window_s", int)]),
    ("docs/man/chime-alert.1.scd", r"The delay before the first retry \(default (\d+)\)",
     [(1, "alert_retry_s", int)]),
    ("docs/man/chime-alert.1.scd", r"doubled each time up to (\d+), until",
     [(1, "alert_retry_max_s", int)]),
    ("docs/man/chime-alert.1.scd", r"Attempts per alert and sink \(default (\d+)\)",
     [(1, "alert_attempts", int)]),
    ("docs/man/chime-alert.1.scd", r"or the command's run; at most (\d+) \(default (\d+)\)",
     [(1, "alert_timeout_max_s", int), (2, "alert_timeout_s", int)]),
    ("docs/observability.md", r"at most once per job per `--window` \(default (\d+ minutes)\)",
     [(1, "alert_window_ms", dur)]),
    ("docs/observability.md", r"after `--retry` seconds \(default (\d+)\), doubled each time up to (\d+ minutes)",
     [(1, "alert_retry_s", int), (2, "alert_retry_max_ms", dur)]),
    ("docs/man/chime-alert.1.scd", r"At most (\d+) deliveries wait",
     [(1, "alert_max_outbox", int)]),
    ("docs/man/chime-alert.1.scd", r"At most (\d+) alerts of one kind and status are sent one by one",
     [(1, "alert_max_per_poll", int)]),
    ("docs/observability.md", r"At most (\d+) alerts of one kind and status go one by one",
     [(1, "alert_max_per_poll", int)]),
    ("docs/man/chime-alert.1.scd", r"\(and every (\d+) s the jobs list\)",
     [(1, "alert_jobs_every_s", int)]),
    ("docs/observability.md", r"and every (\d+) s the jobs \(the primary key",
     [(1, "alert_jobs_every_s", int)]),
    ("docs/observability.md", r"`--attempts` tries \(default (\d+)\)", [(1, "alert_attempts", int)]),
    ("docs/observability.md", r"Each poll \(`--interval`, default (\d+ s)\)",
     [(1, "alert_interval_ms", dur)]),
    ("docs/observability.md", r"more than the misfire threshold ago \(default (\d+ s), the store's\)",
     [(1, "misfire_threshold_ms", dur)]),
    ("docs/observability.md", r"per job over a window \(default (\d+ hours)\)",
     [(1, "stats_window_ms", dur)]),
]


def code_values():
    vals, problems = {}, []
    p = subprocess.run([DEFAULTS], capture_output=True, text=True, timeout=120)
    for ln in p.stdout.splitlines():
        k, v = ln.split(" ", 1)
        vals[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    if p.returncode != 0:
        problems.append("FAIL %s exits %d: %s" % (os.path.basename(DEFAULTS),
                                                  p.returncode, p.stderr.strip()))
    if "workers" in vals and "pool_connections" in vals:
        vals["pool_overhead"] = vals["pool_connections"] - vals["workers"]
        # The pool and the heartbeat connection (jobstore/mysql/tx.h).
        vals["connections"] = vals["pool_connections"] + 1
        vals["connection_overhead"] = vals["connections"] - vals["workers"]

    def source_define(path, name):
        with open(os.path.join(SOURCE, path), encoding="utf-8") as f:
            m = re.search(r"^#define %s (\d+)" % name, f.read(), re.M)
        return int(m.group(1)) if m else None

    vals["io_timeout_s_several_hosts"] = source_define(
        "jobstore/mysql/url.h", "CHIME__MYSQL_MEMBER_IO_TIMEOUT_S")
    vals["connect_url_timeout_s"] = source_define(
        "jobstore/mysql/connect_url.c", "CONNECT_TIMEOUT_S")
    vals["history_trim_rows"] = source_define("jobstore/mysql/retain.c", "TRIM_BATCH")
    vals["pool_max"] = source_define("jobstore/mysql/store.c", "MAX_CONNECTIONS")

    def help_default(exe, pattern, key, convert=int):
        h = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
        m = re.search(pattern, h.stdout + h.stderr)
        if m:
            vals[key] = convert(m.group(1))
        else:
            problems.append("FAIL %s --help no longer says %r" % (exe, pattern))

    help_default(CHIME_CRON, r"next N \(default (\d+)\)", "cron_count")
    # chime-web is optional (libmicrohttpd): its default port from its source.
    with open(os.path.join(SOURCE, "tools", "chime-web", "chime-web.c"), encoding="utf-8") as f:
        m = re.search(r"\.port = (\d+)\}", f.read())
    vals["web_port"] = int(m.group(1)) if m else None
    # Its connection limits and timeouts (tools/chime-web/web.h).
    with open(os.path.join(SOURCE, "tools", "chime-web", "web.h"), encoding="utf-8") as f:
        web_h = f.read()
    for key, macro in (("web_max_connections", "WEB_MAX_CONNECTIONS"),
                       ("web_max_per_client", "WEB_MAX_PER_CLIENT"),
                       ("web_request_ms", "WEB_REQUEST_MS"),
                       ("web_idle_s", "WEB_IDLE_S"),
                       ("web_preview_fires", "WEB_PREVIEW_FIRES")):
        m = re.search(r"^#define %s (\d+)$" % macro, web_h, re.M)
        vals[key] = int(m.group(1)) if m else None
    alert_defaults(vals)
    help_default(CHIMECTL, r"\(default: \$CHIME_SCHEDULER or (\w+)\)", "scheduler_name", str)
    help_default(CHIMECTL, r"last run, next fire \(default: last (\d+ h)\)", "stats_window_ms", dur)
    return vals, problems


def alert_defaults(vals):
    """chime-alert's defaults: its main()'s assignments, and the store's
    misfire threshold, which it takes."""
    with open(os.path.join(SOURCE, "tools", "chime-alert", "chime-alert.c"), encoding="utf-8") as f:
        src = f.read()
    for key, field in (("alert_interval_s", "interval_s"), ("alert_window_ms", "dedup_window_ms"),
                       ("alert_retry_s", "retry_initial_s"), ("alert_retry_max_s", "retry_max_s"),
                       ("alert_timeout_s", "timeout_s"), ("alert_attempts", "max_attempts")):
        m = re.search(r"^  x\.%s = (\d+);$" % field, src, re.M)
        vals[key] = int(m.group(1)) if m else None
    with open(os.path.join(SOURCE, "tools", "chime-alert", "alert.h"), encoding="utf-8") as f:
        alert_h = f.read()
    m = re.search(r"^#define ALERT_JOBS_EVERY_MS (\d+)", alert_h, re.M)
    vals["alert_jobs_every_s"] = int(m.group(1)) // 1000 if m else None
    for key, macro in (("alert_max_outbox", "ALERT_MAX_OUTBOX"),
                       ("alert_max_per_poll", "ALERT_MAX_PER_POLL")):
        m = re.search(r"^#define %s (\d+)" % macro, alert_h, re.M)
        vals[key] = int(m.group(1)) if m else None
    m = re.search(r'seconds\("timeout", arg, [\d.]+, (\d+),', src)
    vals["alert_timeout_max_s"] = int(m.group(1)) if m else None
    if vals["alert_interval_s"] is not None:
        vals["alert_interval_ms"] = vals["alert_interval_s"] * 1000
    if vals["alert_window_ms"] is not None:
        vals["alert_window_s"] = vals["alert_window_ms"] // 1000
    if vals["alert_retry_max_s"] is not None:
        vals["alert_retry_max_ms"] = vals["alert_retry_max_s"] * 1000
    with open(os.path.join(SOURCE, "jobstore", "mysql", "tx.h"), encoding="utf-8") as f:
        m = re.search(r"^#define CHIME__MYSQL_MISFIRE_THRESHOLD_MS (\d+)$", f.read(), re.M)
    vals["misfire_threshold_ms"] = int(m.group(1)) if m else None
    if m:
        vals["misfire_threshold_s"] = int(m.group(1)) // 1000
    # chime-alert takes the nodes' default (chime.h's) as its own constant.
    m = re.search(r"^#define ALERT_MISFIRE_THRESHOLD_MS (\d+)", src, re.M)
    if not m or int(m.group(1)) != vals["misfire_threshold_ms"]:
        vals["misfire_threshold_s"] = None


def check_watch_default(vals):
    """chimectl watch's interval: its source's default (no --help line)."""
    with open(os.path.join(SOURCE, "tools", "chimectl", "chimectl_watch.c"), encoding="utf-8") as f:
        m = re.search(r"^#define DEFAULT_INTERVAL_S ([\d.]+)", f.read(), re.M)
    if m:
        vals["watch_interval_s"] = float(m.group(1))


# The pages that list the store URL's keys, and the keys each may leave
# out (test-only ones).
URL_KEY_PAGES = [
    ("docs/schema.md", r"^\| `(\w+)` \|", set()),
    ("docs/man/chime-store.7.scd", r"^\*(\w+)=", {"test_clock_offset_ms"}),
    ("README.md", r"`(\w+)=", {"test_clock_offset_ms"}),
]


def check_url_keys():
    """Every key the store accepts (jobstore/mysql/store.c's table) is on
    each page that lists them, and no page lists a key it refuses."""
    with open(os.path.join(SOURCE, "jobstore", "mysql", "store.c"), encoding="utf-8") as f:
        keys = set(re.findall(r'^\s+\{"(\w+)", KIND_\w+\},', f.read(), re.M))
    fails = []
    if len(keys) < 5:
        return ["FAIL jobstore/mysql/store.c: cannot read its table of URL keys"]
    for page, pattern, optional in URL_KEY_PAGES:
        with open(os.path.join(SOURCE, page), encoding="utf-8") as f:
            text = f.read()
        if page == "docs/schema.md":  # only its table of URL parameters
            a = text.index("## Store URL parameters")
            text = text[a:text.index("\n## ", a + 1)]
        if page == "README.md":
            a = text.index("Stores: `memory:`")
            text = text[a:text.index("\n\n", a)]
        listed = set(re.findall(pattern, text, re.M))
        for k in sorted(keys - listed - optional):
            fails.append("FAIL %s: does not list the store URL key %s" % (page, k))
        for k in sorted(listed - keys):
            fails.append("FAIL %s: lists a store URL key the store refuses: %s" % (page, k))
        if not fails:
            print("ok   %s: lists every store URL key" % page)
    return fails


def main():
    vals, failures = code_values()
    failures += check_url_keys()
    check_watch_default(vals)
    checked = 0
    for page, pattern, groups in CLAIMS:
        path = os.path.join(SOURCE, page)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rx = re.compile(pattern.replace(" ", r"[\s*]+"), re.S)
        found = list(rx.finditer(text))
        if not found:
            failures.append("FAIL %s: no longer states %r: the page changed; update "
                            "tests/docs/defaults.py's CLAIMS with it" % (page, pattern))
            continue
        for m in found:
            line = text.count("\n", 0, m.start()) + 1
            for g, key, convert in groups:
                stated = convert(m.group(g))
                code = vals.get(key)
                checked += 1
                if code is None:
                    failures.append("FAIL %s:%d: says %s default %s; the code's value "
                                    "is unknown" % (page, line, key, stated))
                elif stated != code:
                    failures.append("FAIL %s:%d: says %s default %s, the code uses %s"
                                    % (page, line, key, m.group(g), code))
                else:
                    print("ok   %s:%d: %s %s" % (page, line, key, m.group(g)))
    for f in failures:
        print(f)
    print("defaults: %d stated value(s) checked, %d failure(s)" % (checked, len(failures)))
    return 1 if failures else 0


sys.exit(main())
