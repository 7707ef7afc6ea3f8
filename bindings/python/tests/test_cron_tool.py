"""test_cron_tool: chime-cron prints the times the triggers fire (issue 23).

The commands of the issue, verbatim, are run with --after, --count and
--format ms; the same rule is made a trigger on a memory-store scheduler,
and the times it fires (ctx.scheduled_ms) must be the lines chime-cron
printed.  Past times are fired with a backfill (each fire with its
original scheduled time, through the ordinary firing path); a live
recurrence with jitter fires a few seconds from now.  Jitter: chime-cron
--jitter J --key G.N prints the jittered times the trigger fires.
Waits are on conditions with generous deadlines, never a bare sleep.
"""

import datetime
import os
import subprocess
import threading
import time
import unittest
from zoneinfo import ZoneInfo

import chime

WAIT_S = 30.0
# The backfilled triggers' own start: far ahead, so that only the backfill
# fires them during the test (a backfill is not bounded by the start).
LATER_MS = 4102444800000  # 2100-01-01
TOOL = os.environ.get("CHIME_CRON")
RRULE = ("DTSTART;TZID=Europe/Paris:20260105T090000 "
         "RRULE:FREQ=MONTHLY;BYDAY=-1FR")
UNIX = "30 2 * * 1-5"


def chime_cron(*args):
    out = subprocess.run([TOOL, *args], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return [int(x) for x in out.split()]


class Fires:
    """The scheduled times a job ran at, under a lock."""

    def __init__(self):
        self.cond = threading.Condition()
        self.times = []

    def add(self, t):
        with self.cond:
            self.times.append(t)
            self.cond.notify_all()

    def wait(self, n):
        with self.cond:
            self.cond.wait_for(lambda: len(self.times) >= n, WAIT_S)
            return sorted(self.times)


@unittest.skipIf(TOOL is None, "CHIME_CRON names no chime-cron")
class CronToolMatchesFires(unittest.TestCase):
    def setUp(self):
        self.sched = chime.Scheduler(url="memory:", workers=4,
                                     name="cron-tool", instance_id="ct-1")
        self.addCleanup(self.sched.close)
        self.fires = {}

        @self.sched.job("record")
        def run(ctx):
            self.fires[ctx.job_key[1]].add(ctx.scheduled_ms)

    def fire(self, name, trigger, backfill_range=None, n=0):
        """Schedules trigger for job name; backfills a past range; returns
        the first n scheduled times it ran at."""
        self.fires[name] = Fires()
        self.sched.schedule(chime.Job("tool", name, "record", durable=True),
                            trigger)
        if backfill_range:
            self.assertEqual(self.sched.backfill(trigger.group, trigger.name,
                                                 *backfill_range), n)
        self.sched.start()
        got = self.fires[name].wait(n)
        self.assertEqual(len(got), n, f"{name}: only {got} fired")
        return got

    def test_rrule_verbatim(self):
        # The last Friday of each month from DTSTART (its own first
        # instance), Paris wall time 09:00 across the DST change.
        want = chime_cron("--rrule", RRULE, "--after", "2026-01-01T00:00:00Z",
                          "--count", "6", "--format", "ms")
        self.assertEqual(want[:3], [1767600000000, 1769760000000,
                                    1772179200000])
        # The lines may be separated by a newline, as rrulestr reads them.
        self.assertEqual(chime_cron("--rrule", RRULE.replace(" ", "\n"),
                                    "--after", "2026-01-01T00:00:00Z",
                                    "--count", "6", "--format", "ms"), want)
        trig = chime.Recurrence(RRULE, group="tool", name="rrule",
                                start=LATER_MS)
        self.assertEqual(self.fire("rrule", trig, (want[0], want[-1]), 6),
                         want)

    def test_unix_verbatim_with_jitter(self):
        # Weekdays at 02:30 New York time, spread by the key's jitter.
        after = "2026-03-05T00:00:00Z"  # across the 2026-03-08 DST change
        plain = chime_cron("--unix", UNIX, "--tz", "America/New_York",
                           "--after", after, "--count", "5", "--format", "ms")
        want = chime_cron("--unix", UNIX, "--tz", "America/New_York",
                          "--after", after, "--count", "5", "--format", "ms",
                          "--jitter", "600000", "--key", "tool.unix")
        off = chime.jitter_offset_ms("tool", "unix", 600000)
        self.assertEqual(want, [t + off for t in plain])
        trig = chime.UnixCron(UNIX, tz="America/New_York", group="tool",
                              name="unix", start=LATER_MS, jitter_ms=600000)
        self.assertEqual(self.fire("unix", trig, (want[0], want[-1]), 5),
                         want)

    def test_live_recurrence_with_jitter(self):
        # A recurrence starting two seconds from now, one instance a second,
        # fired live: the scheduled times are chime-cron's jittered lines.
        paris = ZoneInfo("Europe/Paris")
        start = datetime.datetime.now(paris).replace(microsecond=0) \
            + datetime.timedelta(seconds=2)
        text = ("DTSTART;TZID=Europe/Paris:" + start.strftime("%Y%m%dT%H%M%S")
                + " RRULE:FREQ=SECONDLY;COUNT=3")
        want = chime_cron("--rrule", text, "--after",
                          str(int(start.timestamp() * 1000) - 1), "--count",
                          "3", "--format", "ms", "--jitter", "700",
                          "--key", "tool.live")
        # IGNORE: a loaded machine that schedules it after DTSTART still
        # fires every instance at its own scheduled time.
        trig = chime.Recurrence(text, group="tool", name="live",
                                jitter_ms=700, misfire="ignore")
        self.assertEqual(self.fire("live", trig, None, 3), want)


if __name__ == "__main__":
    unittest.main()
