"""test_memory: the Python binding on the memory store (meson suite 'unit').

Every wait is on a threading.Event or a polled condition with a generous
deadline; nothing depends on a bare sleep.
"""

import datetime
import json
import threading
import time
import unittest

import chime
from support import WAIT_S, wait_for

class Recorder:
    """Collects one dict per run, under a lock; wait(n) for n runs."""

    def __init__(self):
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.runs = []

    def add(self, item):
        with self.cond:
            self.runs.append(item)
            self.cond.notify_all()

    def wait(self, n, timeout=WAIT_S):
        with self.cond:
            return self.cond.wait_for(lambda: len(self.runs) >= n, timeout)

    def count(self):
        with self.lock:
            return len(self.runs)


class TriggerConstruction(unittest.TestCase):
    def test_cron_ok(self):
        t = chime.Cron("0 0 2 * * ?", tz="Asia/Shanghai", group="g",
                       name="n", priority=7, misfire="do_nothing",
                       data={"x": 1})
        self.assertEqual(t.key, ("g", "n"))

    def test_default_names_unique(self):
        a, b = chime.Simple(interval_ms=10), chime.Simple(interval_ms=10)
        self.assertEqual(a.group, chime.DEFAULT_GROUP)
        self.assertNotEqual(a.name, b.name)

    def test_bad_cron_parse_error_with_column(self):
        with self.assertRaises(chime.ParseError) as cm:
            chime.Cron("0 0 2 * * FOO")
        err = cm.exception
        self.assertIsInstance(err, chime.Error)
        self.assertEqual(err.code, -5)
        self.assertEqual(err.name, "CHIME_EPARSE")
        self.assertIn("column 11", str(err))
        self.assertEqual(err.column, 11)

    def test_unknown_zone(self):
        with self.assertRaises(chime.UnknownZone) as cm:
            chime.Cron("0 0 2 * * ?", tz="Mars/Olympus_Mons")
        self.assertEqual(cm.exception.code, -6)
        with self.assertRaises(chime.UnknownZone):
            chime.CalendarInterval(1, "day", tz="No/Such_Zone")

    def test_simple_invalid(self):
        with self.assertRaises(chime.InvalidArgument):
            chime.Simple(interval_ms=-5, repeat=3)

    def test_calendar_interval(self):
        chime.CalendarInterval(2, "week", tz="Europe/Berlin",
                               preserve_hour_of_day=True)
        chime.CalendarInterval(1, chime.Unit.MONTH)
        with self.assertRaises(chime.InvalidArgument):
            chime.CalendarInterval(0, "day")
        with self.assertRaises(chime.InvalidArgument):
            chime.CalendarInterval(1, "fortnight")

    def test_daily(self):
        chime.DailyTimeInterval(15, "minute", window=("09:00", "17:30"),
                                days=("mon", "tue", "wed", "thu", "fri"),
                                tz="America/New_York")
        with self.assertRaises(chime.InvalidArgument):
            chime.DailyTimeInterval(1, "day")  # DAY is not a daily unit.
        with self.assertRaises(chime.InvalidArgument):
            chime.DailyTimeInterval(1, "hour", window=("9h", "10:00"))

    def test_misfire_kind_mismatch(self):
        with self.assertRaises(chime.InvalidArgument):
            chime.Cron("* * * * * ?",
                       misfire=chime.Misfire.RESCHEDULE_NOW_EXISTING_COUNT)

    def test_unknown_option(self):
        with self.assertRaises(TypeError):
            chime.Simple(interval_ms=10, colour="red")

    def test_bad_job_key(self):
        with self.assertRaises(chime.InvalidArgument) as cm:
            chime.Job("", "n", "t")
        # chime_job_new's errbuf says which part is wrong.
        self.assertIn("job group is empty", str(cm.exception))


