#!/usr/bin/env python3
"""queue-cluster.py: unique keys and durable chains across a cluster
(issue 31, docs/queue.md).  Three chime-node processes (examples/node.c
--queue 1: jobs queue.step1, a chain, and queue.step2, its second step) on
the throwaway MariaDB; three enqueuers at once hand in a run of step1 for
each of KEYS unique keys, each enqueuer every key, each through its own
chimectl process connected through a proxy that drops the reply of half
the COMMITs it forwards (the server carried the COMMIT out; the client
sees its connection lost, as when a network or a proxy fails at the worst
moment, and retries the call).  The runs are due a few seconds later,
after every enqueue returned.  Each step1 run sleeps RUN_MS, then, in its
fire's completion transaction, enqueues step2 with the unique key
"then-" + its key (carried in its data: a recovered run fires another
trigger), and commits.  A node is killed (kill -9)
while step1 runs are under way.

The checker (the cluster's history, by the database) wants:
  - each key's step1 run completed OK exactly once, and no other step1 run
    (a unique key never yields two runs, whatever the drops and retries);
  - each step1 run's step2 completed OK exactly once, and no other step2
    (a chain's second step runs once, after its first step committed,
    also when the first step's node died before its commit and the run was
    recovered on a survivor);
  - the proxy dropped at least one COMMIT reply, and the killed node had a
    step1 run under way (its history has a REQUEUED row): the faults were
    real.

Environment: CHIME_TEST_MYSQL_URL, CHIME_NODE (chime-node), CHIMECTL.
Python 3 standard library only; about 30 s.
"""
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import NODES, Cluster, log, mariadb, now_ms, verdict  # noqa: E402

KEYS = 30
ENQUEUERS = 3
RUN_MS = 1500  # a step1 run's sleep before its transaction
LEAD_MS = 9000  # the runs are due this long after the enqueues begin
DONE_S = 45  # every run done within this after they are due


class CommitDropper:
    """A TCP proxy to the database that, for each COMMIT a client sends
    (a COM_QUERY "COMMIT" of the MySQL protocol) after an INSERT into the
    triggers table (an enqueue's transaction), forwards it and, half of
    the times, drops the server's reply: both ends are closed."""

    def __init__(self, host, port):
        self.target = (host, port)
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(64)
        self.port = self.lsock.getsockname()[1]
        self.dropped = 0
        self.commits = 0
        self.lock = threading.Lock()
        self.rng = random.Random(31)
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            s = socket.create_connection(self.target)
            state = {"commit": False}
            threading.Thread(target=self.up, args=(c, s, state),
                             daemon=True).start()
            threading.Thread(target=self.down, args=(s, c, state),
                             daemon=True).start()

    def up(self, c, s, state):
        """Client to server, packet by packet: notes a COMMIT."""
        buf = b""
        try:
            while True:
                data = c.recv(65536)
                if not data:
                    break
                buf += data
                while len(buf) >= 4:
                    n = int.from_bytes(buf[:3], "little")
                    if len(buf) < 4 + n:
                        break
                    payload = buf[4:4 + n]
                    if payload[:1] in (b"\x03", b"\x16") and \
                            b"INSERT INTO" in payload and \
                            b"triggers" in payload:
                        state["armed"] = True  # an enqueue's transaction
                    elif payload[:1] == b"\x03" and \
                            payload[1:].strip().upper() == b"COMMIT" and \
                            state.pop("armed", False):
                        with self.lock:
                            self.commits += 1
                            state["commit"] = self.rng.random() < 0.5
                    s.sendall(buf[:4 + n])
                    buf = buf[4 + n:]
        except OSError:
            pass
        self.close(c, s)

    def down(self, s, c, state):
        """Server to client: the reply of a COMMIT chosen is dropped."""
        try:
            while True:
                data = s.recv(65536)
                if not data:
                    break
                if state["commit"]:
                    with self.lock:
                        self.dropped += 1
                    break
                c.sendall(data)
        except OSError:
            pass
        self.close(c, s)

    @staticmethod
    def close(*socks):
        for x in socks:
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            x.close()

    def stop(self):
        self.lsock.close()


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


