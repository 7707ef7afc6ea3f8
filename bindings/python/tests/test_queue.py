"""test_queue: runs handed in from Python (Scheduler.enqueue,
enqueue_many, trigger_job(request_key=...); docs/queue.md) on the memory
store; test_queue_mysql runs the same on MariaDB.

Each enqueued run runs once with its own data; a unique key's second
enqueue while the run waits returns the existing run (existed=True) and
stores nothing; a bulk hand-in reports each run; a request key makes a
retried trigger_job store nothing; a unique period keeps the key after
the run until it is unscheduled; a run's own retry policy is followed;
an unknown job raises NotFound.
"""

import contextlib
import threading
import time
import unittest

import chime


class QueueTests(unittest.TestCase):
    URL = "memory:"

    def scheduler(self, start=True):
        s = chime.Scheduler(url=self.URL, name="py-queue",
                            instance_id="py-queue-node", workers=4,
                            idle_wait_ms=100)
        self.seen = []
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)

        @s.job("py-queue")
        def run(ctx):
            with self.cond:
                self.seen.append(ctx.text())
                self.cond.notify_all()

        s.add_job(chime.Job("q", "j", "py-queue", durable=True))
        if start:
            s.start()
        return s

    def wait_seen(self, n):
        deadline = time.monotonic() + 30
        with self.cond:
            while len(self.seen) < n and time.monotonic() < deadline:
                self.cond.wait(0.2)
            return sorted(self.seen)

    def test_enqueue_runs_once_each(self):
        with self.scheduler() as s:
            a = s.enqueue("q", "j", data="a", priority=7)
            self.assertFalse(a.existed)
            self.assertEqual(a.key[0], chime.QUEUE_GROUP)
            runs = s.enqueue_many("q", "j", [{"data": "b"}, {"data": "c"},
                                             {"data": "d", "unique_key": "x"},
                                             {"data": "e", "unique_key": "x"}])
            self.assertEqual([r.existed for r in runs],
                             [False, False, False, True])
            self.assertEqual(runs[2].name, "K_x")
            self.assertEqual(self.wait_seen(4), ["a", "b", "c", "d"])
            time.sleep(0.3)  # nothing more comes
            self.assertEqual(len(self.seen), 4)

    def test_unique_key_while_waiting(self):
        # closing(), not the scheduler's own with: that would start it, and
        # a run could end (its key free again) between the checks below.
        with contextlib.closing(self.scheduler(start=False)) as s:
            first = s.enqueue("q", "j", data="1", unique_key="k1")
            again = s.enqueue("q", "j", data="2", unique_key="k1")
            self.assertFalse(first.existed)
            self.assertTrue(again.existed)
            self.assertEqual(first.name, again.name)
            self.assertTrue(s.trigger_job("q", "j", data="t",
                                          request_key="req-1"))
            self.assertFalse(s.trigger_job("q", "j", data="t",
                                           request_key="req-1"))
            s.start()
            self.assertEqual(self.wait_seen(2), ["1", "t"])
            # Done: the key is free again.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if not s.enqueue("q", "j", data="3",
                                 unique_key="k1").existed:
                    break
                time.sleep(0.05)
            self.assertEqual(self.wait_seen(3), ["1", "3", "t"])

    def test_unique_for_after_the_run(self):
        with contextlib.closing(self.scheduler(start=False)) as s:
            first = s.enqueue("q", "j", data="u", unique_key="held",
                              unique_for_ms=3_600_000)
            self.assertFalse(first.existed)
            s.start()
            self.assertEqual(self.wait_seen(1), ["u"])
            # Ran: its key stays taken for its hour.
            again = s.enqueue("q", "j", data="v", unique_key="held")
            self.assertTrue(again.existed)
            self.assertEqual(again.name, first.name)
            # Unscheduled: free at once.
            s.unschedule(*first.key)
            self.assertFalse(s.enqueue("q", "j", data="w",
                                       unique_key="held").existed)
            self.assertEqual(sorted(self.wait_seen(2)), ["u", "w"])
            with self.assertRaises(chime.InvalidArgument):
                s.enqueue("q", "j", unique_for_ms=1000)  # needs a key
            with self.assertRaises(chime.InvalidArgument):
                s.enqueue("q", "j", unique_key="k", unique_for_ms=-1)

    def test_run_retry_policy(self):
        attempts = []
        done = threading.Event()
        with contextlib.closing(self.scheduler(start=False)) as s:
            @s.job("flaky")
            def flaky(ctx):
                attempts.append(ctx.attempt)
                if ctx.attempt < 3:
                    raise RuntimeError("not yet")
                done.set()

            # The job has no retries; this run has its own 3 attempts.
            s.add_job(chime.Job("q", "flaky", "flaky", durable=True))
            s.enqueue("q", "flaky", unique_key="flaky-1",
                      retry=chime.Retry(3, initial_delay_ms=50))
            s.start()
            self.assertTrue(done.wait(30))
            self.assertEqual(attempts, [1, 2, 3])
            with self.assertRaises(chime.InvalidArgument):
                s.enqueue("q", "flaky", retry=chime.Retry(-1))

    def test_run_later_and_cancel(self):
        with self.scheduler() as s:
            later = s.enqueue("q", "j", data="later",
                              run_at=int(time.time() * 1000) + 3_600_000,
                              partition_key="tenant-7")
            s.unschedule(*later.key)
            with self.assertRaises(chime.NotFound):
                s.enqueue("q", "nope", data="x")
            with self.assertRaises(chime.InvalidArgument):
                s.enqueue("q", "j", unique_key="")
            with self.assertRaises(chime.InvalidArgument):
                s.enqueue("q", "j", partition_key="")
            time.sleep(0.3)
            self.assertEqual(self.seen, [])


if __name__ == "__main__":
    unittest.main()