class BadValues(unittest.TestCase):
    """Issue 22, finding 8: values the C API would store wrong are refused
    with clear exceptions."""

    def test_nul_in_names_refused(self):
        with self.assertRaises(ValueError) as cm:
            chime.Job("g", "a\x00evil", "t")
        self.assertIn("NUL", str(cm.exception))
        with self.assertRaises(ValueError):
            chime.Job("g\x00x", "a", "t")
        with self.assertRaises(ValueError):
            chime.Cron("0 0 12 * * ?", group="g", name="t\x00x")

    def test_non_str_names_refused(self):
        for bad in (5, ["a"], 1.5):
            with self.assertRaises(TypeError):
                chime.Job("g", bad, "t")
            with self.assertRaises(TypeError):
                chime.Job(bad, "j", "t")

    def test_out_of_range_integers_refused(self):
        with self.assertRaises(OverflowError):
            chime.Scheduler(workers=2**32 + 4)
        with self.assertRaises(OverflowError):
            chime.Scheduler(batch_size=-1)
        with self.assertRaises(OverflowError):
            chime.Scheduler(idle_wait_ms=2**64)

    def test_claim_ahead_range(self):
        chime.Scheduler(claim_ahead_ms=0).close()
        chime.Scheduler(claim_ahead_ms=1000).close()
        for bad in (-1, 1001):
            with self.assertRaises(chime.InvalidArgument):
                chime.Scheduler(claim_ahead_ms=bad)

    def test_latin1_description_clear_error(self):
        with self.assertRaises(chime.InvalidArgument) as cm:
            chime.Job("g", "j", "t", description=b"caf\xe9")
        self.assertIn("UTF-8", str(cm.exception))
        with self.assertRaises(chime.InvalidArgument):
            chime.Cron("0 0 12 * * ?", description=b"caf\xe9")

    def test_c1_control_in_name_refused(self):
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "next\u0085line", "t")


class CronHelpers(unittest.TestCase):
    def test_next_and_describe(self):
        after = datetime.datetime(2026, 11, 1, 4, 0,
                                  tzinfo=datetime.timezone.utc)
        times = chime.cron_next("0 30 * * * ?", tz="America/New_York",
                                after=after, count=4)
        got = [chime.ms_to_datetime(t).strftime("%H:%M") for t in times]
        # 01:30 happens twice in New York on 2026-11-01 (EDT, then EST).
        self.assertEqual(got, ["04:30", "05:30", "06:30", "07:30"])
        self.assertEqual(chime.describe_cron("0 15 10 ? * MON-FRI"),
                         "at 10:15:00, on Monday-Friday")
        self.assertEqual(chime.cron_next("0 0 0 1 1 ? 2001"), [])
        with self.assertRaises(chime.ParseError):
            chime.describe_cron("0 0 12 ? * MON#6")
        with self.assertRaises(chime.UnknownZone):
            chime.cron_next("* * * * * ?", tz="Nowhere/Land")

    def test_unix_cron(self):
        after = datetime.datetime(2026, 3, 27, tzinfo=datetime.timezone.utc)
        times = chime.cron_next("30 2 * * 1-5", tz="Europe/Paris", unix=True,
                                after=after, count=2)
        self.assertEqual([chime.ms_to_datetime(t).strftime("%d %H:%M")
                          for t in times], ["27 01:30", "30 00:30"])
        # CRON_TZ= names the zone; the dialect is chosen, never guessed.
        self.assertEqual(chime.cron_next("CRON_TZ=America/New_York @daily",
                                         unix=True, after=after, count=1),
                         [1774584000000])
        self.assertEqual(chime.describe_cron("0 0 13 * 5", unix=True),
                         "at 00:00:00, on day 13 of the month or on Friday")
        with self.assertRaises(chime.ParseError):
            chime.cron_next("30 2 * * 1-5")
        t = chime.UnixCron("30 2 * * 1-5", tz="Europe/Paris", group="g",
                           name="u")
        self.assertEqual(t.key, ("g", "u"))
        with self.assertRaises(chime.ParseError):
            chime.UnixCron("0 30 2 * * 1-5")

    def test_rrule(self):
        text = ("DTSTART;TZID=Europe/Paris:20260105T090000 "
                "RRULE:FREQ=MONTHLY;BYDAY=-1FR")
        self.assertEqual(chime.rrule_next(text, after=0, count=3),
                         [1767600000000, 1769760000000, 1772179200000])
        with self.assertRaises(chime.ParseError):
            chime.rrule_next("RRULE:FREQ=DAILY")
        t = chime.Recurrence(text, group="g", name="r", misfire="do_nothing")
        self.assertEqual((t.key, t.kind), (("g", "r"),
                                           chime.TriggerKind.RECURRENCE))
        with self.assertRaises(chime.ParseError):
            chime.Recurrence("RRULE:FREQ=DAILY")

    def test_jitter(self):
        off = chime.jitter_offset_ms("etl", "cal", 600000)
        self.assertEqual(off, 35068)  # FNV-1a 64 of "etl" 0x00 "cal" mod J
        self.assertEqual(chime.cron_next("0 2 * * *", unix=True, after=0,
                                         count=2, jitter_ms=600000,
                                         key=("etl", "cal")),
                         [7235068, 93635068])
        t = chime.Cron("0 0 2 * * ?", jitter_ms=600000)
        self.assertEqual(t.jitter_ms, 600000)
        with self.assertRaises(chime.InvalidArgument):
            chime.Simple(interval_ms=10, jitter_ms=1000)


