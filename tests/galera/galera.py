#!/usr/bin/env python3
"""galera.py: chime on a three-member MariaDB Galera cluster (./dev galera-up).

    python3 galera.py conformance STORE_TEST   the store conformance suite
                                              (test-store-mysql) on Galera
    python3 galera.py member-kill             cluster checker, a member
                                              killed (kill -9) under load
    python3 galera.py member-stop             cluster checker, a member
                                              SIGSTOPped past its eviction,
                                              then resumed
    python3 galera.py spread-FAULT            FAULT (none, member-kill,
                                              member-stop) with the nodes
                                              spread over the members

The cluster runs are tests/cluster/cluster.py's: three chime-node processes
with the same load.  By default they write through one member (the set-up
docs/galera.md recommends): every node's URL lists m2 first, the fault hits
m2, and every node must move to the next member.  spread-* gives n1 the
list from m1, n2 from m2, n3 from m3 (nodes on different members race for
the same triggers: certification decides).  The checker must find every
fire run once (dups=0, lost=0), recovered runs included.  The spread runs
found the silent brute-force abort docs/galera.md describes.  A killed member is started again at the end (./dev
galera-up), so the cluster is whole for the next run.

Environment: CHIME_DEV (./dev, with CHIME_DB_DIR/CHIME_DB_PORT), CHIME_NODE
(the chime-node program).  Never skips: without ./dev or a cluster that
comes up, it fails.
"""
import os
import signal
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cluster"))
import cluster  # noqa: E402  (the checker and the node harness)

VICTIM_MEMBER = 2  # n2's first member
STOP_S = 8  # past the members' eviction (evs.suspect_timeout 3 s in ./dev)


def dev(*args):
    exe = os.environ.get("CHIME_DEV")
    if not exe:
        raise SystemExit("CHIME_DEV is not set: the Galera suite needs ./dev "
                         "to start its cluster")
    return subprocess.run([exe, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def split_url(url):
    """(prefix 'mysql://user:pw@', [host:port, ...], '/db...')."""
    scheme, rest = url.split("://", 1)
    at = rest.rindex("@", 0, rest.index("/"))
    slash = rest.index("/", at)
    return (scheme + "://" + rest[:at + 1], rest[at + 1:slash].split(","),
            rest[slash:])


def rotated(url, k):
    head, hosts, tail = split_url(url)
    return head + ",".join(hosts[k:] + hosts[:k]) + tail


def member_url(url, k):
    head, hosts, tail = split_url(url)
    return head + hosts[k] + tail


def sync_wait_args(base):
    """cluster.mariadb_args with wsrep_sync_wait: the checker's reads see
    every commit of every member."""
    u = urllib.parse.urlsplit(base)
    return ["mariadb", "-h", u.hostname, "-P", str(u.port or 3306),
            "-u", urllib.parse.unquote(u.username or ""),
            "-p" + urllib.parse.unquote(u.password or ""),
            "--protocol=tcp", "--init-command=SET SESSION wsrep_sync_wait=1",
            "-N", "-B", u.path.lstrip("/") or "mysql", "-e"]


class GaleraCluster(cluster.Cluster):
    def __init__(self, fault, url):
        os.environ["CHIME_TEST_MYSQL_URL"] = member_url(url, 0)
        super().__init__(fault)
        self.galera_url = url
        self.prefix = "gl_"

    spread = False

    def url(self, extra):
        # Members that hang are left after 4 s (the default is 10): the
        # run stays short.
        return super().url(extra + "&io_timeout_s=4")

    def spawn(self, node, extra="", schedule=False):
        # One writer member: every node starts on m2 (the victim), so all
        # of them must move.  Spread: n1 on m1, n2 on m2, n3 on m3.
        k = cluster.NODES.index(node) if self.spread else VICTIM_MEMBER - 1
        saved = self.base
        self.base = rotated(self.galera_url, k)
        try:
            return super().spawn(node, extra, schedule)
        finally:
            self.base = saved


def member_pid(k):
    return int(dev("galera-pid", str(k)))


def moved(c, node):
    return "moved to database member" in c.stderr_of(node)


def run_fault(fault):
    url = dev("galera-url")
    cluster.mariadb_args = sync_wait_args
    spread = fault.startswith("spread-")
    if spread:
        fault = fault[len("spread-"):]
    c = GaleraCluster(fault, url)
    c.spread = spread
    restart = False
    try:
        c.start_all()
        c.sleep_until(c.start_ms + 1500)
        pid = member_pid(VICTIM_MEMBER)
        if fault == "member-kill":
            os.kill(pid, signal.SIGKILL)
            restart = True
            cluster.log(f"killed member m{VICTIM_MEMBER} (kill -9, pid {pid})")
            c.sleep_until(cluster.now_ms() + 8000)
        elif fault == "member-stop":
            os.kill(pid, signal.SIGSTOP)
            cluster.log(f"stopped member m{VICTIM_MEMBER} (SIGSTOP) for "
                        f"{STOP_S} s")
            try:
                time.sleep(STOP_S)
            finally:
                os.kill(pid, signal.SIGCONT)
            cluster.log(f"continued member m{VICTIM_MEMBER}")
            # The nodes fenced themselves while their member hung: time to
            # check in again and run the late fires.
            c.sleep_until(cluster.now_ms() + 10000)
        elif fault == "none":
            c.sleep_until(cluster.now_ms() + 6000)
        else:
            raise SystemExit(f"unknown fault {fault}")
        c.stop_all()
        status = cluster.check(c)
        movers = ["n2"] if spread else cluster.NODES
        for n in movers if fault != "none" else []:
            if not moved(c, n):
                cluster.log(f"FAIL {n} did not move to another member:\n"
                            + c.stderr_of(n))
                status = 1
        return c.finish(status)
    finally:
        c.kill_left()
        if restart:
            cluster.log(f"starting member m{VICTIM_MEMBER} again")
            dev("galera-up")


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    dev("galera-up")
    if what == "conformance":
        # A tenth of the single server's sizes: the suite's logic, not its
        # volume, is what the cluster must pass.
        env = dict(os.environ, CHIME_TEST_MYSQL_URL=dev("galera-url"),
                   CHIME_TEST_STORE_SIZES="1000,400")
        return subprocess.run([sys.argv[2]], env=env).returncode
    return run_fault(what)


if __name__ == "__main__":
    sys.exit(main())
