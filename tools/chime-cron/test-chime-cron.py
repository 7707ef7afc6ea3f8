#!/usr/bin/env python3
"""test-chime-cron.py: runs the built chime-cron with fixed --after values
and checks its output, its messages and its exit status.

usage: test-chime-cron.py PATH-TO-chime-cron
"""
import subprocess
import sys
import time

TOOL = sys.argv[1]
failures = 0


def run(args):
    p = subprocess.run([TOOL] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(name, args, status, stdout=None, stderr_has=None, stdout_has=None):
    global failures
    rc, out, err = run(args)
    problems = []
    if rc != status:
        problems.append(f"exit {rc}, want {status}")
    if stdout is not None and out != stdout:
        problems.append(f"stdout {out!r}, want {stdout!r}")
    if stdout_has is not None and stdout_has not in out:
        problems.append(f"stdout {out!r} lacks {stdout_has!r}")
    if stderr_has is not None and stderr_has not in err:
        problems.append(f"stderr {err!r} lacks {stderr_has!r}")
    if problems:
        failures += 1
        print(f"FAIL {name}: " + "; ".join(problems))
    else:
        print(f"ok   {name}")


def lines(*xs):
    return "".join(x + "\n" for x in xs)


NY = ["--tz", "America/New_York"]
check("spring gap is skipped, offset changes",
      NY + ["--after", "2026-03-08T01:30:00-05:00", "--count", "3", "0 0 * * * ?"], 0,
      lines("2026-03-08T03:00:00-04:00", "2026-03-08T04:00:00-04:00",
            "2026-03-08T05:00:00-04:00"))
check("epoch ms in and out",
      NY + ["--format", "ms", "--after", "1772952300000", "--count", "1", "0 0/30 * * * ?"],
      0, lines("1772953200000"))
check("--after as local time in --tz",
      ["--tz", "Europe/Berlin", "--after", "2026-06-01T12:00", "--count", "2", "0 0 12 * * ?"],
      0, lines("2026-06-02T12:00:00+02:00", "2026-06-03T12:00:00+02:00"))
check("UTC is the default zone",
      ["--after", "2026-01-01T00:00:00Z", "--count", "2", "0 15 10 ? * MON-FRI"], 0,
      lines("2026-01-01T10:15:00+00:00", "2026-01-02T10:15:00+00:00"))
check("repeated hour: both passes for hour '*'",
      NY + ["--after", "2026-11-01T00:45:00-04:00", "--count", "5", "0 0/30 * * * ?"], 0,
      lines("2026-11-01T01:00:00-04:00", "2026-11-01T01:30:00-04:00",
            "2026-11-01T01:00:00-05:00", "2026-11-01T01:30:00-05:00",
            "2026-11-01T02:00:00-05:00"))
check("repeated hour: first pass only otherwise",
      NY + ["--after", "2026-11-01T00:45:00-04:00", "--count", "2", "0 30 1 * * ?"], 0,
      lines("2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"))
check("expression as several arguments",
      ["--after", "0", "--count", "1", "--format", "ms", "0", "0", "12", "*", "*", "?"],
      0, lines("43200000"))
check("stops firing: prints what it has, says so, exit 0",
      ["--after", "2026-01-01T00:00:00Z", "--count", "5", "0 0 0 1 1 ? 2027-2028"], 0,
      lines("2027-01-01T00:00:00+00:00", "2028-01-01T00:00:00+00:00"),
      stderr_has="fires no more")
check("never fires: exit 0", ["--after", "0", "0 0 0 30 2 ?"], 0, "",
      stderr_has="never fires")
check("--explain", ["--explain", "--after", "0", "--count", "1", "0 15 10 * * ?"], 0,
      lines("at 10:15:00, every day", "1970-01-01T10:15:00+00:00"))
check("bad expression names field and column", ["0 0 0 ? * FOO"], 1,
      "", stderr_has="day-of-week field, column 11: unknown day name 'FOO'")
check("missing field", ["0 0 12 * *"], 1, "", stderr_has="day-of-week field")
check("unknown zone", ["--tz", "Mars/Olympus_Mons", "0 0 12 * * ?"], 1, "",
      stderr_has="unknown time zone")

# Unix cron: chosen with --unix, never guessed from the field count.
check("--unix weekdays at 02:30 in --tz",
      ["--unix", "--tz", "Europe/Paris", "--after", "2026-03-27T00:00Z", "--count", "3",
       "30 2 * * 1-5"], 0,
      lines("2026-03-27T02:30:00+01:00", "2026-03-30T02:30:00+02:00",
            "2026-03-31T02:30:00+02:00"))
check("--unix CRON_TZ= prefix names the zone, --format ms",
      ["--unix", "--after", "2026-03-27T00:00Z", "--count", "2", "--format", "ms",
       "CRON_TZ=America/New_York @daily"], 0, lines("1774584000000", "1774670400000"))
check("--unix day fields OR-ed", ["--unix", "--explain", "--after", "0", "--count", "2",
                                  "0 0 13 * 5"], 0,
      lines("at 00:00:00, on day 13 of the month or on Friday",
            "1970-01-02T00:00:00+00:00", "1970-01-09T00:00:00+00:00"))
check("--unix --tz disagreeing with CRON_TZ=",
      ["--unix", "--tz", "UTC", "CRON_TZ=Europe/Paris 0 0 * * *"], 1, "",
      stderr_has="disagrees")
check("five fields without --unix are Quartz's (an error)", ["30 2 * * 1-5"], 1, "",
      stderr_has="field is missing")
check("--jitter moves every time by the key's offset (FNV-1a 64 mod window)",
      ["--unix", "--after", "0", "--count", "2", "--format", "ms", "--jitter", "600000",
       "--key", "etl.cal", "0 2 * * *"], 0, lines("7235068", "93635068"))
check("--jitter needs --key", ["--jitter", "1000", "0 0 2 * * ?"], 2, "",
      stderr_has="go together")
check("--rrule: DTSTART first, then the last Friday of each month",
      ["--rrule", "--after", "2026-01-01T00:00Z", "--count", "3",
       "DTSTART;TZID=Europe/Paris:20260105T090000 RRULE:FREQ=MONTHLY;BYDAY=-1FR"], 0,
      lines("2026-01-05T09:00:00+01:00", "2026-01-30T09:00:00+01:00",
            "2026-02-27T09:00:00+01:00"))
check("--rrule lines separated by a newline, --format ms",
      ["--rrule", "--after", "1769760000000", "--count", "1", "--format", "ms",
       "DTSTART;TZID=Europe/Paris:20260105T090000\nRRULE:FREQ=MONTHLY;BYDAY=-1FR"], 0,
      lines("1772179200000"))
check("options after the expression (the issue's commands verbatim)",
      ["--unix", "30 2 * * 1-5", "--tz", "America/New_York", "--after",
       "2026-03-06T00:00:00Z", "--count", "2"], 0,
      lines("2026-03-06T02:30:00-05:00", "2026-03-09T02:30:00-04:00"))
check("--rrule verbatim, options after it",
      ["--rrule", "DTSTART;TZID=Europe/Paris:20260105T090000 RRULE:FREQ=MONTHLY;BYDAY=-1FR",
       "--after", "2026-01-01T00:00Z", "--count", "2", "--format", "ms"], 0,
      lines("1767600000000", "1769760000000"))
check("--rrule without DTSTART", ["--rrule", "RRULE:FREQ=DAILY"], 1, "",
      stderr_has="DTSTART is required")
check("--unix rejects six fields", ["--unix", "0 30 2 * * 1-5"], 1, "",
      stderr_has="column 12: a Unix expression has 5 fields")
check("--help", ["--help"], 0, stdout_has="usage: chime-cron")
check("bad --count", ["--count", "0", "0 0 12 * * ?"], 2, "", stderr_has="--count")
check("bad --format", ["--format", "xml", "0 0 12 * * ?"], 2, "", stderr_has="--format")
check("bad --after", ["--after", "yesterday", "0 0 12 * * ?"], 2, "", stderr_has="--after")
# Issue 22, finding 8: a number outside int64 is not a time.
check("--after out of range", ["--after", "99999999999999999999", "0 0 12 * * ?"],
      2, "", stderr_has="--after")
check("--after out of range, negative",
      ["--after", "-99999999999999999999", "0 0 12 * * ?"], 2, "",
      stderr_has="--after")
check("--after with a date that does not exist", ["--after", "2026-02-29T00:00:00Z", "0 0 12 * * ?"],
      2, "", stderr_has="--after")
check("no expression", [], 2, "", stderr_has="expression is required")

before = int(time.time() * 1000)
rc, out, err = run(["--count", "1", "--format", "ms", "* * * * * ?"])
after = int(time.time() * 1000)
if rc != 0 or not (before < int(out) <= after + 1000):
    failures += 1
    print(f"FAIL default --after is now: {rc} {out!r} not in ({before}, {after + 1000}]")
else:
    print("ok   default --after is now")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