class MemoryScheduler(unittest.TestCase):
    def setUp(self):
        self.sched = chime.Scheduler(url="memory:", workers=2,
                                     name="py-test", instance_id="py-1")
        self.addCleanup(self.sched.close)

    def test_metadata_and_lifecycle(self):
        s = self.sched
        self.assertEqual(s.name, "py-test")
        self.assertEqual(s.instance_id, "py-1")
        self.assertEqual(s.state, chime.STANDBY)
        with s:
            self.assertEqual(s.state, chime.STARTED)
        self.assertEqual(s.state, chime.SHUTDOWN)
        self.assertTrue(s.closed)
        with self.assertRaises(chime.ShutdownError):
            s.start()

    def test_bad_url(self):
        with self.assertRaises(chime.Error) as cm:
            chime.Scheduler(url="nosuch://x")
        self.assertIn(cm.exception.code, (-20, -16))

    def test_backfill(self):
        rec = Recorder()

        @self.sched.job("bf-type")
        def run(ctx):
            rec.add((ctx.scheduled_ms, ctx.backfill, ctx.trigger_key))

        now = int(time.time() * 1000)
        hour = 3600000
        job = chime.Job("grp", "bf", "bf-type", durable=True)
        trig = chime.Cron("0 0 * * * ?", group="tg", name="hourly",
                          start=now - 10 * hour)
        self.sched.schedule(job, trig)
        top = now - now % hour
        want = [top - k * hour for k in range(5, 0, -1)]
        self.assertEqual(self.sched.backfill("tg", "hourly", want[0],
                                             want[-1]), 5)
        # Asked again before it ran: each fire exists once.
        self.assertEqual(self.sched.backfill("tg", "hourly", want[0],
                                             want[-1]), 5)
        self.assertEqual(len(self.sched.list_triggers(chime.BACKFILL_GROUP)), 5)
        self.sched.start()
        self.assertTrue(rec.wait(5))
        self.assertTrue(wait_for(lambda: not self.sched.list_triggers(
            chime.BACKFILL_GROUP)))
        runs = sorted(r for r in rec.runs if r[1])
        self.assertEqual([r[0] for r in runs], want)
        self.assertTrue(all(r[2][0] == chime.BACKFILL_GROUP for r in runs))
        with self.assertRaises(chime.NotFound):
            self.sched.backfill("tg", "nosuch", 0, now)

    def test_backfill_cancel(self):
        job = chime.Job("grp", "bf2", "bf-type", durable=True)
        trig = chime.Cron("0 * * * * ?", group="tg", name="minutely",
                          start=0)
        self.sched.schedule(job, trig)
        self.assertEqual(self.sched.backfill("tg", "minutely", 0, 599999), 10)
        self.assertEqual(self.sched.backfill_cancel("tg", "minutely"), 10)
        self.assertEqual(self.sched.list_triggers(chime.BACKFILL_GROUP), [])

    def test_backfill_paced_then_cancelled(self):
        # One fire a minute: the first runs at once, with its original
        # time; the cancel removes the nine not released yet.
        rec = Recorder()

        @self.sched.job("bf-paced")
        def run(ctx):
            rec.add((ctx.scheduled_ms, ctx.backfill))

        job = chime.Job("grp", "bf3", "bf-paced", durable=True)
        trig = chime.Cron("0 * * * * ?", group="tg", name="paced",
                          start=4102444800000)  # never by itself here
        self.sched.schedule(job, trig)
        with self.assertRaises(chime.InvalidArgument):
            self.sched.backfill("tg", "paced", 0, 599999, pace_ms=-1)
        self.assertEqual(self.sched.backfill("tg", "paced", 60000, 659999,
                                             pace_ms=60000), 10)
        nexts = sorted(self.sched.trigger_info(*k)["next_fire_ms"]
                       for k in self.sched.list_triggers(chime.BACKFILL_GROUP))
        self.assertEqual([b - a for a, b in zip(nexts, nexts[1:])],
                         [60000] * 9)
        self.sched.start()
        self.assertTrue(rec.wait(1))
        # The first fire done (its one-shot trigger gone), the rest waits.
        self.assertTrue(wait_for(lambda: len(self.sched.list_triggers(
            chime.BACKFILL_GROUP)) == 9))
        self.assertEqual(self.sched.backfill_cancel("tg", "paced"), 9)
        self.assertEqual(rec.runs, [(60000, True)])

    def test_schedule_and_run_with_context(self):
        rec = Recorder()
        start = int(time.time() * 1000) + 200

        @self.sched.job("ctx-type")
        def run(ctx):
            rec.add(dict(job=ctx.job_key, trigger=ctx.trigger_key,
                         type=ctx.job_type, sched_ms=ctx.scheduled_ms,
                         sched_dt=ctx.scheduled_time, fire_ms=ctx.fire_ms,
                         fire_id=ctx.fire_id, recovering=ctx.recovering,
                         times=ctx.times_triggered, data=ctx.data,
                         json=ctx.json(), job_data=ctx.job_data,
                         owned=ctx.still_owned(), sched=ctx.scheduler))

        job = chime.Job("grp", "job1", "ctx-type", data={"k": [1, 2]})
        trig = chime.Simple(interval_ms=100, repeat=2, group="tg",
                            name="t1", start=start)
        first = self.sched.schedule(job, trig)
        self.assertEqual(first, start)
        self.sched.start()
        self.assertTrue(rec.wait(3))
        runs = rec.runs[:3]
        r = runs[0]
        self.assertEqual(r["job"], ("grp", "job1"))
        self.assertEqual(r["trigger"], ("tg", "t1"))
        self.assertEqual(r["type"], "ctx-type")
        self.assertEqual(r["sched_ms"], start)
        self.assertEqual(r["sched_dt"], datetime.datetime.fromtimestamp(
            start / 1000, tz=datetime.timezone.utc))
        self.assertGreaterEqual(r["fire_ms"], start)
        self.assertFalse(r["recovering"])
        self.assertEqual(r["json"], {"k": [1, 2]})
        self.assertEqual(r["data"], b'{"k":[1,2]}')
        self.assertEqual(r["job_data"], r["data"])
        self.assertTrue(r["owned"])
        self.assertIs(r["sched"], self.sched)
        self.assertEqual([x["times"] for x in runs], [1, 2, 3])
        self.assertEqual([x["sched_ms"] for x in runs],
                         [start, start + 100, start + 200])
        ids = [x["fire_id"] for x in runs]
        self.assertEqual(sorted(ids), ids)
        self.assertEqual(len(set(ids)), 3)
        self.assertTrue(wait_for(lambda: self.sched.trigger_state("tg", "t1")
                                 in (chime.TriggerState.COMPLETE,
                                     chime.TriggerState.NONE)))

    def test_exception_is_failure_and_trigger_goes_on(self):
        rec = Recorder()

        done = Recorder()

        def boom(ctx):
            rec.add(ctx.times_triggered)
            raise ValueError("boom %d" % ctx.times_triggered)

        self.sched.register("boom", boom)
        self.sched.add_listener(
            lambda ev: done.add((ev.error, ev.message, ev.job_key)),
            chime.EVENT_JOB_WAS_EXECUTED)
        self.sched.schedule(chime.Job("g", "boom", "boom"),
                            chime.Simple(interval_ms=50, repeat=4,
                                         name="boom-t"))
        self.sched.start()
        self.assertTrue(rec.wait(5))
        self.assertEqual(rec.runs[:5], [1, 2, 3, 4, 5])
        self.assertTrue(done.wait(5))
        # Runs 50 ms apart may end in any order on a loaded machine (each
        # on its own worker): each failure is reported once, with its text.
        for err, _, key in done.runs[:5]:
            self.assertLess(err, 0)
            self.assertEqual(key, ("g", "boom"))
        self.assertEqual(sorted(m for _, m, _ in done.runs[:5]),
                         ["ValueError: boom %d" % i for i in range(1, 6)])
        self.assertEqual(self.sched.state, chime.STARTED)

    def test_context_unusable_after_run(self):
        kept, ev = [], threading.Event()

        @self.sched.job("keep")
        def keep(ctx):
            kept.append(ctx)
            ev.set()

        self.sched.start()
        self.sched.add_job(chime.Job("g", "k", "keep", durable=True))
        self.sched.trigger_job("g", "k")
        self.assertTrue(ev.wait(WAIT_S))
        self.assertTrue(wait_for(lambda: kept[0]._ptr is None))
        with self.assertRaises(chime.StateError):
            kept[0].fire_id

    def test_trigger_job_data_and_set_data_persist(self):
        rec = Recorder()

        @self.sched.job("counter")
        def counter(ctx):
            state = json.loads(ctx.job_data or b'{"n": 0}')
            rec.add((ctx.json(), state["n"]))
            ctx.set_data({"n": state["n"] + 1})

        self.sched.add_job(chime.Job("g", "c", "counter", durable=True,
                                     persist_data=True, data={"n": 0}))
        self.sched.start()
        self.sched.trigger_job("g", "c", data={"hello": "wörld"})
        self.assertTrue(rec.wait(1))
        # The new data is saved after the run returns: wait for it.
        self.assertTrue(wait_for(
            lambda: self.sched.job_data("g", "c") == b'{"n":1}'))
        self.sched.trigger_job(("g", "c"))
        self.assertTrue(rec.wait(2))
        self.assertEqual(rec.runs[0], ({"hello": "wörld"}, 0))
        self.assertEqual(rec.runs[1], ({"n": 1}, 1))

    def test_pause_resume_trigger_job_group_all(self):
        rec = Recorder()
        self.sched.register("tick", lambda ctx: rec.add(ctx.trigger_key))
        s = self.sched
        s.add_job(chime.Job("g", "j", "tick", durable=True))
        s.schedule(("g", "j"), chime.Simple(interval_ms=30, group="pg",
                                            name="p"))
        s.pause_trigger("pg", "p")
        self.assertEqual(s.trigger_state("pg", "p"), chime.TriggerState.PAUSED)
        s.resume_trigger("pg", "p")
        self.assertEqual(s.trigger_state("pg", "p"), chime.TriggerState.NORMAL)
        s.pause_job("g", "j")
        self.assertEqual(s.trigger_state("pg", "p"), chime.TriggerState.PAUSED)
        s.resume_job("g", "j")
        s.pause_group("p", match="starts_with")
        self.assertEqual(s.trigger_state("pg", "p"), chime.TriggerState.PAUSED)
        s.resume_group("pg")
        s.pause_all()
        self.assertEqual(s.trigger_state("pg", "p"), chime.TriggerState.PAUSED)
        s.start()
        s.resume_all()
        self.assertEqual(s.trigger_state("pg", "p"), chime.TriggerState.NORMAL)
        self.assertTrue(rec.wait(3))
        s.pause_trigger("pg", "p")
        # Runs already claimed may finish; then the count must stop growing.
        self.assertTrue(wait_for(lambda: s.running_jobs == 0))
        settled = rec.count()
        self.assertEqual(s.trigger_state("pg", "p"), chime.TriggerState.PAUSED)
        s.resume_trigger("pg", "p")
        self.assertTrue(rec.wait(settled + 2))
        with self.assertRaises(chime.NotFound):
            s.pause_trigger("pg", "nope")
        # No zone file changed: nothing to recompute.
        self.assertEqual(s.reload_zones(), 0)

    def test_keys_errors_and_unschedule(self):
        s = self.sched
        job = chime.Job("g", "j", "t")
        s.schedule(job, chime.Cron("0 0 2 * * ?", tz="Asia/Shanghai",
                                   group="c", name="nightly"))
        self.assertEqual(s.list_jobs(), [("g", "j")])
        self.assertEqual(s.list_triggers("c"), [("c", "nightly")])
        with self.assertRaises(chime.AlreadyExists) as cm:
            s.schedule(("g", "j"), chime.Cron("* * * * * ?", group="c",
                                              name="nightly"))
        self.assertEqual(cm.exception.code, -4)
        with self.assertRaises(chime.NotFound):
            s.schedule(("g", "missing"), chime.Simple(interval_ms=10))
        with self.assertRaises(chime.NeverFires):
            s.schedule(("g", "j"), chime.Cron("0 0 0 1 1 ? 2001"))
        info = s.trigger_info("c", "nightly")
        self.assertEqual(info["job"], ("g", "j"))
        # 02:00 in Shanghai is 18:00 UTC.
        nxt = chime.ms_to_datetime(info["next_fire_ms"])
        self.assertEqual((nxt.hour, nxt.minute), (18, 0))
        s.reschedule("c", "nightly", chime.Cron("0 30 3 * * ?", group="c",
                                                name="nightly"))
        nxt = chime.ms_to_datetime(s.trigger_info("c", "nightly")
                                   ["next_fire_ms"])
        self.assertEqual((nxt.hour, nxt.minute), (3, 30))
        s.unschedule("c", "nightly")
        self.assertEqual(s.trigger_state("c", "nightly"),
                         chime.TriggerState.NONE)
        self.assertFalse(s.has_job("g", "j"))  # Not durable: gone too.
        with self.assertRaises(chime.NotFound):
            s.unschedule("c", "nightly")

    def test_schedule_replace_existing_and_if_absent(self):
        # Issue 13: the flags of chime_scheduler_schedule.
        s = self.sched
        job = chime.Job("g", "rep", "t", data="v1", durable=True)
        first = s.schedule(job, chime.Cron("0 0 2 * * ?", group="c",
                                           name="rep"))
        with self.assertRaises(chime.AlreadyExists):
            s.schedule(job, chime.Cron("0 0 3 * * ?", group="c", name="rep"))
        # if_absent: nothing changes, no error, the stored next fire time.
        again = s.schedule(chime.Job("g", "rep", "t", data="v2",
                                     durable=True),
                           chime.Cron("0 0 3 * * ?", group="c", name="rep"),
                           if_absent=True)
        self.assertEqual(again, first)
        self.assertEqual(s.job_data("g", "rep"), b"v1")
        # if_absent with the job stored and the trigger missing adds it.
        s.schedule(chime.Job("g", "rep", "t", durable=True),
                   chime.Simple(interval_ms=1000, group="c", name="other"),
                   if_absent=True)
        self.assertEqual(s.list_triggers("c"), [("c", "other"), ("c", "rep")])
        # replace_existing: both replaced in one step.
        s.schedule(chime.Job("g", "rep", "t", data="v3", durable=True),
                   chime.Cron("0 30 3 * * ?", group="c", name="rep"),
                   replace_existing=True)
        self.assertEqual(s.job_data("g", "rep"), b"v3")
        nxt = chime.ms_to_datetime(s.trigger_info("c", "rep")["next_fire_ms"])
        self.assertEqual((nxt.hour, nxt.minute), (3, 30))
        with self.assertRaises(ValueError):
            s.schedule(job, chime.Cron("0 0 2 * * ?", group="c", name="x"),
                       replace_existing=True, if_absent=True)

    def test_shutdown_deadline_cancels_and_times_out(self):
        # Issue 13: a job polling ctx.cancelled returns in time; one that
        # does not makes shutdown(deadline_ms=) raise TimedOut.
        s = self.sched
        started = threading.Event()
        saw = []

        @s.job("polite")
        def polite(ctx):
            started.set()
            for _ in range(3000):
                if ctx.cancelled:
                    break
                time.sleep(0.01)
            saw.append(ctx.cancelled)

        s.schedule(chime.Job("g", "polite", "polite"),
                   chime.Simple(interval_ms=0, repeat=0))
        s.start()
        self.assertTrue(started.wait(15))
        s.shutdown(deadline_ms=10000)
        self.assertEqual(saw, [True])

        other = chime.Scheduler(url="memory:", workers=1)
        self.addCleanup(other.close)
        started2 = threading.Event()

        @other.job("stubborn")
        def stubborn(ctx):
            started2.set()
            time.sleep(1.0)

        other.schedule(chime.Job("g", "stubborn", "stubborn"),
                       chime.Simple(interval_ms=0, repeat=0))
        other.start()
        self.assertTrue(started2.wait(15))
        with self.assertRaises(chime.TimedOut):
            other.shutdown(deadline_ms=50)

    def test_calendar(self):
        s = self.sched
        s.add_calendar("weekends", "chime-calendar 1\nweekly days=sat,sun\n")
        s.add_job(chime.Job("g", "j", "t", durable=True))
        s.schedule(("g", "j"), chime.Cron("0 0 12 * * ?", calendar="weekends",
                                          name="noon"))
        nxt = chime.ms_to_datetime(s.trigger_info("DEFAULT", "noon")
                                   ["next_fire_ms"])
        self.assertLess(nxt.weekday(), 5)
        with self.assertRaises(chime.FormatError):
            s.add_calendar("bad", "not a calendar")

    def test_listener_veto(self):
        vetoed, ran = Recorder(), []
        self.sched.register("v", lambda ctx: ran.append(1))
        self.sched.add_listener(lambda ev: True, chime.EVENT_TRIGGER_FIRED)
        self.sched.add_listener(lambda ev: vetoed.add(ev.trigger_key),
                                chime.EVENT_JOB_VETOED)
        self.sched.add_listener(lambda ev: 1 / 0, chime.EVENT_ALL)
        self.sched.schedule(chime.Job("g", "v", "v"),
                            chime.Simple(interval_ms=10, repeat=0,
                                         name="vt"))
        self.sched.start()
        self.assertTrue(vetoed.wait(1))
        self.assertEqual(vetoed.runs[0], ("DEFAULT", "vt"))
        self.assertEqual(ran, [])

    def test_job_cannot_wait_for_its_own_shutdown(self):
        rec = Recorder()

        def selfish(ctx):
            try:
                ctx.scheduler.shutdown(wait=True)
            except chime.StateError as exc:
                rec.add(exc.code)

        self.sched.register("selfish", selfish)
        self.sched.add_job(chime.Job("g", "s", "selfish", durable=True))
        self.sched.start()
        self.sched.trigger_job("g", "s")
        self.assertTrue(rec.wait(1))
        self.assertEqual(rec.runs, [-9])

    def test_error_detail_is_the_calling_threads(self):
        """chime_scheduler_errmsg: each thread reads the detail of its own
        failed call on the scheduler, whatever other threads do."""
        s, seen = self.sched, []

        def other():
            try:
                s.remove_job("g", "absent")
            except chime.NotFound as exc:
                seen.append(exc.message)

        with self.assertRaises(chime.InvalidArgument) as cm:
            s.add_job(chime.Job("g", "nd", "t"))  # not durable, no trigger
        th = threading.Thread(target=other)
        th.start()
        th.join()
        self.assertIn("durable", cm.exception.message)
        self.assertEqual(len(seen), 1)
        self.assertIn("chime_scheduler_remove_job", seen[0])
        with self.assertRaises(chime.InvalidArgument) as cm:
            s.add_listener(lambda ev: None, 1 << 30)
        self.assertIn("event mask", cm.exception.message)
        # EVENT_ALL is every kind chime.h's CHIME_EVENT_MAP lists: the
        # first twelve, then the alert events (bits 16 on).
        self.assertEqual(chime.EVENT_ALL & 0xFFF, 0xFFF)
        self.assertTrue(chime.EVENT_ALL & chime.EventKind.NODE_DEAD)

    def test_listener_added_after_start(self):
        heard = Recorder()
        self.sched.register("late", lambda ctx: None)
        self.sched.start()
        self.sched.add_listener(lambda ev: heard.add(ev.job_key),
                                chime.EVENT_JOB_WAS_EXECUTED)
        self.sched.add_job(chime.Job("g", "late", "late", durable=True))
        self.sched.trigger_job("g", "late")
        self.assertTrue(heard.wait(1))
        self.assertEqual(heard.runs[0], ("g", "late"))

    def test_log_callback(self):
        lines = []
        s = chime.Scheduler(log=lambda lvl, msg: lines.append((lvl, msg)),
                            log_level=chime.LOG_DEBUG)
        s.start()
        s.close()
        self.assertTrue(all(isinstance(m, str) for _, m in lines))


if __name__ == "__main__":
    unittest.main()
