"""test_cluster: clusters with Python nodes on MariaDB (meson suite 'mysql').

TwoProcessCluster: the test process opens the store (clear=1 empties this
scheduler name), starts two cluster_node.py processes, waits until both are
ready, then schedules triggers of type "py-cluster".  Each node appends one
line per run to its own file.  Every (trigger, scheduled_ms) must appear exactly
once across both files, every expected fire must have run, and both nodes
must have run some.

PythonAndCNode: the same check with this process as a Python node and
examples/chime-node (CHIME_NODE) as a C node, sharing job type "load".
"""

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import chime
from support import mysql_url

HERE = os.path.dirname(os.path.abspath(__file__))
TRIGGERS = 6
REPEAT = 14  # 15 fires each.
INTERVAL_MS = 200


def store_url(clear):
    return mysql_url("auto_create=1&prefix=chime_py_" +
                     ("&clear=1" if clear else ""))


def read_lines(paths):
    rows = []
    for path in paths:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                rows += [ln.strip().split(",") for ln in f if ln.strip()]
    return rows


class TwoProcessCluster(unittest.TestCase):
    def setUp(self):
        if not store_url(False):
            self.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")
        self.tmp = tempfile.TemporaryDirectory(prefix="chime-py-cluster-")
        self.addCleanup(self.tmp.cleanup)
        self.procs = []

    def tearDown(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdin.close()
            proc.stdout.close()

    def spawn(self, instance_id, out_path):
        env = dict(os.environ)
        proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "cluster_node.py"),
             store_url(False), instance_id, out_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
            text=True)
        self.procs.append(proc)
        return proc

    def test_two_nodes_share_without_doubles(self):
        admin = chime.Scheduler(url=store_url(True), name="py-cluster",
                                instance_id="py-admin")
        self.addCleanup(admin.close)
        outs = [os.path.join(self.tmp.name, "node-%d.txt" % i)
                for i in (1, 2)]
        nodes = [self.spawn("py-node-%d" % i, outs[i - 1]) for i in (1, 2)]
        for proc in nodes:
            self.assertEqual(proc.stdout.readline().strip(), "ready")

        start = int(time.time() * 1000) + 1000
        admin.add_job(chime.Job("py", "shared", "py-cluster", durable=True))
        for i in range(TRIGGERS):
            admin.schedule(("py", "shared"),
                           chime.Simple(interval_ms=INTERVAL_MS,
                                        repeat=REPEAT, group="py",
                                        name="t%d" % i, start=start))
        expected = TRIGGERS * (REPEAT + 1)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if len(read_lines(outs)) >= expected:
                break
            time.sleep(0.2)
        for proc in nodes:
            proc.stdin.write("stop\n")
            proc.stdin.flush()
        for proc in nodes:
            self.assertEqual(proc.stdout.readline().strip(), "done")
            self.assertEqual(proc.wait(timeout=60), 0)

        rows = read_lines(outs)
        fires = [(r[0], int(r[1])) for r in rows]
        doubled = len(fires) - len(set(fires))
        self.assertEqual(doubled, 0, "fires run twice: %d" % doubled)
        self.assertEqual(len(set(fires)), expected)
        want = {("py/t%d" % i, start + k * INTERVAL_MS)
                for i in range(TRIGGERS) for k in range(REPEAT + 1)}
        self.assertEqual(set(fires), want)
        ids = [int(r[2]) for r in rows]
        self.assertEqual(len(ids), len(set(ids)))
        per_node = {n: sum(1 for r in rows if r[3] == n)
                    for n in ("py-node-1", "py-node-2")}
        print("fires per node: %r" % per_node, file=sys.stderr)
        for node, count in per_node.items():
            self.assertGreater(count, 0, "%s ran nothing: %r"
                               % (node, per_node))


class PythonAndCNode(unittest.TestCase):
    """This test process is a Python node; examples/chime-node (the C node
    other tests use, path in CHIME_NODE) is the other.  Both register job
    type "load" under scheduler name "cluster" and share the triggers."""

    def test_python_and_c_nodes_share_without_doubles(self):
        node_exe = os.environ.get("CHIME_NODE", "")
        if not os.access(node_exe, os.X_OK):
            self.skipTest("no C node program (CHIME_NODE=%r)" % node_exe)
        if not store_url(False):
            self.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")
        tmp = tempfile.TemporaryDirectory(prefix="chime-py-mixed-")
        self.addCleanup(tmp.cleanup)
        lock = threading.Lock()
        py_runs = []
        sched = chime.Scheduler(url=store_url(True), name="cluster",
                                instance_id="py-node", workers=2,
                                idle_wait_ms=200, checkin_interval_ms=500)
        self.addCleanup(sched.close)

        @sched.job("load")
        def load(ctx):
            ms = int(ctx.job_data or b"0")
            time.sleep(ms / 1000.0)
            with lock:
                py_runs.append((ctx.job_name, ctx.scheduled_ms,
                                ctx.fire_id))

        proc = subprocess.Popen([node_exe, store_url(False), "c-node",
                                 tmp.name], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)

        def stop_c():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            proc.stdout.close()

        self.addCleanup(stop_c)
        self.assertEqual(proc.stdout.readline().strip(), "ready c-node")
        sched.start()

        c_log = os.path.join(tmp.name, "c-node.log")

        def c_runs():
            if not os.path.exists(c_log):
                return []
            with open(c_log, encoding="utf-8") as f:
                rows = [ln.rstrip("\n").split("\t") for ln in f]
            return [(r[1], int(r[2]), int(r[3])) for r in rows
                    if len(r) >= 4 and r[0] == "S"]

        start = int(time.time() * 1000) + 1500
        for i in range(TRIGGERS):
            sched.schedule(chime.Job("load", "m%d" % i, "load", data="50"),
                           chime.Simple(interval_ms=INTERVAL_MS,
                                        repeat=REPEAT, group="load",
                                        name="m%d" % i, start=start))
        expected = TRIGGERS * (REPEAT + 1)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with lock:
                done = len(py_runs)
            if done + len(c_runs()) >= expected:
                break
            time.sleep(0.2)
        stop_c()
        sched.close()

        c_done = c_runs()
        runs = py_runs + c_done
        fires = [(name, ms) for name, ms, _ in runs]
        self.assertEqual(len(fires) - len(set(fires)), 0, "doubled fires")
        want = {("m%d" % i, start + k * INTERVAL_MS)
                for i in range(TRIGGERS) for k in range(REPEAT + 1)}
        self.assertEqual(set(fires), want)
        self.assertEqual(len({r[2] for r in runs}), len(runs))
        print("fires: python %d, C %d" % (len(py_runs), len(c_done)),
              file=sys.stderr)
        self.assertGreater(len(py_runs), 0, "the Python node ran nothing")
        self.assertGreater(len(c_done), 0, "the C node ran nothing")


if __name__ == "__main__":
    unittest.main()
