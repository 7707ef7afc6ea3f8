"""test_observe: metrics, alert events and the structured log through the
Python binding (meson suite 'unit', memory store).

The Prometheus text is read with a real parser: prometheus_client's, from
Debian's python3-prometheus-client (./dev setup installs it).  When the
interpreter running the tests is not Debian's own, the package's directory
is added to the path; a missing package is a failure, never a skip.
"""

import logging
import sys
import threading
import time
import unittest

import chime
from support import WAIT_S, wait_for

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")
    from prometheus_client.parser import text_string_to_metric_families

class Capture(logging.Handler):
    """Keeps every record the "chime" logger passes on."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.mu = threading.Lock()
        self.records = []

    def emit(self, record):
        with self.mu:
            self.records.append(record)

    def of(self, event):
        with self.mu:
            return [r for r in self.records
                    if getattr(r, "chime_event", None) == event]


def samples(text):
    """{(sample name, frozenset of labels): value} from Prometheus text."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def register_ok_and_bad(sched):
    """Job types "ok" (passes) and "bad" (raises "boom")."""
    @sched.job("ok")
    def ok(ctx):
        pass

    @sched.job("bad")
    def bad(ctx):
        raise RuntimeError("boom")


def run_ok_and_bad(sched, ok_repeat, bad_repeat):
    """Runs job g.ok (trigger t.ok, passes) 1 + ok_repeat times and g.bad
    (t.bad, raises "boom") 1 + bad_repeat times, 20 ms apart, then shuts
    sched down.  Returns whether every run ended in time."""
    done = threading.Event()
    count = [0]
    register_ok_and_bad(sched)

    def listener(ev):
        if ev.kind == chime.EventKind.JOB_WAS_EXECUTED:
            count[0] += 1
            if count[0] >= 2 + ok_repeat + bad_repeat:
                done.set()

    sched.add_listener(listener)
    sched.schedule(chime.Job("g", "ok", "ok"),
                   chime.Simple(interval_ms=20, repeat=ok_repeat,
                                group="t", name="ok"))
    sched.schedule(chime.Job("g", "bad", "bad"),
                   chime.Simple(interval_ms=20, repeat=bad_repeat,
                                group="t", name="bad"))
    sched.start()
    ended = done.wait(WAIT_S)
    sched.shutdown(wait=True)
    return ended


class Metrics(unittest.TestCase):
    def test_prometheus_text_parses_and_counts_runs(self):
        with chime.Scheduler(workers=4, instance_id="py-node",
                             log=False) as sched:
            self.assertTrue(run_ok_and_bad(sched, ok_repeat=1, bad_repeat=1))
            text = sched.metrics_text()
            self.assertEqual(sched.runs("g", "ok", chime.Outcome.OK), 2)
            self.assertEqual(sched.runs("g", "bad", chime.Outcome.FAILED), 2)
        got = samples(text)
        base = {("scheduler", "chime"), ("node", "py-node")}

        def value(name, **labels):
            return got[(name, frozenset(base | set(labels.items())))]

        self.assertEqual(value("chime_runs_total", job="g.ok", outcome="OK"), 2)
        self.assertEqual(
            value("chime_runs_total", job="g.bad", outcome="FAILED"), 2)
        self.assertEqual(
            value("chime_runs_total", job="g.ok", outcome="TIMED_OUT"), 0)
        self.assertEqual(value("chime_runs_started_total"), 4)
        self.assertGreaterEqual(value("chime_fires_claimed_total"), 4)
        self.assertEqual(value("chime_fire_lateness_seconds_count"), 4)
        self.assertEqual(
            value("chime_fire_lateness_seconds_bucket", le="+Inf"), 4)
        self.assertEqual(value("chime_run_duration_seconds_count"), 4)
        self.assertEqual(value("chime_workers"), 4)
        self.assertEqual(value("chime_store_down"), 0)
        self.assertEqual(value("chime_node_info"), 1)
        # Buckets are cumulative and end at the count.
        buckets = sorted(
            (float(dict(k[1])["le"]), v) for k, v in got.items()
            if k[0] == "chime_run_duration_seconds_bucket")
        self.assertEqual(buckets[-1], (float("inf"), 4))
        self.assertEqual([v for _, v in buckets],
                         sorted(v for _, v in buckets))


