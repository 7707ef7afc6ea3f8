#!/usr/bin/env python3
"""replica.py: chime on a MariaDB primary and its GTID replica
(./dev replica-up; issue 30, fault 2).

    python3 replica.py conn TEST_EXE   the runner TEST_EXE
                                       (test-mysql-replica) with
                                       CHIME_TEST_MYSQL_URL listing the
                                       read-only replica first
    python3 replica.py failover        cluster checker across a fail-over
    python3 replica.py failover-gap    the same with GAP_S seconds between
                                       the demotion and the promotion
    python3 replica.py single-host     the same load on r1 alone: r1 is
                                       set read-only for GAP_S seconds,
                                       then writable again

failover: tests/cluster/cluster.py's three chime-node processes and load
(triggers every 300, 400, 500 ms, 1 s and 2 s), every node's URL listing the
primary r1 first, then the replica r2.  Two seconds into the load,
`./dev replica-promote` fails over (r1 set read_only, r2 applies the rest of
r1's binlog, stops replicating and takes writes); failover-gap waits GAP_S
seconds between the demotion and the rest, as an automatic fail-over takes
time to decide: no server takes writes meanwhile, every node fences itself
(no check-in for a lease) and must come back.  Then:
  - the checker, reading the new primary (r2), wants every fire run once:
    none twice, none lost, a run cut short recovered;
  - fires resume on r2 within RESUME_LIMIT_MS of the promotion: every run
    that started after the demotion started at most that long after its
    scheduled time or the promotion, whichever is later;
  - every node moved to r2 ("moved to database member"), said once that r1
    is read-only (WARN), and logged no read-only error at ERROR.
single-host: one host in the URL (a name a fail-over tool moves, or a
demotion undone by hand): nodes must reconnect until the server takes
writes again and resume within RESUME_LIMIT_MS of that, with the same
checks (but the move).

Environment: CHIME_DEV (./dev, with CHIME_DB_DIR/CHIME_DB_PORT), CHIME_NODE
(the chime-node program).  Never skips: without ./dev or a pair that comes
up, it fails.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cluster"))
import cluster  # noqa: E402  (the checker and the node harness)

RESUME_LIMIT_MS = 5000  # issue 30: fires resume within a few seconds
GAP_S = 3  # failover-gap: longer than a lease (2 check-ins)


def dev(*args):
    exe = os.environ.get("CHIME_DEV")
    if not exe:
        raise SystemExit("CHIME_DEV is not set: the replica suite needs ./dev "
                         "to start its servers")
    return subprocess.run([exe, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def port_of(url):
    return url.split("@", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]


class ReplicaCluster(cluster.Cluster):
    def __init__(self, both, primary):
        # The checker and the results table use one server (the primary
        # of the moment); the nodes get the URL listing both.
        os.environ["CHIME_TEST_MYSQL_URL"] = primary
        super().__init__("failover")
        self.both = both
        self.prefix = "rp_"

    def url(self, extra):
        saved = self.base
        self.base = self.both
        try:
            return super().url(extra)
        finally:
            self.base = saved


def check_resumed(c, demoted_ms, promoted_ms):
    """Every run started after the demotion started within RESUME_LIMIT_MS
    of max(its scheduled time, the promotion); and some run started after
    the promotion."""
    failures = []
    after = [r for r in c.records() if r["kind"] == "S"
             and r["start"] >= demoted_ms]
    for r in after:
        late = r["start"] - max(r["sched"], promoted_ms)
        if late > RESUME_LIMIT_MS:
            failures.append(f"late by {late} ms after the promotion: "
                            f"{r['trigger']} at {r['sched']} on {r['node']}")
    firsts = sorted(r["start"] for r in after if r["start"] >= promoted_ms)
    if not firsts:
        failures.append("no fire started after the promotion")
    else:
        cluster.log(f"first run after the promotion: "
                    f"+{firsts[0] - promoted_ms} ms")
    return failures


def check_logs(c, new_port):
    failures = []
    for n in cluster.NODES:
        err = c.stderr_of(n)
        if new_port and \
                f"moved to database member 127.0.0.1:{new_port}" not in err:
            failures.append(f"{n} did not move to the new primary")
        warns = len(re.findall(r" WARN: database member \S+ is read-only", err))
        if warns > 1:
            failures.append(f"{n} logged the read-only member {warns} times")
        if re.search(r" ERROR: MySQL error (1290|1792)", err):
            failures.append(f"{n} logged a read-only error at ERROR")
    return failures


def run_failover(gap_s, single=False):
    r1 = dev("replica-url", "1")
    c = ReplicaCluster(r1 if single else dev("replica-url"), r1)
    try:
        c.start_all()
        c.sleep_until(c.start_ms + 2000)
        demoted_ms = cluster.now_ms()
        if single:
            dev("replica-read-only", "1", "on")
            c.sleep_until(demoted_ms + gap_s * 1000)
            dev("replica-read-only", "1", "off")
            new_primary = None
        else:
            dev("replica-promote", str(gap_s))
            new_primary = dev("replica-url", "2")
            c.base = new_primary  # the checker reads the new primary
        promoted_ms = cluster.now_ms()
        cluster.log(f"{'r1 writable again' if single else 'failed over to r2'}"
                    f" ({promoted_ms - demoted_ms} ms after the demotion)")
        c.sleep_until(promoted_ms + 7000)
        c.stop_all()
        status = cluster.check(c)
        failures = check_resumed(c, demoted_ms, promoted_ms)
        failures += check_logs(c, new_primary and port_of(new_primary))
        if failures and status == 0:
            status = cluster.verdict(c, failures, "fail-over checks")
        elif not failures:
            cluster.log("fail-over checks: OK")
        return c.finish(status)
    finally:
        c.kill_left()


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    dev("replica-up")
    if what == "conn":
        r2, r1 = dev("replica-url", "2"), dev("replica-url", "1")
        head, tail = r2.split("@", 1)
        replica_first = (head + "@" + tail.split("/", 1)[0] + ","
                         + r1.split("@", 1)[1])
        env = dict(os.environ, CHIME_TEST_MYSQL_URL=replica_first)
        return subprocess.run([sys.argv[2]], env=env).returncode
    if what == "failover":
        return run_failover(0)
    if what == "failover-gap":
        return run_failover(GAP_S)
    if what == "single-host":
        return run_failover(GAP_S, single=True)
    raise SystemExit(f"unknown run {what}")


if __name__ == "__main__":
    sys.exit(main())
