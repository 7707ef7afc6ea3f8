"""test_policies: run policies from Python on the memory store (meson suite
'unit'): Scheduler.interrupt, interrupt_fire, a job's timeout_ms,
JobContext.wait_cancelled and the outcome listeners see.

Every wait is on a threading.Event with a generous deadline.
"""

import threading
import time
import unittest

import chime

WAIT_S = 20.0


class Policies(unittest.TestCase):
    def setUp(self):
        self.sched = chime.Scheduler(url="memory:", workers=2,
                                     checkin_interval_ms=200,
                                     cancel_grace_ms=60000)
        self.addCleanup(self.sched.close)
        self.started = threading.Event()
        self.done = threading.Event()
        self.outcome = []
        self.fire_ids = []

        @self.sched.job("polite")
        def polite(ctx):
            self.fire_ids.append(ctx.fire_id)
            self.started.set()
            told = ctx.wait_cancelled(30000)
            self.outcome.append(("told", told, ctx.cancelled))

        def heard(ev):
            self.outcome.append((ev.error, ev.message))
            self.done.set()

        self.sched.add_listener(heard, chime.EVENT_JOB_WAS_EXECUTED)
        self.sched.start()

    def test_interrupt_by_key(self):
        self.sched.add_job(chime.Job("g", "p", "polite", durable=True))
        self.assertEqual(self.sched.interrupt("g", "p"), 0)
        self.sched.trigger_job("g", "p")
        self.assertTrue(self.started.wait(WAIT_S))
        self.assertEqual(self.sched.interrupt("g", "p"), 1)
        self.assertTrue(self.done.wait(WAIT_S))
        self.assertEqual(self.outcome[0], ("told", True, True))
        self.assertEqual(self.outcome[1],
                         (chime.Cancelled.code, "cancelled"))

    def test_interrupt_fire(self):
        self.sched.add_job(chime.Job("g", "p", "polite", durable=True))
        with self.assertRaises(chime.NotFound):
            self.sched.interrupt_fire(123456789)
        with self.assertRaises(chime.InvalidArgument):
            self.sched.interrupt_fire(0)
        self.sched.trigger_job("g", "p")
        self.assertTrue(self.started.wait(WAIT_S))
        self.sched.interrupt_fire(self.fire_ids[0])
        self.assertTrue(self.done.wait(WAIT_S))
        self.assertEqual(self.outcome[1][0], chime.Cancelled.code)

    def test_timeout(self):
        job = chime.Job("g", "t", "polite", durable=True, timeout_ms=200)
        self.assertEqual(job.timeout_ms, 200)
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "t", "polite", timeout_ms=-1)
        self.sched.add_job(job)
        self.sched.trigger_job("g", "t")
        self.assertTrue(self.done.wait(WAIT_S))
        self.assertEqual(self.outcome[0], ("told", True, True))
        self.assertEqual(self.outcome[1],
                         (chime.TimedOut.code, "timed out after 200 ms"))

    def test_concurrency(self):
        self.assertEqual(int(chime.Concurrency.FORBID_SKIP), 2)
        self.assertEqual(chime.Concurrency.FORBID, chime.Concurrency.FORBID_QUEUE)
        job = chime.Job("g", "s", "polite", durable=True,
                        concurrency=chime.Concurrency.FORBID_SKIP)
        self.sched.add_job(job)
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "s", "polite", concurrency=9)

    def test_trigger_timeout(self):
        self.sched.add_job(chime.Job("g", "tt", "polite", durable=True))
        t = chime.Simple(interval_ms=1000, repeat=0, name="tt-once")
        self.assertIs(t.set_timeout_ms(250), t)
        self.assertEqual(t.timeout_ms, 250)
        with self.assertRaises(chime.InvalidArgument):
            t.set_timeout_ms(-1)
        self.sched.schedule(("g", "tt"), t)
        self.assertTrue(self.done.wait(WAIT_S))
        self.assertEqual(self.outcome[1],
                         (chime.TimedOut.code, "timed out after 250 ms"))

    def test_starting_deadline(self):
        job = chime.Job("g", "d", "polite", starting_deadline_ms=1500)
        self.assertEqual(job.starting_deadline_ms, 1500)
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "d", "polite", starting_deadline_ms=-1)
        self.assertEqual(chime.Missed.code, -26)

    def test_retry_timed_out(self):
        job = chime.Job("g", "rt", "polite",
                        retry=chime.Retry(3, 100, timed_out=False))
        built = job._build()
        try:
            self.assertFalse(
                chime._lib.lib.chime_retry_get_timed_out(chime._lib.lib.chime_job_get_retry(built.ptr)))
        finally:
            built.free()

    def test_queue_cap(self):
        job = chime.Job("g", "q", "polite", durable=True, queue_cap=3,
                        concurrency=chime.Concurrency.FORBID_QUEUE)
        built = job._build()
        try:
            self.assertEqual(
                chime._lib.lib.chime_job_get_queue_cap(built.ptr), 3)
        finally:
            built.free()
        self.sched.add_job(job)
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "q", "polite", queue_cap=-1)

    def test_history_level(self):
        """Issue 34: a job's history level says which runs the history
        records: FAILURES keeps the failed run only, NONE neither."""
        job = chime.Job("g", "h", "polite",
                        history_level=chime.HistoryLevel.FAILURES)
        built = job._build()
        try:
            self.assertEqual(
                chime._lib.lib.chime_job_get_history_level(built.ptr),
                int(chime.HistoryLevel.FAILURES))
        finally:
            built.free()
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "h", "polite", history_level=5)
        ran = {}
        both = threading.Event()

        @self.sched.job("flaky")
        def flaky(ctx):
            if ctx.data == b"fail":
                ctx.fail("it failed")

        def seen(ev):
            if ev.job_key in (("g", "f"), ("g", "n")):
                ran[(ev.job_key, ev.error)] = True
                if len(ran) == 4:
                    both.set()

        self.sched.add_listener(seen, chime.EVENT_JOB_WAS_EXECUTED)
        for name, level in (("f", chime.HistoryLevel.FAILURES),
                            ("n", chime.HistoryLevel.NONE)):
            self.sched.add_job(chime.Job("g", name, "flaky", durable=True,
                                         history_level=level))
            self.sched.trigger_job("g", name, b"ok")
            self.sched.trigger_job("g", name, b"fail")
        self.assertTrue(both.wait(WAIT_S))
        deadline = time.monotonic() + WAIT_S
        while (len(self.sched.history(job="g.f")) < 1
               and time.monotonic() < deadline):
            time.sleep(0.05)
        outcomes = [r.outcome for r in self.sched.history(job="g.f")]
        self.assertEqual(outcomes, [chime.Outcome.FAILED])
        self.assertEqual(self.sched.history(job="g.n"), [])

    def test_trigger_starting_deadline(self):
        """A trigger's starting deadline overrides its job's: a fire 5 s
        late is MISSED under the trigger's 1 s, not the job's minute."""
        missed = threading.Event()
        self.sched.add_listener(lambda ev: missed.set(),
                                chime.EVENT_JOB_MISSED)
        self.sched.add_job(chime.Job("g", "td", "polite", durable=True,
                                     starting_deadline_ms=60000))
        t = chime.Simple(interval_ms=1000, repeat=0, name="td-late",
                         start=int(time.time() * 1000) - 5000)
        self.assertIs(t.set_starting_deadline_ms(1000), t)
        self.assertEqual(t.starting_deadline_ms, 1000)
        with self.assertRaises(chime.InvalidArgument):
            t.set_starting_deadline_ms(-1)
        self.sched.schedule(("g", "td"), t)
        self.assertTrue(missed.wait(WAIT_S))
        self.assertFalse(self.started.is_set())

    def test_retry_policy(self):
        retry = chime.Retry(4, initial_delay_ms=100, multiplier=2.0,
                            max_delay_ms=1000, jitter_ms=50)
        job = chime.Job("g", "r", "polite", retry=retry)
        self.assertEqual(job.retry, retry)
        built = job._build()
        try:
            L = chime._lib.lib
            self.assertEqual(L.chime_retry_get_max_attempts(L.chime_job_get_retry(built.ptr)), 4)
            self.assertEqual(
                L.chime_retry_get_initial_delay_ms(L.chime_job_get_retry(built.ptr)), 100)
            self.assertEqual(L.chime_retry_get_multiplier(L.chime_job_get_retry(built.ptr)), 2.0)
            self.assertEqual(L.chime_retry_get_max_delay_ms(L.chime_job_get_retry(built.ptr)),
                             1000)
            self.assertEqual(L.chime_retry_get_jitter_ms(L.chime_job_get_retry(built.ptr)), 50)
        finally:
            built.free()
        for bad in (chime.Retry(-1), chime.Retry(2, multiplier=0.5),
                    chime.Retry(2, jitter_ms=-1)):
            with self.assertRaises(chime.InvalidArgument):
                chime.Job("g", "r", "polite", retry=bad)

    def test_retries_run(self):
        attempts, scheduled = [], []
        exhausted = threading.Event()

        @self.sched.job("failing")
        def failing(ctx):
            attempts.append(ctx.attempt)
            scheduled.append(ctx.scheduled_ms)
            raise RuntimeError("failing on purpose")

        self.sched.add_listener(lambda ev: exhausted.set(),
                                chime.EVENT_JOB_RETRIES_EXHAUSTED)
        self.sched.add_job(chime.Job("g", "f", "failing", durable=True,
                                     retry=chime.Retry(3,
                                                       initial_delay_ms=100)))
        self.sched.trigger_job("g", "f")
        self.assertTrue(exhausted.wait(WAIT_S))
        self.assertEqual(attempts, [1, 2, 3])
        self.assertEqual(len(set(scheduled)), 1)

    def test_event_kind(self):
        self.assertEqual(int(chime.EVENT_JOB_RETRIES_EXHAUSTED), 1 << 14)
        self.assertEqual(int(chime.EVENT_JOB_CANCEL_IGNORED), 1 << 12)
        self.assertEqual(int(chime.EVENT_JOB_MISSED), 1 << 13)
        self.assertTrue(chime.EVENT_ALL & chime.EVENT_JOB_CANCEL_IGNORED)


if __name__ == "__main__":
    unittest.main()
