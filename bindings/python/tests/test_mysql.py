"""test_mysql: the Python binding on the MariaDB store (meson suite 'mysql').

Uses CHIME_TEST_MYSQL_URL plus auto_create=1&prefix=chime_py_&clear=1, with
its own scheduler name so it shares nothing with the cluster test.
"""

import os
import threading
import time
import unittest

import chime
from support import mysql_url


def url(extra=""):
    return mysql_url("auto_create=1&prefix=chime_py_&clear=1" + extra)


class MysqlStore(unittest.TestCase):
    def setUp(self):
        if not url():
            self.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")

    def at_once(self, n, fn):
        """Calls fn(i) for each i < n on n threads released together; the
        results in the order they came (none may raise)."""
        results, errors = [], []
        gate = threading.Barrier(n)

        def call(i):
            try:
                gate.wait()
                results.append(fn(i))
            except Exception as e:  # pragma: no cover
                errors.append(e)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        return results

    def test_schedule_run_and_persist(self):
        done = threading.Event()
        seen = []
        # One worker: the two fires (100 ms apart) run one after the other,
        # in the order they were claimed (two workers on a loaded machine
        # may start the second first).
        with chime.Scheduler(url=url(), name="py-mysql", workers=1,
                             idle_wait_ms=200) as s:
            @s.job("py-mysql")
            def run(ctx):
                seen.append((ctx.trigger_key, ctx.fire_id, ctx.json(),
                             ctx.still_owned()))
                if len(seen) == 2:
                    done.set()
                if len(seen) == 1:
                    raise RuntimeError("first run fails")

            s.schedule(chime.Job("g", "j", "py-mysql", data={"n": 7},
                                 durable=True),
                       chime.Simple(interval_ms=100, repeat=1, group="g",
                                    name="t", start=int(time.time() * 1000)
                                    + 300))
            self.assertTrue(done.wait(30))
            with self.assertRaises(chime.AlreadyExists):
                s.add_job(chime.Job("g", "j", "py-mysql", durable=True))
            # The history table through the API (issue 17); the second
            # run's record follows its end: wait for it.
            deadline = time.monotonic() + 30
            while len(s.history(job="g.j")) < 2 and \
                    time.monotonic() < deadline:
                time.sleep(0.05)
            hist = s.history(job=("g", "j"))
            failed = s.history(trigger="g.t", outcome=chime.Outcome.FAILED)
        self.assertEqual([h.outcome for h in hist],
                         [chime.Outcome.OK, chime.Outcome.FAILED])
        self.assertEqual([h.fire_id for h in hist],
                         [seen[1][1], seen[0][1]])
        self.assertEqual([h.fire_id for h in failed], [seen[0][1]])
        self.assertIn("first run fails", failed[0].message)
        self.assertEqual(hist[0].trigger_key, ("g", "t"))
        self.assertEqual([r[0] for r in seen], [("g", "t")] * 2)
        self.assertEqual([r[2] for r in seen], [{"n": 7}] * 2)
        self.assertTrue(all(r[3] for r in seen))
        self.assertLess(seen[0][1], seen[1][1])

    def test_long_non_ascii_failure_never_blocks(self):
        """Issue 22, finding 2: a failure message cut at the limit inside a
        multi-byte character is stored, and the FORBID job goes on."""
        done = threading.Event()
        runs, owned = [], []
        with chime.Scheduler(url=url(), name="py-utf8", workers=2,
                             idle_wait_ms=200) as s:
            @s.job("py-utf8")
            def run(ctx):
                runs.append(ctx.fire_id)
                owned.append(ctx.check_owned())
                if len(runs) == 3:
                    done.set()
                raise RuntimeError("\u00e9chec" + "\u20ac" * 2000)

            s.schedule(chime.Job("g", "u", "py-utf8", durable=True,
                                 forbid_concurrency=True),
                       chime.Simple(interval_ms=100, repeat=2, group="g",
                                    name="u", start=int(time.time() * 1000)
                                    + 300))
            self.assertTrue(done.wait(30), "runs: %r" % runs)
        self.assertEqual(len(runs), 3)
        # Issue 22, finding 5: the three-valued answer; True while owned.
        self.assertEqual(owned, [True] * 3)

    def test_every_node_schedules_the_same_jobs_at_start_up(self):
        # Issue 13: the replicated-server pattern.  Three nodes of one
        # cluster schedule the same job and trigger at once with
        # if_absent: each gets no error, one copy is stored, and the
        # stored definition is the first one's.
        nodes = [chime.Scheduler(url=url() if i == 0 else url("")
                                 .replace("&clear=1", ""),
                                 name="py-startup", instance_id=f"up-{i}")
                 for i in range(3)]
        try:
            firsts = self.at_once(3, lambda i: nodes[i].schedule(
                chime.Job("app", "report", "report", durable=True),
                chime.Cron("0 0 2 * * ?", group="app", name="nightly"),
                if_absent=True))
            self.assertEqual(len(set(firsts)), 1)
            self.assertEqual(nodes[0].list_triggers("app"),
                             [("app", "nightly")])
            # A new definition on restart: replace_existing wins.
            nodes[1].schedule(
                chime.Job("app", "report", "report", durable=True),
                chime.Cron("0 30 4 * * ?", group="app", name="nightly"),
                replace_existing=True)
            nxt = chime.ms_to_datetime(
                nodes[2].trigger_info("app", "nightly")["next_fire_ms"])
            self.assertEqual((nxt.hour, nxt.minute), (4, 30))
        finally:
            for n in nodes:
                n.close()

    def test_backfill_200_fires_over_3_nodes_each_once(self):
        # Issue 23: three nodes ask for the same backfill of 200 past
        # minutes at once; every fire runs exactly once in the cluster,
        # with its original scheduled time, marked as a backfill.
        nodes = [chime.Scheduler(url=url() if i == 0 else url("")
                                 .replace("&clear=1", ""),
                                 name="py-backfill", instance_id=f"bf-{i}",
                                 workers=4)
                 for i in range(3)]
        lock = threading.Lock()
        runs = []
        try:
            for i, n in enumerate(nodes):
                def run(ctx, i=i):
                    with lock:
                        runs.append((ctx.scheduled_ms, ctx.backfill, i))
                n.register("bf-type", run)
            minute = 60000
            now = int(time.time() * 1000)
            top = now - now % minute
            first = top - 200 * minute
            nodes[0].schedule(
                chime.Job("app", "bf", "bf-type", durable=True),
                chime.Cron("0 * * * * ?", group="app", name="minutely",
                           start=first, misfire="do_nothing"))
            counts = self.at_once(3, lambda i: nodes[i].backfill(
                "app", "minutely", first, top - minute))
            self.assertEqual(counts, [200, 200, 200])
            for n in nodes:
                n.start()
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                with lock:
                    if sum(1 for r in runs if r[1]) >= 200:
                        break
                time.sleep(0.1)
            with lock:
                done = sorted(r[0] for r in runs if r[1])
            # Each fire exactly once, at its original time.  Which nodes ran
            # them is the claim race's choice: one node may win them all.
            self.assertEqual(done, [first + k * minute for k in range(200)])
        finally:
            for n in nodes:
                n.close()

    def test_wrong_password_is_auth_error(self):
        base = os.environ["CHIME_TEST_MYSQL_URL"]
        scheme, rest = base.split("://", 1)
        creds, host = rest.split("@", 1)
        bad = "%s://%s:wrong-password@%s" % (scheme, creds.split(":")[0],
                                             host)
        with self.assertRaises(chime.StoreConnectionError) as cm:
            chime.Scheduler(url=bad)
        self.assertIsInstance(cm.exception, chime.AuthError)
        self.assertNotIn("wrong-password", str(cm.exception))

    def test_unreachable_server_is_connection_error(self):
        with self.assertRaises(chime.StoreConnectionError) as cm:
            chime.Scheduler(url="mysql://u:p@127.0.0.1:1/db")
        self.assertEqual(cm.exception.code, -11)

    def test_lease_between_two_nodes_one_clock_skewed(self):
        """Two nodes (never started), one ten minutes ahead: the lease lasts
        at_most by the database's clock for both; tokens grow across them."""
        base = os.environ["CHIME_TEST_MYSQL_URL"]
        sep = "&" if "?" in base else "?"
        skewed = (base + sep + "auto_create=1&prefix=chime_py_"
                  "&test_clock_offset_ms=600000")
        a_owner = chime.Scheduler(url(), log=False)
        b = chime.Scheduler(skewed, log=False)
        try:
            start = time.monotonic()
            lease = b.acquire_lease("py-shared", at_most=0.8)
            with self.assertRaises(chime.Busy):
                a_owner.acquire_lease("py-shared", at_most=0.8)
            with a_owner.lease("py-shared", at_most=30, wait=20) as token:
                self.assertGreaterEqual(time.monotonic() - start, 0.75)
                self.assertGreater(token, lease.token)
                self.assertFalse(lease.still_held())
                with self.assertRaises(chime.NotOwner):
                    lease.extend(1)
            lease.close()
        finally:
            b.close()
            a_owner.close()


if __name__ == "__main__":
    unittest.main()
