"""test_changes: an idle three-node cluster notices chimectl's changes
within one check-in interval (meson suite 'cluster': runs alone).

Three idle_node.py processes run with chime's defaults: a 30 s idle wait and
a 1 s check-in.  With nothing due they sleep their idle wait; a change made
by chimectl (another process, which never wakes them) must still act
within 1.5 s: `chimectl fire` runs the job, `chimectl resume` runs a trigger
that came due while it was paused, and `chimectl pause` keeps a due trigger
from running.  No timed sleeps decide anything: the test waits for the run
(generous timeouts) and asserts the delay it measured.  The fire's delay
comes from the store's timestamps (the run's fire_ms against the one-off
trigger's due time, both the database's clock); the resume's is measured
from just before chimectl started (an upper bound).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

import chime
from support import mysql_url

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "py-changes"
LIMIT_MS = 1500


def store_url():
    return mysql_url("auto_create=1&prefix=chime_chg_")


def now_ms():
    return int(time.time() * 1000)


class IdleClusterNotices(unittest.TestCase):
    def setUp(self):
        url = store_url()
        if not url:
            self.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")
        self.ctl = os.environ.get("CHIMECTL")
        if not self.ctl:
            self.fail("CHIMECTL is not set (meson sets it)")
        self.url = url
        self.tmp = tempfile.TemporaryDirectory(prefix="chime-py-changes-")
        self.addCleanup(self.tmp.cleanup)
        self.procs = []
        # A clean slate for this scheduler name, and the job.
        setup = chime.Scheduler(url=url + "&clear=1", name=NAME,
                                instance_id="setup")
        try:
            setup.add_job(chime.Job("app", "ping", "ping", durable=True,
                                    requests_recovery=True))
        finally:
            setup.close()

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()

    def files(self):
        return [os.path.join(self.tmp.name, f"n{i}.out") for i in (1, 2, 3)]

    def runs(self):
        rows = []
        for path in self.files():
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    rows += [ln.rstrip("\n").split(",", 4) for ln in f
                             if ln.strip()]
        return rows

    def wait_for_run(self, match, timeout_s=40):
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            found = [r for r in self.runs() if match(r)]
            if found:
                return found
            time.sleep(0.05)
        return []

    def chimectl(self, *args):
        p = subprocess.run([self.ctl, "--url", self.url, "--scheduler", NAME,
                            "--json"] + list(args),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def start_nodes(self):
        for i, path in enumerate(self.files(), 1):
            p = subprocess.Popen(
                [sys.executable, os.path.join(HERE, "idle_node.py"),
                 self.url, f"n{i}", path],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self.procs.append(p)
        for p in self.procs:
            self.assertEqual(p.stdout.readline().strip(), b"ready")
        # Let every node's first look at the store pass: from now on each
        # sleeps its 30 s idle wait.
        time.sleep(3)

    def stop_nodes(self):
        for p in self.procs:
            p.stdin.write(b"\n")
            p.stdin.flush()
        for p in self.procs:
            self.assertEqual(p.wait(timeout=60), 0)

    def test_fire_pause_resume_act_within_a_checkin(self):
        self.start_nodes()
        # fire: the one-off trigger's run starts within the limit of its due
        # time, by the database's clock.
        out = json.loads(self.chimectl("fire", "app.ping", "--data",
                                       '"once"'))
        name = out["trigger"]
        got = self.wait_for_run(lambda r: r[0] == name.replace(".", "/", 1))
        self.assertEqual(len(got), 1, got)
        delay = int(got[0][2]) - int(got[0][1])
        self.assertEqual(got[0][4], '"once"')
        print(f"fire: ran {delay} ms after its due time", file=sys.stderr)
        self.assertLessEqual(delay, LIMIT_MS, f"fire ran {delay} ms late")

        # pause: a trigger due in 3 s, paused by chimectl once the nodes
        # know of it (scheduled by another process: they learn at a
        # check-in), never runs.
        s = chime.Scheduler(url=self.url, name=NAME, instance_id="adder")
        try:
            due = now_ms() + 3000
            s.schedule(("app", "ping"),
                       chime.Simple(0, 0, group="t", name="later",
                                    start=due))
        finally:
            s.close()
        time.sleep(1.2)
        self.chimectl("pause", "trigger", "t.later")
        self.assertEqual(
            self.wait_for_run(lambda r: r[0] == "t/later",
                              timeout_s=(due - now_ms()) / 1000 + 3), [])

        # resume: the trigger, due since, runs within the limit.
        before = now_ms()
        self.chimectl("resume", "trigger", "t.later")
        got = self.wait_for_run(lambda r: r[0] == "t/later")
        self.assertEqual(len(got), 1, got)
        delay = int(got[0][2]) - before
        print(f"resume: ran {delay} ms after chimectl started",
              file=sys.stderr)
        self.assertLessEqual(delay, LIMIT_MS, f"resume acted {delay} ms late")
        self.stop_nodes()


if __name__ == "__main__":
    unittest.main()