class History(unittest.TestCase):
    def test_history_keeps_a_runs_own_data(self):
        with chime.Scheduler(workers=2, instance_id="py-hist-data",
                             log=False) as sched:
            register_ok_and_bad(sched)
            sched.add_job(chime.Job("g", "bad", "bad", durable=True,
                                    data=b"job's"))
            sched.start()
            sched.trigger_job("g", "bad", data=b"\x00own\xff")
            sched.trigger_job("g", "bad")
            self.assertTrue(wait_for(lambda: len(sched.history()) == 2))
            sched.shutdown(wait=True)
            got = sorted((r.data for r in sched.history()),
                         key=lambda d: d or b"")
            # The fire-now's data as given; the one without read the job's
            # and records none.
            self.assertEqual(got, [None, b"\x00own\xff"])

    def test_history_filters_and_pages(self):
        with chime.Scheduler(workers=2, instance_id="py-hist",
                             log=False) as sched:
            before = int(time.time() * 1000)
            self.assertTrue(run_ok_and_bad(sched, ok_repeat=2, bad_repeat=1))
            # The run's record is written after its listener: wait for it.
            self.assertTrue(wait_for(lambda: len(sched.history()) == 5))
            runs = sched.history()
            self.assertEqual(sorted(r.job_key for r in runs),
                             [("g", "bad")] * 2 + [("g", "ok")] * 3)
            ids = [r.id for r in runs]
            self.assertEqual(ids, sorted(ids, reverse=True))  # newest first
            bad_runs = sched.history(job="g.bad")
            self.assertEqual(len(bad_runs), 2)
            r = bad_runs[0]
            self.assertIsInstance(r, chime.HistoryRecord)
            self.assertEqual(r.outcome, chime.Outcome.FAILED)
            self.assertEqual(r.trigger_key, ("t", "bad"))
            self.assertEqual((r.job_group, r.job_name), ("g", "bad"))
            self.assertEqual((r.trigger_group, r.trigger_name), ("t", "bad"))
            self.assertEqual(r.node, "py-hist")
            self.assertEqual(r.error, -23)  # CHIME_EJOBFAILED
            self.assertIn("boom", r.message or "")
            self.assertGreater(r.fire_id, 0)
            self.assertFalse(r.recovering)
            self.assertLessEqual(r.scheduled_ms, r.started_ms)
            self.assertLessEqual(r.started_ms, r.finished_ms)
            self.assertEqual(len(sched.history(trigger=("t", "ok"))), 3)
            self.assertEqual(len(sched.history(outcome="failed")), 2)
            self.assertEqual(
                len(sched.history(job=chime.Job("g", "ok", "ok"),
                                  outcome=chime.Outcome.OK)), 3)
            self.assertEqual(len(sched.history(since=before)), 5)
            self.assertEqual(sched.history(until=before), [])
            self.assertEqual(sched.history(since=runs[0].started_ms + 1), [])
            # Paging: two at a time, by the last record's id.
            pages, cursor = [], 0
            while True:
                page = sched.history(before_id=cursor, limit=2)
                if not page:
                    break
                pages.append(page)
                cursor = page[-1].id
            self.assertEqual([len(p) for p in pages], [2, 2, 1])
            self.assertEqual([r.id for p in pages for r in p], ids)
            for bad_args in ({"job": "nodot"}, {"outcome": "bogus"},
                             {"limit": 0}, {"limit": 1001}):
                with self.assertRaises(chime.InvalidArgument, msg=bad_args):
                    sched.history(**bad_args)


class StructuredLog(unittest.TestCase):
    def test_misfire_reaches_logging_with_extra_fields(self):
        log = logging.getLogger("chime")
        capture = Capture()
        log.addHandler(capture)
        old = log.level
        log.setLevel(logging.INFO)
        events = []
        try:
            # Not "with": entering would start it at once.
            sched = chime.Scheduler(instance_id="py-log-node",
                                    misfire_threshold_ms=100)
            try:
                register_ok_and_bad(sched)
                sched.add_listener(events.append,
                                   chime.EventKind.TRIGGER_MISFIRED)
                start = int(time.time() * 1000) + 50
                sched.schedule(chime.Job("g", "late", "ok"),
                               chime.Simple(
                                   repeat=0, group="t", name="late",
                                   start=start,
                                   misfire="reschedule_next_remaining_count"))
                sched.schedule(chime.Job("g", "bad", "bad"),
                               chime.Simple(repeat=0, group="t", name="bad"))
                time.sleep(0.6)  # a late start: the fire time passes
                sched.start()
                self.assertTrue(wait_for(
                    lambda: len(capture.of("TRIGGER_MISFIRED")) >= 2
                    and capture.of("RUN_FAILED")))
            finally:
                sched.close()
        finally:
            log.removeHandler(capture)
            log.setLevel(old)
        # t.bad's fire time passed during the standby too.
        recs = [r for r in capture.of("TRIGGER_MISFIRED")
                if r.chime_trigger == "t.late"]
        self.assertEqual(len(recs), 1)
        rec = recs[0]
        self.assertEqual(rec.chime_job, "g.late")
        self.assertEqual(rec.chime_node, "py-log-node")
        self.assertIn("misfired", rec.getMessage())
        failed = capture.of("RUN_FAILED")[0]
        self.assertEqual(failed.chime_job, "g.bad")
        self.assertGreater(failed.chime_fire_id, 0)
        self.assertEqual(failed.chime_error, -23)  # CHIME_EJOBFAILED
        events = [e for e in events if e.trigger_key == ("t", "late")]
        self.assertEqual(len(events), 1)
        self.assertEqual(events[0].node, "py-log-node")
        self.assertGreaterEqual(events[0].lateness_ms, 400)
        self.assertEqual(events[0].misfire_policy,
                         chime.Misfire.RESCHEDULE_NEXT_REMAINING_COUNT)


if __name__ == "__main__":
    unittest.main()
