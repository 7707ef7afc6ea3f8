"""test_policies_mysql: `chimectl cancel` reaches a run on a node within
1.5 s (meson suite 'cluster': runs alone), and the run's history row says
CANCELLED, which `chimectl history` shows; FORBID_SKIP and REPLACE hold
across three nodes (three schedulers of this process, each with its own
instance id and connections, on one database): never two runs of the job
at once, and every fire the trigger counted is in the history as run
(ok), SKIPPED or CANCELLED.

The node runs here with chime's default 1 s check-in; chimectl is another
process, which only sets the fire's flag in the database.  The delay is
measured from chimectl's return (the flag is committed) to the moment the
job's chime_ctx_wait_cancelled returned; nothing else is timed.
"""

import json
import os
import subprocess
import threading
import time
import unittest

import chime
from support import mysql_url

NAME = "py-policies"
LIMIT_MS = 1500
WAIT_S = 40.0


def store_url():
    return mysql_url("auto_create=1&prefix=chime_pol_")


def chimectl(test, name, *args):
    """chimectl --json ARGS on scheduler name; asserts it succeeded."""
    p = subprocess.run([test.ctl, "--url", test.url, "--scheduler", name,
                        "--json"] + list(args),
                       capture_output=True, text=True, timeout=60)
    test.assertEqual(p.returncode, 0, p.stderr)
    return json.loads(p.stdout)


def use_store_and_chimectl(test):
    """Sets test.url (returned) and test.ctl (chimectl); fails the test
    when the database or chimectl is not given."""
    test.url = store_url()
    if not test.url:
        test.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")
    test.ctl = os.environ.get("CHIMECTL")
    if not test.ctl:
        test.fail("CHIMECTL is not set (meson sets it)")
    return test.url


class ChimectlCancel(unittest.TestCase):
    def setUp(self):
        url = use_store_and_chimectl(self)
        self.sched = chime.Scheduler(url=url + "&clear=1", name=NAME,
                                     instance_id="pol-node", workers=2)
        self.addCleanup(self.sched.close)

    def chimectl(self, *args):
        return chimectl(self, NAME, *args)

    def test_cancel_reaches_the_running_node(self):
        started, told = threading.Event(), threading.Event()
        seen = {}

        @self.sched.job("long")
        def long_job(ctx):
            seen["fire_id"] = ctx.fire_id
            started.set()
            if ctx.wait_cancelled(30000):
                seen["told_at"] = time.monotonic()
                told.set()

        self.sched.add_job(chime.Job("app", "long", "long", durable=True))
        self.sched.start()
        self.sched.trigger_job("app", "long")
        self.assertTrue(started.wait(WAIT_S))
        out = self.chimectl("cancel", "job", "app.long")
        returned = time.monotonic()
        self.assertEqual(out["runs"], 1)
        self.assertTrue(told.wait(WAIT_S))
        delay_ms = (seen["told_at"] - returned) * 1000
        self.assertLess(delay_ms, LIMIT_MS)
        # The history row, once the completion is written.
        deadline = time.monotonic() + WAIT_S
        rows = []
        while time.monotonic() < deadline:
            rows = [r for r in self.chimectl("history", "--job", "app.long")
                    if r["fire_id"] == str(seen["fire_id"])
                    or r["fire_id"] == seen["fire_id"]]
            if rows:
                break
            time.sleep(0.1)
        self.assertEqual(len(rows), 1, rows)
        self.assertEqual(rows[0]["outcome"], "cancelled")
        self.assertEqual(int(rows[0]["error_code"]), chime.Cancelled.code)


class ThreeNodes(unittest.TestCase):
    """One job on three nodes; runs are timed on this process's monotonic
    clock, so overlaps between nodes are seen exactly."""

    def setUp(self):
        url = use_store_and_chimectl(self)
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        self.runs = 0
        self.nodes = []
        for i in range(3):
            extra = "&clear=1" if i == 0 else ""
            n = chime.Scheduler(url=url + extra, name=NAME + "-3",
                                instance_id="pol-n%d" % i, workers=2)
            self.addCleanup(n.close)
            n.register("work", self.work)
            self.nodes.append(n)

    def work(self, ctx):
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            ctx.wait_cancelled(self.run_ms)
        finally:
            with self.lock:
                self.active -= 1
                self.runs += 1

    def history(self, job):
        return chimectl(self, NAME + "-3", "history", "--job", job,
                        "--limit", "100000")

    def run_policy(self, concurrency, run_ms, runs):
        self.run_ms = run_ms
        self.nodes[0].schedule(
            chime.Job("app", "j", "work", concurrency=concurrency),
            chime.Simple(interval_ms=250, repeat=chime.FOREVER, name="t",
                         group="app"))
        for n in self.nodes:
            n.start()
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            with self.lock:
                if self.runs >= runs:
                    break
            time.sleep(0.05)
        self.nodes[0].pause_job("app", "j")
        for n in self.nodes:
            n.shutdown(deadline_ms=int(WAIT_S * 1000))
        self.assertGreaterEqual(self.runs, runs)
        self.assertEqual(self.max_active, 1)
        info = chime.Scheduler(url=self.url, name=NAME + "-3",
                               instance_id="pol-check")
        try:
            counted = info.trigger_info("app", "t")["times_triggered"]
        finally:
            info.close()
        return counted, self.history("app.j")

    def test_forbid_skip_across_nodes(self):
        counted, rows = self.run_policy(chime.Concurrency.FORBID_SKIP, 1000,
                                        3)
        outcomes = [r["outcome"] for r in rows]
        self.assertIn("skipped", outcomes)
        # The run going on when its node's shutdown(deadline_ms=) told it to stop
        # returned: cut short, recorded cancelled (the job does not ask for
        # recovery); at most one, FORBID_SKIP running one at a time.
        self.assertEqual(set(outcomes) - {"ok", "skipped", "cancelled"},
                         set(), outcomes)
        self.assertLessEqual(outcomes.count("cancelled"), 1, outcomes)
        self.assertEqual(len(rows), counted)

    def test_replace_across_nodes(self):
        counted, rows = self.run_policy(chime.Concurrency.REPLACE, 30000, 3)
        outcomes = [r["outcome"] for r in rows]
        self.assertGreaterEqual(outcomes.count("cancelled"), 2, outcomes)
        self.assertEqual(len(rows), counted)


if __name__ == "__main__":
    unittest.main()
