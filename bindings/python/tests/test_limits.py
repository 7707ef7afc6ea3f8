"""test_limits: the limits of job types from Python on the memory store
(meson suite 'unit'; docs/queue.md, "Limits"): Scheduler.set_limit,
get_limit (with the per-partition half: partition_rate, partition_field),
clear_limit and Trigger.set_partition_key, with runs that overlap no more
than the limit allows.

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
                          "rate": (10, 1000), "partition_rate": None,
                          "partition_field": None})
        with self.assertRaises(chime.InvalidArgument):
            self.sched.set_limit("export")
        with self.assertRaises(chime.InvalidArgument):
            self.sched.set_limit("export", rate=(10, 0))
        self.assertTrue(self.sched.clear_limit("export"))
        self.assertFalse(self.sched.clear_limit("export"))

    def test_partition_half(self):
        self.sched.set_limit("export", max_per_partition=1,
                             partition_rate=(5, 1000),
                             partition_field="tenant")
        self.assertEqual(self.sched.get_limit("export"),
                         {"max_running": 0, "max_per_partition": 1,
                          "rate": None, "partition_rate": (5, 1000),
                          "partition_field": "tenant"})
        # The whole limit is replaced: the partition half goes too.
        self.sched.set_limit("export", max_running=3)
        self.assertEqual(self.sched.get_limit("export"),
                         {"max_running": 3, "max_per_partition": 0,
                          "rate": None, "partition_rate": None,
                          "partition_field": None})
        self.sched.set_limit("export", partition_rate=(2, 100))
        self.assertEqual(self.sched.get_limit("export")["max_running"], 0)
        self.assertEqual(self.sched.get_limit("export")["partition_rate"],
                         (2, 100))
        with self.assertRaises(chime.InvalidArgument):
            self.sched.set_limit("export", partition_rate=(2, 0))
        with self.assertRaises(chime.InvalidArgument):
            self.sched.set_limit("export", partition_field="")

    def test_partition_from_data(self):
        # At most one run per tenant at a time, the tenant from the data.
        self.sched.set_limit("export", partition_field="tenant",
                             max_per_partition=1)
        self.sched.add_job(chime.Job("g", "e", "export", durable=True))
        for i in range(6):
            self.sched.enqueue("g", "e", data=b'{"tenant": "t%d"}' % (i % 2))
        self.sched.start()
        self.assertTrue(self.all_done.wait(WAIT_S))
        self.assertLessEqual(self.most, 2)

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
