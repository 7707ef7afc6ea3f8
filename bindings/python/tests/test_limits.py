"""test_limits: the limits of job types from Python on the memory store
(meson suite 'unit'; docs/queue.md, "Limits"): Scheduler.set_limit,
get_limit, clear_limit and Trigger.set_partition_key, with runs that
overlap no more than the limit allows.

Every wait is on a threading.Event with a generous deadline.
"""

import threading
import time
import unittest

import chime

WAIT_S = 20.0


class Limits(unittest.TestCase):
    def setUp(self):
        self.sched = chime.Scheduler(url="memory:", workers=4,
                                     checkin_interval_ms=200)
        self.addCleanup(self.sched.close)
        self.mu = threading.Lock()
        self.now = self.most = self.runs = 0
        self.keys = []
        self.all_done = threading.Event()

        @self.sched.job("export")
        def export(ctx):
            with self.mu:
                self.now += 1
                self.most = max(self.most, self.now)
            time.sleep(0.05)
            with self.mu:
                self.now -= 1
                self.runs += 1
                if self.runs == 6:
                    self.all_done.set()

    def test_set_get_clear(self):
        self.assertIsNone(self.sched.get_limit("export"))
        self.sched.set_limit("export", max_running=2, max_per_partition=1,
                             rate=(10, 1000))
        self.assertEqual(self.sched.get_limit("export"),
                         {"max_running": 2, "max_per_partition": 1,
                          "rate": (10, 1000)})
        with self.assertRaises(chime.InvalidArgument):
            self.sched.set_limit("export")
        with self.assertRaises(chime.InvalidArgument):
            self.sched.set_limit("export", rate=(10, 0))
        self.assertTrue(self.sched.clear_limit("export"))
        self.assertFalse(self.sched.clear_limit("export"))

    def test_partition_key(self):
        t = chime.Simple(0, 0).set_partition_key("tenant-7")
        self.assertEqual(t.partition_key, "tenant-7")
        self.assertIsNone(t.set_partition_key(None).partition_key)
        with self.assertRaises(chime.InvalidArgument):
            t.set_partition_key("")

    def test_runs_within_the_limit(self):
        self.sched.set_limit("export", max_running=1)
        self.sched.add_job(chime.Job("g", "e", "export", durable=True))
        self.sched.start()
        for _ in range(6):
            self.sched.trigger_job("g", "e")
        self.assertTrue(self.all_done.wait(WAIT_S))
        self.assertEqual(self.most, 1)


if __name__ == "__main__":
    unittest.main()
