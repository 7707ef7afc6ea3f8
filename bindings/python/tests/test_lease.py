"""test_lease: named leases from Python on the memory store (meson suite
'unit'): the context manager, the decorator, Lease objects, keep-alive.
Waits poll with generous deadlines; nothing depends on a bare sleep."""

import datetime
import threading
import time
import unittest

import chime
from support import WAIT_S, wait_for

class LeaseTest(unittest.TestCase):
    def setUp(self):
        # Never started: leases need no running scheduler.
        self.sched = chime.Scheduler("memory:", log=False)

    def tearDown(self):
        self.sched.close()

    def test_with_yields_a_token_and_busy_skips(self):
        with self.sched.lease("report", at_most=30, at_least=0) as token:
            self.assertGreaterEqual(token, 1)
            with self.assertRaises(chime.Busy):
                with self.sched.lease("report", at_most=30):
                    self.fail("entered a held lease")
        with self.sched.lease("report", at_most=datetime.timedelta(
                seconds=30)) as later:
            self.assertGreater(later, token)

    def test_decorator_runs_only_when_acquired(self):
        runs = []

        @self.sched.lease("nightly", at_most=30)
        def nightly(x):
            runs.append(x)
            return x * 2

        self.assertEqual(nightly(21), 42)
        held = self.sched.acquire_lease("nightly", at_most=30)
        self.assertIsNone(nightly(1))  # held elsewhere: skipped
        held.close()
        self.assertEqual(nightly(2), 4)
        self.assertEqual(runs, [21, 2])

        @self.sched.with_lease("quick", at_most=30, at_least=30)
        def quick():
            return "ran"
        self.assertEqual(quick(), "ran")
        self.assertIsNone(quick())  # at_least keeps the lease after it ran

    def test_lease_object(self):
        lease = self.sched.acquire_lease("obj", at_most_ms=300)
        self.assertTrue(lease.still_held())
        self.assertEqual(lease.name, "obj")
        self.assertTrue(wait_for(lambda: not lease.still_held()))
        with self.assertRaises(chime.NotOwner):
            lease.extend(1)
        with self.assertRaises(chime.NotOwner):
            lease.release()
        other = self.sched.acquire_lease("obj", at_most=30)
        self.assertGreater(other.token, lease.token)
        lease.close()
        other.release()
        other.close()

    def test_wait_for_release(self):
        held = self.sched.acquire_lease("queue", at_most=30)
        got = {}

        def waiter():
            with self.sched.lease("queue", at_most=30, wait=WAIT_S) as tok:
                got["token"] = tok

        t = threading.Thread(target=waiter)
        t.start()
        held.release()
        t.join(WAIT_S)
        self.assertGreater(got.get("token", 0), held.token)
        held.close()

    def test_keep_alive(self):
        with self.sched.lease("kept", at_most=0.6, keep_alive=True):
            start = time.monotonic()
            while time.monotonic() - start < 1.8:
                with self.assertRaises(chime.Busy):
                    self.sched.acquire_lease("kept", at_most=1)
                time.sleep(0.1)

    def test_bad_arguments(self):
        with self.assertRaises(chime.InvalidArgument):
            self.sched.acquire_lease("x", at_most=0)
        with self.assertRaises(chime.InvalidArgument):
            self.sched.acquire_lease("x", at_most=1, at_least=2)
        with self.assertRaises(chime.InvalidArgument):
            self.sched.acquire_lease("", at_most=1)
        with self.assertRaises(TypeError):
            self.sched.acquire_lease("x", at_most="1s")

    def test_close_frees_open_leases(self):
        sched = chime.Scheduler("memory:", log=False)
        lease = sched.acquire_lease("left-open", at_most=30)
        sched.close()
        self.assertFalse(lease.still_held())


if __name__ == "__main__":
    unittest.main()