def enqueuer(c, url, order, at, results):
    """Enqueues step1 for every key in order, each call retried until
    chimectl says it stored the run or found it (a dropped reply fails a
    call whose effect is unknown: the call is made again)."""
    for k in order:
        for attempt in range(30):
            p = subprocess.run(
                [os.environ["CHIMECTL"], "--url", url, "--scheduler",
                 "cluster", "--json", "enqueue", "queue.step1", "--key",
                 f"u-{k}", "--data", f'"{RUN_MS} u-{k}"', "--at", iso(at)],
                capture_output=True, text=True, timeout=60)
            if p.returncode == 0:
                results.append((k, '"existed": true' in p.stdout, attempt))
                break
            time.sleep(0.05)
        else:
            results.append((k, None, -1))


def history(c):
    """(job_name, run name, outcome, node) of the runs of queue.*: a
    recovered run's trigger (recover-FIRE_ID) is named by the run it
    continues."""
    rows = mariadb(c.base, "SELECT job_name, trigger_name, outcome, node, "
                   f"fire_id FROM {c.prefix}history WHERE job_group = "
                   "'queue'")
    by_fire = {int(r[4]): r[1] for r in rows}

    def run_of(name):
        for _ in range(10):
            if not name.startswith("recover-"):
                break
            name = by_fire.get(int(name[len("recover-"):]), name)
        return name
    return [(r[0], run_of(r[1]), r[2], r[3]) for r in rows]


def main():
    c = Cluster("queue", plain=True)
    c.prefix = "clq_"
    c.node_args = ["--queue", "1"]
    proxy = None
    try:
        c.start("n1", "&clear=1")
        for n in NODES[1:]:
            c.start(n)
        u = urllib.parse.urlsplit(c.url(""))
        proxy = CommitDropper(u.hostname, u.port or 3306)
        netloc = u.netloc.rsplit(":", 1)[0] + f":{proxy.port}"
        via_proxy = urllib.parse.urlunsplit(u._replace(netloc=netloc))
        # Whole seconds: chimectl's --at reads seconds.
        at = (now_ms() + LEAD_MS) // 1000 * 1000
        results, threads = [], []
        for i in range(ENQUEUERS):
            order = list(range(KEYS))
            random.Random(i).shuffle(order)
            t = threading.Thread(target=enqueuer,
                                 args=(c, via_proxy, order, at, results))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        enqueued_ms = now_ms()
        log(f"{len(results)} enqueues done, {proxy.dropped} of "
            f"{proxy.commits} COMMIT replies dropped; runs due at {at}")
        failures = []
        if enqueued_ms > at + RUN_MS - 200:
            failures.append("the enqueues took longer than the runs' lead: "
                            "a key freed by a finished run may be reused")
        if any(r[1] is None for r in results):
            failures.append("an enqueue never succeeded")
        if proxy.dropped == 0:
            failures.append("the proxy dropped no COMMIT reply")
        # Kill a node while step1 runs are under way.
        c.sleep_until(at + RUN_MS // 2)
        victim = NODES[0]
        c.procs[victim].kill()
        c.killed[victim] = now_ms()
        c.procs[victim].wait()
        log(f"killed {victim} (kill -9) while step1 runs were under way")
        deadline = time.time() + DONE_S
        while time.time() < deadline:
            rows = history(c)
            ok = [r for r in rows if r[2] == "OK"]
            if len(ok) >= 2 * KEYS:
                break
            time.sleep(0.5)
        time.sleep(1.0)  # a second run of anything would show by now
        c.stop_all()
        rows = history(c)
        for job in ("step1", "step2"):
            want = {f"K_u-{k}" if job == "step1" else f"K_then-u-{k}"
                    for k in range(KEYS)}
            oks = [r[1] for r in rows if r[0] == job and r[2] == "OK"]
            for name in sorted(want):
                n = oks.count(name)
                if n != 1:
                    failures.append(f"{job} run {name} completed OK {n} "
                                    "times, not once")
            for name in sorted(set(oks) - want):
                failures.append(f"{job} ran an unexpected run {name}")
        requeued = [r for r in rows if r[2] == "REQUEUED" and r[3] == victim]
        if not requeued:
            failures.append(f"{victim} had no run under way when killed")
        existed = sum(1 for r in results if r[1])
        log(f"{existed} enqueues found their key's run; {len(requeued)} "
            f"run(s) of {victim} recovered")
        return c.finish(verdict(c, failures, "queue"))
    finally:
        if proxy:
            proxy.stop()
        c.kill_left()


if __name__ == "__main__":
    sys.exit(main())
