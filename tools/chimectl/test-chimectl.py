#!/usr/bin/env python3
"""test-chimectl.py: runs every chimectl command against the throwaway
MariaDB (CHIME_TEST_MYSQL_URL) in tables of a prefix of its own, and
checks tables, JSON and exit codes.

usage: test-chimectl.py PATH-TO-chimectl PATH-TO-chimectl-test-setup
"""
import datetime
import json
import time
import os
import shlex
import subprocess
import zoneinfo
import sys
import urllib.parse

try:  # Debian's python3-prometheus-client (./dev setup installs it)
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:  # an interpreter that is not Debian's own
    sys.path.append("/usr/lib/python3/dist-packages")
    from prometheus_client.parser import text_string_to_metric_families

CTL, SETUP = sys.argv[1], sys.argv[2]
BASE = os.environ.get("CHIME_TEST_MYSQL_URL")
if not BASE:
    print("FAIL: CHIME_TEST_MYSQL_URL is not set (start ./dev db-up): a "
          "missing database is never a skip")
    sys.exit(1)
PASSWORD = urllib.parse.unquote(urllib.parse.urlsplit(BASE).password or "")
SEP = "&" if "?" in BASE else "?"
PREFIX = "ctl%d_" % os.getpid()
URL = BASE + SEP + "prefix=" + PREFIX
URL2 = BASE + SEP + "prefix=" + PREFIX + "new_"
URL3 = BASE + SEP + "prefix=" + PREFIX + "r_"
failures = 0
outputs = []


def run(args, url=URL, env=None, stdin=subprocess.DEVNULL):
    e = dict(os.environ)
    e.pop("CHIME_URL", None)
    e.pop("CHIME_PASSWORD", None)
    e["TZ"] = "UTC"
    e.update(env or {})
    cmd = [CTL] + (["--url", url] if url else []) + ["--scheduler", "ctltest"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=e, stdin=stdin)
    outputs.append(p.stdout + p.stderr)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    global failures
    if cond:
        print(f"ok   {name}")
    else:
        failures += 1
        print(f"FAIL {name} {detail}")


def expect(name, args, status, has=(), err_has=(), **kw):
    rc, out, err = run(args, **kw)
    problems = []
    if rc != status:
        problems.append(f"exit {rc}, want {status}")
    for h in has:
        if h not in out:
            problems.append(f"stdout lacks {h!r}")
    for h in err_has:
        if h not in err:
            problems.append(f"stderr lacks {h!r}")
    if status != 0 and err.count("\n") != 1:
        problems.append("stderr is not exactly one line")
    check(name, not problems, "; ".join(problems) + f"\n  stdout={out!r}\n  stderr={err!r}")
    return out


def js(args, **kw):
    rc, out, err = run(["--json"] + args, **kw)
    try:
        return rc, json.loads(out)
    except ValueError:
        check("valid JSON from " + " ".join(args), False, repr(out) + err)
        return rc, None


def helper(mode, url):
    p = subprocess.run([SETUP, mode, url], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"FAIL helper {mode}: {p.stderr}")
        sys.exit(1)


def ctypes_free_jitter_offset(group, name, window):
    """chime_key_get_jitter_offset_ms as docs/recurrence.md states it (FNV-1a 64
    over group, 0x00, name; modulo the window), computed here without the
    library, so the test also pins the documented formula."""
    h = 14695981039346656037
    for b in group.encode() + b"\0" + name.encode():
        h = ((h ^ b) * 1099511628211) % (1 << 64)
    return h % window


def sql_rows(query):
    """Rows of a query on the test database (its tables), tab-separated."""
    db = urllib.parse.urlsplit(BASE)
    p = subprocess.run(
        ["mysql", "-h", db.hostname, "-P", str(db.port or 3306), "-u",
         urllib.parse.unquote(db.username), "-N", "-B", db.path.lstrip("/"),
         "-e", query.replace("{P}", PREFIX)],
        capture_output=True, text=True, timeout=30,
        env=dict(os.environ, MYSQL_PWD=PASSWORD))
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return [line.split("\t") for line in p.stdout.splitlines()]


def triggers():
    rc, data = js(["triggers"])
    return {f"{t['group']}.{t['name']}": t for t in data or []}


def show_checks():
    """show (issue 17): one trigger or one job, text and JSON."""
    expect("show trigger", ["show", "rep.daily-cron"], 0,
           has=["0 0 2 * * ?", "at 02:00:00, every day", "Asia/Shanghai",
                "do-nothing", "rep.daily"])
    rc, s = js(["show", "rep.daily-cron"])
    check("show trigger json", rc == 0 and s["expression"] == "0 0 2 * * ?"
          and s["job"] == "rep.daily" and s["zone"] == "Asia/Shanghai"
          and s["misfire"] == "do-nothing" and s["priority"] == 7
          and s["state"] == "waiting" and s["calendar"] is None
          and len(s["next"]) == 5 and s["next"][0].endswith("18:00:00Z")
          and s["next"][1] > s["next"][0], s)
    rc, s = js(["show", "trigger", "etl.cal"])
    check("show jitter", rc == 0 and s["jitter"] == "600.000s"
          and "jittered" in s["schedule"] and s["expression"] is None, s)
    # Run policies (issue 14): the trigger's starting deadline overrides
    # its job's; 0 (the job's) is null.
    check("show trigger deadline", rc == 0 and s["deadline_ms"] == 45000
          and s["timeout_ms"] is None, s)
    # A jittered recurrence (the last Friday of each month, 09:00 Paris):
    # every listed time is an instance moved by the key's jitter offset.
    rc, s = js(["show", "ops.rrule"])
    off = ctypes_free_jitter_offset("ops", "rrule", 600000)
    paris = zoneinfo.ZoneInfo("Europe/Paris")
    times = [datetime.datetime.fromisoformat(x.replace("Z", "+00:00"))
             for x in (s or {}).get("next", [])]
    # (shown to the second: an instance's whole seconds plus off's)
    plain = [(t - datetime.timedelta(seconds=off // 1000)).astimezone(paris)
             for t in times]
    check("show lists jittered recurrence times", rc == 0 and len(plain) == 5
          and all(p.weekday() == 4 and (p.hour, p.minute, p.second) == (9, 0, 0)
                  and (p + datetime.timedelta(days=7)).month != p.month
                  for p in plain)
          and len({(p.year, p.month) for p in plain}) == 5, s)
    rc, f = js(["fire", "rep.daily", "--data", '{"k": [1, 2]}'])
    rc, s = js(["show", f["trigger"]]) if rc == 0 else (rc, None)
    check("show data", rc == 0 and s["data"] == {"k": [1, 2]}, s)
    run(["delete", "trigger", f["trigger"], "--yes"])
    expect("show job", ["show", "etl.load"], 0,
           has=["forbid", "etl.cal", "etl.window"])
    rc, s = js(["show", "job", "etl.load"])
    check("show job json", rc == 0 and s["job"] == "etl.load"
          and s["concurrency"] == "forbid" and s["durable"] is True
          and s["timeout_ms"] == 3600000 and s["deadline_ms"] == 120000
          and s["history"] == "all"
          and s["triggers"] == ["etl.cal", "etl.window"], s)
    expect("show unknown", ["show", "no.such"], 3, err_has=["no trigger or job no.such"])
    expect("show job of a trigger", ["show", "job", "rep.daily-cron"], 3)
    expect("show trigger of a job", ["show", "trigger", "etl.load"], 3)
    for bad in (["show"], ["show", "nodot"], ["show", "calendar", "a.b"]):
        expect("show usage " + " ".join(bad[1:]), bad, 2)


def watch_checks():
    """watch (issue 17) under tmux: the frame, a refresh after a change,
    q."""
    sock = "chimectl-test-%d" % os.getpid()
    tmux = ["tmux", "-f", "/dev/null", "-L", sock]
    cmd = " ".join(shlex.quote(a) for a in [
        CTL, "--url", URL, "--scheduler", "ctltest", "watch", "--interval", "0.3"])
    expect("watch usage", ["watch", "x"], 2)
    expect("watch bad interval", ["watch", "--interval", "0"], 2)

    def pane():
        p = subprocess.run(tmux + ["capture-pane", "-p", "-t", "w"],
                           capture_output=True, text=True)
        return p.stdout

    def wait_for(cond, secs=15):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            text = pane()
            if cond(text):
                return True, text
            time.sleep(0.1)
        return False, pane()
    try:
        subprocess.run(tmux + ["new-session", "-d", "-s", "w", "-x", "200", "-y", "50",
                               "TZ=UTC " + cmd + "; echo WATCH-EXIT=$?; sleep 60"],
                       check=True, timeout=30)
        # The whole frame: a capture can fall between the redraw of the
        # headers and that of the rows below them.
        frame = ("Nodes (3)", "live-node", "dead-node", "Running (1)", "900001",
                 "etl.window", "Recent outcomes (3)", "disk full")
        ok, text = wait_for(lambda t: all(h in t for h in frame))
        check("watch frame", ok, text)
        helper("finish", URL)  # fire 900001 ends: history row 104
        ok, text = wait_for(lambda t: "Running (0)" in t and "Recent outcomes (4)" in t
                            and "etl.window" in t.split("Recent outcomes")[1])
        check("watch refreshes", ok, text)
        subprocess.run(tmux + ["send-keys", "-t", "w", "q"], check=True, timeout=30)
        ok, text = wait_for(lambda t: "WATCH-EXIT=" in t)
        check("watch q quits", ok and "WATCH-EXIT=0" in text, text)
    except (OSError, subprocess.SubprocessError) as e:
        check("watch under tmux", False, repr(e))
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


def edit_checks():
    """job add|edit|delete, trigger add|edit|delete|preview, retry (issue
    35): through the public API, every kind, the library's messages."""
    expect("job add", ["job", "add", "ed.build", "--type", "report", "--data", '{"a": 1}',
                       "--retry", "3", "--retry-delay", "10s", "--retry-multiplier", "2",
                       "--concurrency", "forbid-skip", "--timeout", "1h", "--deadline", "5m",
                       "--shards", "3", "--shard-params", "0=a,1=b", "--history", "failures",
                       "--tags", "gpu,ssd", "--description", "builds"], 0,
           has=["added job ed.build"])
    rc, j = js(["show", "job", "ed.build"])
    check("job add stored its policies", rc == 0 and j["concurrency"] == "forbid-skip"
          and j["timeout_ms"] == 3600000 and j["deadline_ms"] == 300000
          and j["history"] == "failures" and j["description"] == "builds"
          and j["durable"] is True, j)
    rows = sql_rows("SELECT retry_max_attempts, retry_initial_delay_ms, shard_count, "
                    "required_tags FROM {P}jobs WHERE job_group = 'ed' AND job_name = 'build'")
    check("job add: retry, shards, tags in the row", rows == [["3", "10000", "3", "gpu,ssd"]], rows)
    expect("job add exists", ["job", "add", "ed.build", "--type", "report"], 1,
           err_has=["exists already"])
    expect("job add without type", ["job", "add", "ed.x"], 2, err_has=["--type"])
    expect("job add not durable", ["job", "add", "ed.x", "--type", "t", "--durable", "false"], 1,
           err_has=["must be durable"])
    expect("job add bad retry", ["job", "add", "ed.x", "--type", "t", "--retry-multiplier", "0.5"],
           1, err_has=["retry policy"])
    expect("job add bad data", ["job", "add", "ed.x", "--type", "t", "--data", "{no"], 2,
           err_has=["JSON"])
    expect("job add bad duration", ["job", "add", "ed.x", "--type", "t", "--timeout", "soon"], 2,
           err_has=["duration"])
    check("refused jobs wrote nothing", triggers() is not None and
          sql_rows("SELECT COUNT(*) FROM {P}jobs WHERE job_name = 'x'") == [["0"]])
    rc, e = js(["job", "edit", "ed.build", "--timeout", "", "--tags", "", "--recovery", "yes"])
    check("job edit json", rc == 0 and e == {"ok": True, "action": "changed", "what": "job",
                                             "target": "ed.build"}, e)
    rows = sql_rows("SELECT timeout_ms, requests_recovery, required_tags, retry_max_attempts "
                    "FROM {P}jobs WHERE job_group = 'ed' AND job_name = 'build'")
    check("job edit: reset, changed, kept", rows and rows[0][0] == "0" and rows[0][1] == "1"
          and rows[0][2] in ("", "NULL") and rows[0][3] == "3", rows)
    expect("job edit nothing", ["job", "edit", "ed.build"], 2, err_has=["setting"])
    expect("job edit missing", ["job", "edit", "ed.none", "--timeout", "1s"], 3, err_has=["ed.none"])

    # Triggers of every kind.
    kinds = [
        ("ed.cron", ["--cron", "0 15 10 ? * MON-FRI", "--zone", "Europe/Berlin"], "cron"),
        ("ed.unix", ["--unix-cron", "CRON_TZ=Asia/Tokyo 30 2 * * 1-5"], "cron"),
        ("ed.rrule", ["--rrule", "DTSTART;TZID=Europe/Paris:20260105T090000 "
                      "RRULE:FREQ=MONTHLY;BYDAY=-1FR"], "recurrence"),
        ("ed.simple", ["--simple", "30s", "--repeat", "4"], "simple"),
        ("ed.once", ["--simple", "once", "--start", "2099-01-01T00:00:00Z"], "simple"),
        ("ed.cal", ["--calendar-interval", "2 months", "--zone", "Asia/Shanghai",
                    "--preserve-hour", "true"], "calendar-interval"),
        ("ed.daily", ["--daily", "15 minutes", "--between", "09:00-17:30", "--days", "mon-fri",
                      "--zone", "America/New_York"], "daily-time-interval"),
    ]
    for key, opts, kind in kinds:
        rc, a = js(["trigger", "add", key, "--job", "ed.build"] + opts)
        check(f"trigger add {key}", rc == 0 and a["action"] == "added" and a["first_ms"] > 0, a)
    ts = triggers()
    for key, opts, kind in kinds:
        check(f"trigger {key} is a {kind} trigger", key in ts and ts[key]["kind"] == kind,
              ts.get(key))
    check("the cron trigger keeps its zone", ts["ed.cron"]["zone"] == "Europe/Berlin", ts["ed.cron"])
    expect("trigger add with settings", ["trigger", "add", "ed.full", "--job", "ed.build",
                                         "--cron", "0 0 * * * ?", "--priority", "9",
                                         "--misfire", "do-nothing", "--data", '{"t": 2}',
                                         "--jitter", "1m", "--timeout", "30s",
                                         "--description", "hourly", "--end", "2099-01-01T00:00:00Z"],
           0, has=["added trigger ed.full: first fire"])
    rc, t = js(["show", "trigger", "ed.full"])
    check("trigger settings stored", rc == 0 and t["priority"] == 9 and t["misfire"] == "do-nothing"
          and t["data"] == {"t": 2} and t["timeout_ms"] == 30000 and t["description"] == "hourly", t)
    # The library's own messages, nothing written.
    expect("bad cron: the parser's words", ["trigger", "add", "ed.bad", "--job", "ed.build",
                                            "--cron", "0 0 2 * * FOO"], 1,
           err_has=["day-of-week field, column 11", "FOO"])
    expect("unknown zone", ["trigger", "add", "ed.bad", "--job", "ed.build", "--cron",
                            "0 * * * * ?", "--zone", "Mars/Base"], 1, err_has=["Mars/Base"])
    expect("never fires", ["trigger", "add", "ed.bad", "--job", "ed.build", "--cron",
                           "0 0 0 30 2 ?"], 1, err_has=["never fire"])
    expect("unknown job", ["trigger", "add", "ed.bad", "--job", "ed.none", "--simple", "1m"], 3,
           err_has=["ed.none"])
    expect("two schedules", ["trigger", "add", "ed.bad", "--job", "ed.build", "--simple", "1m",
                             "--cron", "* * * * * ?"], 2, err_has=["one schedule"])
    expect("no schedule", ["trigger", "add", "ed.bad", "--job", "ed.build"], 2,
           err_has=["wants a schedule"])
    expect("a setting of another kind", ["trigger", "add", "ed.bad", "--job", "ed.build",
                                         "--cron", "* * * * * ?", "--days", "mon"], 2,
           err_has=["days is not a setting of a cron trigger"])
    expect("bad misfire for the kind", ["trigger", "add", "ed.bad", "--job", "ed.build",
                                        "--cron", "* * * * * ?", "--misfire",
                                        "reschedule-now-existing-count"], 1, err_has=["misfire"])
    expect("settings on another command", ["jobs", "--cron", "x"], 2, err_has=["--cron"])
    check("refused triggers wrote nothing", "ed.bad" not in triggers())
    # Edit: a new schedule keeps the zone; settings alone keep the schedule.
    expect("trigger edit schedule", ["trigger", "edit", "ed.cron", "--cron", "0 30 11 ? * MON-FRI"],
           0, has=["changed trigger ed.cron"])
    ts = triggers()
    check("trigger edit kept the zone and took the schedule",
          ts["ed.cron"]["zone"] == "Europe/Berlin" and "11:30" in ts["ed.cron"]["schedule"],
          ts["ed.cron"])
    expect("trigger edit settings", ["trigger", "edit", "ed.cron", "--priority", "2"], 0)
    ts = triggers()
    check("trigger edit settings kept the schedule", ts["ed.cron"]["priority"] == 2
          and "11:30" in ts["ed.cron"]["schedule"], ts["ed.cron"])
    expect("trigger edit zone alone", ["trigger", "edit", "ed.cron", "--zone", "UTC"], 2,
           err_has=["give the schedule"])
    expect("trigger edit bad cron", ["trigger", "edit", "ed.cron", "--cron", "61 * * * * ?"], 1,
           err_has=["second field"])
    check("a refused edit changed nothing", "11:30" in triggers()["ed.cron"]["schedule"])
    expect("trigger edit unix", ["trigger", "edit", "ed.unix", "--unix-cron", "0 3 * * *"], 0)
    check("a Unix expression without CRON_TZ keeps the zone",
          triggers()["ed.unix"]["zone"] == "Asia/Tokyo", triggers()["ed.unix"])
    expect("trigger edit kind", ["trigger", "edit", "ed.simple", "--daily", "1 hour"], 0)
    check("trigger edit changed the kind", triggers()["ed.simple"]["kind"] == "daily-time-interval")
    expect("trigger edit missing", ["trigger", "edit", "ed.none", "--priority", "1"], 3)
    # Preview: the library's next times, in the schedule's zone.
    out = expect("trigger preview", ["trigger", "preview", "--cron", "0 0 2 * * ?", "--zone",
                                     "Europe/Berlin"], 0, has=["02:00:00+01:00 Europe/Berlin"])
    check("trigger preview lists 10", len(out.splitlines()) == 10, out)
    rc, pv = js(["trigger", "preview", "--rrule", "DTSTART;TZID=Europe/Paris:20260105T090000 "
                 "RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=3"])
    check("trigger preview rrule json", rc == 0 and pv["zone"] == "Europe/Paris"
          and len(pv["next_ms"]) <= 3, pv)
    expect("trigger preview bad", ["trigger", "preview", "--unix-cron", "61 * * * *"], 1,
           err_has=["minute"])
    # Delete.
    expect("trigger delete without --yes", ["trigger", "delete", "ed.once"], 2, err_has=["--yes"])
    expect("trigger delete", ["trigger", "delete", "ed.once", "--yes"], 0,
           has=["deleted trigger ed.once"])
    expect("trigger delete again", ["trigger", "delete", "ed.once", "--yes"], 3)
    # Retry: a failed run's job fired again; a run that succeeded is not.
    expect("retry a failed run", ["retry", "102"], 0,
           has=["retried run 102 (FAILED) of job etl.load with the job's data"])
    check("retry fired the job", sql_rows(
        "SELECT COUNT(*) FROM {P}triggers WHERE trigger_group = 'MANUAL_TRIGGER' "
        "AND job_group = 'etl' AND job_name = 'load'") != [["0"]])
    rc, rj = js(["retry", "102", "--data", '{"again": true}'])
    check("retry json with data", rc == 0 and rj["data"] == "given" and rj["job"] == "etl.load", rj)
    expect("retry an OK run", ["retry", "101"], 1, err_has=["succeeded"])
    expect("retry unknown run", ["retry", "999999"], 3, err_has=["no run 999999"])
    expect("retry bad id", ["retry", "x1"], 2)
    # Issue 35: a fire-now's runs that carried data of their own (their
    # one-off triggers gone, as a completion leaves them): history shows
    # the data (binary as hex), and a retry runs the job with those bytes.
    now = int(sql_rows("SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)")[0][0])
    for fid, data in ((105, "'{\"batch\": 7}'"), (106, "X'00ff2201'")):
        sql_rows("INSERT INTO {P}history (sched_name, fire_id, trigger_group, "
                 "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
                 "error_code, error_text, started_ms, duration_ms, finished_ms, data) "
                 f"VALUES ('ctltest', {fid}, 'MANUAL_TRIGGER', 'MT_{fid}', 'etl', 'load', "
                 f"{now}, 'live-node', 'FAILED', -23, 'x', {now}, 1, {now}, {data})")
    rc, h = js(["history", "--job", "etl.load"])
    byfire = {x["fire_id"]: x for x in h or []}
    check("history json: a run's own data, text and hex, with its length",
          rc == 0 and byfire[105]["data"] == '{"batch": 7}'
          and byfire[105]["data_encoding"] == "text" and byfire[105]["data_bytes"] == 12
          and byfire[106]["data"] == "00ff2201" and byfire[106]["data_encoding"] == "hex"
          and byfire[106]["data_bytes"] == 4 and byfire[102]["data"] is None
          and byfire[102]["data_encoding"] is None and byfire[102]["data_bytes"] == 0, h)
    expect("retry a fire-now's run with its data", ["retry", "105"], 0,
           has=["retried run 105 (FAILED) of job etl.load with the run's own data"])
    check("the retry got the run's data back", sql_rows(
        "SELECT COUNT(*) FROM {P}triggers WHERE trigger_group = 'MANUAL_TRIGGER' "
        "AND job_name = 'load' AND data = '{\"batch\": 7}'") == [["1"]])
    rc, rj = js(["retry", "106"])
    check("retry json: the run's own binary data", rc == 0
          and rj["data"] == "the run's own", rj)
    check("the retry got the binary data back", sql_rows(
        "SELECT COUNT(*) FROM {P}triggers WHERE trigger_group = 'MANUAL_TRIGGER' "
        "AND job_name = 'load' AND HEX(data) = '00FF2201'") == [["1"]])
    rc, rj = js(["retry", "105", "--data", '{"batch": 8}'])
    check("the operator's data wins over the run's", rc == 0 and rj["data"] == "given"
          and sql_rows("SELECT COUNT(*) FROM {P}triggers WHERE trigger_group = "
                       "'MANUAL_TRIGGER' AND data = '{\"batch\": 8}'") == [["1"]], rj)
    expect("job delete", ["job", "delete", "ed.build", "--yes"], 0, has=["deleted job ed.build"])
    check("job delete took its triggers", not any(k.startswith("ed.") for k in triggers()))
    check("the client nodes are gone", sql_rows(
        "SELECT COUNT(*) FROM {P}nodes WHERE instance_id LIKE '%-client'") == [["0"]])
def audit_checks():
    """Every action of the run so far is in the audit table (issue 35)."""
    rc, rows = js(["audit", "--limit", "1000"])
    acts = {(r["action"], r["target"]) for r in rows or []}
    check("audit lists the actions", rc == 0 and {
        ("pause", "trigger rep.hourly"), ("resume", "trigger rep.hourly"),
        ("release", "lease nightly")} <= acts, sorted(acts)[:40])
    who = (rows or [{}])[0].get("who", "")
    check("audit: who is the OS user @ host, from chimectl",
          "@" in who and all(r["origin"] == "chimectl" for r in rows or []),
          rows[:2] if rows else rows)
    rc, rows = js(["audit", "--action", "pause"])
    check("audit --action filters", rc == 0 and rows and
          all(r["action"] == "pause" for r in rows), rows)
    rc, rows = js(["audit", "--who", "nobody@nowhere"])
    check("audit --who filters", rc == 0 and rows == [], rows)
    rc, rows = js(["audit", "--since", "2099-01-01T00:00:00Z"])
    check("audit --since filters", rc == 0 and rows == [], rows)
    expect("audit bad --since", ["audit", "--since", "soon"], 2)
    expect("audit extra argument", ["audit", "x"], 2)
    expect("audit table", ["audit", "--limit", "3"], 0,
           has=["TIME", "WHO", "ORIGIN", "ACTION", "TARGET"])


def drain_repair_checks():
    """drain/undrain and repair on a schema of their own (issue 35)."""
    expect("r: schema init", ["schema", "init"], 0, url=URL3)
    rc, rows = js(["audit"], url=URL3)
    check("schema init is in the audit table", rc == 0 and [
        (r["action"], r["target"]) for r in rows] == [("schema init",
                                                       "schema")], rows)
    expect("repair: a healthy cluster has nothing to repair",
           ["repair"], 0, has=["(none)"], url=URL3)
    helper("stuck", URL3)
    # drain
    expect("drain an unknown node", ["drain", "nosuch"], 3,
           err_has=["no node nosuch"], url=URL3)
    expect("undrain a node not drained", ["undrain", "busy-node"], 3,
           err_has=["not drained"], url=URL3)
    expect("drain usage", ["drain"], 2, url=URL3)
    expect("undrain takes no --wait", ["undrain", "busy-node", "--wait"], 2,
           url=URL3)
    expect("drain bad --timeout", ["drain", "busy-node", "--timeout", "x"], 2,
           url=URL3)
    out = expect("drain busy-node", ["drain", "busy-node", "--timeout", "30"],
                 0, has=["node busy-node is draining"], url=URL3)
    rc, nodes = js(["nodes"], url=URL3)
    byid = {n["id"]: n for n in nodes or []}
    check("nodes shows busy-node draining",
          byid.get("busy-node", {}).get("drain") == "draining", nodes)
    # --wait returns once the node says it is drained
    e = dict(os.environ, TZ="UTC")
    e.pop("CHIME_URL", None)
    w = subprocess.Popen([CTL, "--url", URL3, "--scheduler", "ctltest",
                          "--json", "drain", "busy-node", "--wait"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=e)
    time.sleep(1.0)
    check("drain --wait waits while the node is draining", w.poll() is None)
    helper("drained", URL3)
    try:
        out, err = w.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        w.kill()
        out, err = w.communicate()
    check("drain --wait returns once the node is drained",
          w.returncode == 0 and json.loads(out or "{}").get("drain") ==
          "drained", out + err)
    metrics = run(["metrics"], url=URL3)[1]
    check("metrics show the drained node",
          'chime_cluster_node_drain_state{scheduler="ctltest",node='
          '"busy-node"} 2' in metrics,
          [m for m in metrics.splitlines() if "drain" in m])
    expect("undrain busy-node", ["undrain", "busy-node"], 0,
           has=["undrained node busy-node"], url=URL3)
    rc, nodes = js(["nodes"], url=URL3)
    check("nodes shows busy-node active again", rc == 0 and {
        n["id"]: n["drain"] for n in nodes}.get("busy-node") == "active", nodes)
    # repair: the dry run lists each stuck state and changes nothing
    rc, found = js(["repair"], url=URL3)
    kinds = sorted((f["kind"], f["target"]) for f in found or [])
    check("repair dry run lists each stuck state", rc == 0 and kinds == [
        ("blocked", "job st.forbid"), ("error", "trigger st.err"),
        ("lease", "lease stale"), ("lost", "fire 900100"),
        ("orphan", "trigger CHIME_RETRY.orphan")], kinds)
    check("repair dry run says it applied nothing", all(
        f["result"].startswith("not applied") for f in found or []), found)
    out = expect("repair dry run table", ["repair"], 0,
                 has=["KIND", "blocked", "lost", "fire 900100", "--apply"],
                 url=URL3)
    check("the dry run changed nothing", len(js(["repair"], url=URL3)[1]
                                             or []) == 5)
    # --apply fixes each, recorded in the audit table
    rc, fixed = js(["repair", "--apply"], url=URL3)
    check("repair --apply fixes each", rc == 0 and len(fixed or []) == 5 and
          all(f["result"] == "fixed" for f in fixed), fixed)
    expect("repair: nothing left", ["repair"], 0, has=["(none)"], url=URL3)
    rc, rows = js(["audit", "--action", "repair"], url=URL3)
    check("each fix is in the audit table", rc == 0 and sorted(
        r["target"] for r in rows) == sorted(t for _, t in kinds), rows)
    rc, hist = js(["history", "--job", "st.lost"], url=URL3)
    check("the lost fire is recorded FAILED, its node named", rc == 0 and any(
        h["fire_id"] == 900100 and h["outcome"].lower() == "failed" and
        "no run of this fire" in (h["error"] or "") for h in hist or []), hist)
    rc, running = js(["running"], url=URL3)
    check("the fire busy-node lists still runs", rc == 0 and
          [r["fire_id"] for r in running or []] == [900101], running)
    rc, trig = js(["triggers", "st"], url=URL3)
    states = {t["name"]: t["state"] for t in trig or []}
    check("blocked and error triggers wait again",
          states.get("blocked", "").lower() in ("waiting", "normal") and
          states.get("err", "").lower() in ("waiting", "normal"), states)
    rc, leases = js(["leases"], url=URL3)
    check("the gone node's lease is released", rc == 0 and all(
        l["state"] != "held" for l in leases or [] if l["name"] == "stale"),
        leases)
    expect("repair extra argument", ["repair", "x"], 2, url=URL3)


def main():
    # Usage and help.
    expect("help", ["--help"], 0, has=["Exit status", "4 cannot connect"], url=None)
    expect("no command", [], 2, url=URL)
    expect("no url", ["nodes"], 2, err_has=["CHIME_URL"], url=None)
    expect("unknown command", ["bogus"], 2, err_has=["unknown command"])
    expect("unknown option", ["--bogus", "nodes"], 2, err_has=["--bogus"])

    # Schema on a fresh database.
    expect("schema version fresh", ["schema", "version"], 0, has=["schema version 0"])
    rc, v = js(["schema", "version"])
    check("schema version fresh json", rc == 0 and v["version"] == 0 and v["state"] == "missing", v)
    expect("nodes without schema", ["nodes"], 5, err_has=["schema init"])
    expect("migrate without schema", ["schema", "migrate"], 5, err_has=["schema init"])
    expect("schema init", ["schema", "init"], 0, has=["created"])
    expect("schema init again", ["schema", "init"], 0, has=["already"])
    expect("schema migrate current", ["schema", "migrate"], 0, has=["already"])
    rc, v = js(["schema", "version"])
    check("schema version current", rc == 0 and v["state"] == "current" and v["version"] >= 1, v)
    expect("schema bad word", ["schema", "drop"], 2)

    # A newer schema is never touched.
    helper("newer", URL2)
    expect("schema version newer", ["schema", "version"], 5, err_has=["newer"], url=URL2)
    expect("schema migrate newer", ["schema", "migrate"], 5, err_has=["refusing to downgrade"], url=URL2)
    expect("nodes on newer", ["nodes"], 5, err_has=["newer"], url=URL2)
    # A newer schema that says it is compatible with this chimectl's
    # version (a rolling upgrade, docs/operations.md): served, nothing to
    # migrate.
    helper("drop", URL2)
    expect("schema init for compatible", ["schema", "init"], 0, has=["created"], url=URL2)
    helper("compatible", URL2)
    expect("schema version compatible", ["schema", "version"], 0, has=["newer, compatible"], url=URL2)
    rc, v = js(["schema", "version"], url=URL2)
    check("schema version compatible json", rc == 0 and v and v["state"] == "compatible", v)
    expect("schema migrate compatible", ["schema", "migrate"], 0, has=["nothing to migrate"], url=URL2)
    expect("nodes on compatible", ["nodes"], 0, url=URL2)

    helper("setup", URL)

    # Connection and authentication errors, passwords.
    parts = urllib.parse.urlsplit(BASE)
    nopw = BASE.replace(parts.netloc, parts.netloc.replace(":" + (parts.password or ""), "", 1), 1)
    wrong = BASE.replace(parts.netloc, parts.netloc.replace(parts.password or "", "WRONGpw", 1), 1)
    expect("wrong password", ["nodes"], 4, err_has=["Access denied"], url=wrong)
    expect("wrong password from env", ["nodes"], 4, err_has=["***"],
           url=nopw + SEP + "prefix=" + PREFIX, env={"CHIME_PASSWORD": "WRONGpw"})
    expect("password from env", ["jobs"], 0, has=["etl"],
           url=nopw + SEP + "prefix=" + PREFIX, env={"CHIME_PASSWORD": PASSWORD})
    pwfile = f"/tmp/chimectl-test-pw-{os.getpid()}"
    with open(pwfile, "w") as f:
        f.write(PASSWORD + "\n")
    expect("password from file and CHIME_URL", ["--password-file", pwfile, "jobs"], 0,
           has=["etl"], url=None, env={"CHIME_URL": nopw + SEP + "prefix=" + PREFIX})
    os.unlink(pwfile)
    expect("unreachable server", ["nodes"], 4, err_has=["cannot"],
           url="mysql://u:p@127.0.0.1:1/x")
    # Issue 22, finding 8: usage errors exit 2, as documented.
    expect("not a mysql url", ["nodes"], 2, url="postgres://x")
    expect("a port that is not a number", ["nodes"], 2,
           url="mysql://u:p@127.0.0.1:notaport/x")
    expect("empty group pattern", ["pause", "group", ""], 2)
    expect("empty --scheduler", ["--scheduler", "", "nodes"], 2)

    # nodes
    out = expect("nodes table", ["nodes"], 0, has=["ID", "STATE", "dead-node", "live-node"])
    check("nodes leaves chimectl out", "chimectl-" not in out, out)
    rc, nodes = js(["nodes"])
    byid = {n["id"]: n for n in nodes or []}
    check("nodes json", rc == 0 and byid["dead-node"]["state"] == "dead"
          and byid["live-node"]["state"] == "live" and byid["live-node"]["running"] == 1
          and byid["live-node"]["pid"] == 4242 and byid["dead-node"]["checkin_age_ms"] >= 3600000, nodes)
    # The store's own lease rule: two check-in intervals, no grace.
    check("nodes dead by the store's rule", "late-node" in byid
          and byid["late-node"]["state"] == "dead", nodes)

    # jobs
    expect("jobs table", ["jobs"], 0, has=["GROUP", "etl", "forbid", "report"])
    rc, jobs = js(["jobs", "etl"])
    check("jobs exact group", rc == 0 and [j["name"] for j in jobs] == ["load"]
          and jobs[0]["concurrency"] == "forbid" and jobs[0]["triggers"] == 2
          and jobs[0]["durable"] is True, jobs)
    rc, jobs = js(["jobs", "r*"])
    check("jobs starts-with", rc == 0 and {j["group"] for j in jobs} == {"rep"}, jobs)
    rc, jobs = js(["jobs", "*"])
    check("jobs any", rc == 0 and len(jobs) == 6, jobs)
    rc, jobs = js(["jobs", "nosuch"])
    check("jobs none", rc == 0 and jobs == [], jobs)

    # triggers
    out = expect("triggers table", ["triggers"], 0,
                 has=["at 02:00:00, every day", "Asia/Shanghai", "do-nothing",
                      "every 2 days", "every 30 minutes from 09:00:00 to 17:00:00",
                      "every hour, forever", "calendar-interval", "NEXT_UTC"])
    t = triggers()
    cron = t.get("rep.daily-cron", {})
    check("triggers json cron", cron.get("kind") == "cron" and cron.get("priority") == 7
          and cron.get("misfire") == "do-nothing" and cron.get("zone") == "Asia/Shanghai"
          and cron.get("next_utc", "").endswith("18:00:00Z") and cron.get("prev") is None, cron)
    off = ctypes_free_jitter_offset("etl", "cal", 600000)
    check("triggers jitter shown", "every 2 days of the calendar, jittered +%d.%03ds (window 600.000s)"
          % (off // 1000, off % 1000) in t["etl.cal"].get("schedule", ""), t["etl.cal"])
    # backfill: the daily 02:00 Shanghai cron's fires of three past days,
    # created once (asked twice), as one-shot triggers of CHIME_BACKFILL.
    now_ms = int(time.time() * 1000)
    frm, to = str(now_ms - 3 * 86400000), str(now_ms)
    rc, bf = js(["backfill", "rep.daily-cron", "--from", frm, "--to", to])
    check("backfill created", rc == 0 and bf.get("created") == 3, bf)
    rc, bf = js(["backfill", "rep.daily-cron", "--from", frm, "--to", to])
    check("backfill once", rc == 0 and bf.get("created") == 0
          and bf.get("existed") == 3, bf)
    bft = [k for k in triggers() if k.startswith("CHIME_BACKFILL.")]
    check("backfill triggers", len(bft) == 3, bft)
    expect("backfill usage", ["backfill", "rep.daily-cron"], 2)
    for k in bft:  # addressable by G.N: the group has no dot
        expect("backfill trigger deleted", ["delete", "trigger", k, "--yes"], 0)
    # --pace: released an hour apart from now (no node runs them here);
    # --cancel removes them.
    rc, bf = js(["backfill", "rep.daily-cron", "--from", frm, "--to", to,
                 "--pace", "3600000"])
    check("backfill paced", rc == 0 and bf.get("created") == 3, bf)
    nexts = sorted(int(v["next_ms"])
                   for k, v in triggers().items()
                   if k.startswith("CHIME_BACKFILL."))
    check("backfill paced an hour apart", len(nexts) == 3 and
          [b - a for a, b in zip(nexts, nexts[1:])] == [3600000] * 2, nexts)
    expect("backfill pace usage", ["backfill", "rep.daily-cron", "--from",
                                   frm, "--to", to, "--pace", "-1"], 2)
    expect("backfill cancel usage", ["backfill", "rep.daily-cron", "--cancel",
                                     "--from", frm], 2)
    rc, bf = js(["backfill", "rep.daily-cron", "--cancel"])
    check("backfill cancelled", rc == 0 and bf.get("removed") == 3, bf)
    check("backfill cancel left none", not [
        k for k in triggers() if k.startswith("CHIME_BACKFILL.")])
    t = triggers()
    check("triggers json states", t["etl.cal"]["state"] == "blocked"
          and t["ops.claimed"]["state"] == "acquired" and t["ops.late"]["state"] == "waiting", t)
    rc, sh = js(["--tz", "Asia/Shanghai", "triggers", "rep"])
    check("triggers local time", rc == 0 and len(sh) == 2 and
          sh[0]["next"].endswith("+08:00") and sh[0]["next_utc"].endswith("Z"), sh)
    expect("bad zone", ["--tz", "Mars/Base", "triggers"], 2)

    # history
    expect("history table", ["history"], 0, has=["FIRE_ID", "disk full", "failed", "live-node"])
    rc, h = js(["history"])
    check("history json", rc == 0 and [x["fire_id"] for x in h] == [103, 102, 101]
          and h[1]["error"] == "disk full" and h[1]["duration_ms"] == 1500, h)
    rc, h = js(["history", "--failed"])
    check("history --failed", rc == 0 and [x["fire_id"] for x in h] == [102], h)
    rc, h = js(["history", "--job", "rep.daily"])
    check("history --job", rc == 0 and [x["fire_id"] for x in h] == [101], h)
    rc, h = js(["history", "--since", "-90m"])
    check("history --since", rc == 0 and [x["fire_id"] for x in h] == [103], h)
    rc, h = js(["history", "--limit", "2"])
    check("history --limit", rc == 0 and len(h) == 2, h)
    expect("history bad since", ["history", "--since", "yesterday"], 2)
    expect("history bad job", ["history", "--job", "nodot"], 2)
    # the search (issue 35): trigger, node, outcome, time range, pages
    for args, want in ((["--outcome", "failed"], [102]),
                       (["--until", "-90m"], [102, 101]),
                       (["--since", "-150m", "--until", "-90m"], [102]),
                       (["--node", "live-node", "--limit", "1", "--page", "2"], [102]),
                       (["--node", "nobody"], []),
                       (["--trigger", "x.y", "--outcome", "OK"], [103, 101]),
                       (["--trigger", "x.z"], [])):
        rc, h = js(["history"] + args)
        check("history " + " ".join(args), rc == 0 and
              [x["fire_id"] for x in h] == want, h)
    for args in (["--until", "yesterday"], ["--trigger", "nodot"],
                 ["--page", "0"], ["--outcome", "o'k"]):
        expect("history bad " + " ".join(args), ["history"] + args, 2)

    # running and events (chime-web's /api/running and /api/events)
    expect("running table", ["running"], 0, has=["FIRE_ID", "live-node"])
    rc, fires = js(["running"])
    check("running json", rc == 0 and any(
        r["node"] == "live-node" and r["state"] == "executing"
        and isinstance(r["fire_id"], int) for r in fires), fires)
    rc, ev = js(["events"])
    check("events json", rc == 0 and any(
        e["node"] == "live-node" and e["event"] == "started" for e in ev), ev)
    expect("running takes no argument", ["running", "x"], 2)
    # stats (issue 17): per job over a window, from the history table
    expect("stats table", ["stats"], 0,
           has=["LATE_P99_MS", "etl.load", "rep.hourly", "NEXT_FIRE"])
    rc, st = js(["stats"])
    by = {x["job"]: x for x in st} if rc == 0 else {}
    check("stats json", rc == 0 and sorted(by) == ["etl.load", "rep.daily", "rep.hourly"]
          and by["etl.load"]["runs"] == 1 and by["etl.load"]["failures"] == 1
          and by["rep.daily"]["failures"] == 0 and by["rep.daily"]["late_p50_ms"] == 10
          and by["rep.daily"]["late_p99_ms"] == 10 and by["rep.daily"]["next_fire_ms"] > 0, st)
    rc, st = js(["stats", "--since", "-90m"])
    check("stats --since", rc == 0 and [x["job"] for x in st] == ["rep.hourly"], st)
    rc, st = js(["stats", "--job", "etl.load"])
    check("stats --job", rc == 0 and [x["job"] for x in st] == ["etl.load"], st)
    expect("stats bad since", ["stats", "--since", "yesterday"], 2)

    # metrics (issue 17): the cluster's figures, read by a real parser
    rc, out, err = run(["metrics"])
    fams = {}
    if rc == 0:
        for fam in text_string_to_metric_families(out):
            for s in fam.samples:
                fams[(s.name, tuple(sorted(s.labels.items())))] = s.value
    base = (("scheduler", "ctltest"),)

    def val(name, **kw):
        return fams.get((name, tuple(sorted(base + tuple(kw.items())))))
    check("metrics parse", rc == 0 and len(fams) > 10, out + err)
    check("metrics runs", val("chime_cluster_runs", job="etl.load", outcome="FAILED") == 1
          and val("chime_cluster_runs", job="rep.daily", outcome="OK") == 1, fams)
    check("metrics lateness", val("chime_cluster_fire_lateness_seconds_count") == 3
          and val("chime_cluster_fire_lateness_seconds_bucket", le="0.01") == 3
          and val("chime_cluster_fire_lateness_seconds_bucket", le="0.005") == 0, fams)
    # As many as the triggers listing says (it may hold the backfill's).
    waiting = sum(1 for x in triggers().values() if x["state"] == "waiting")
    check("metrics triggers and fires", waiting >= 5
          and val("chime_cluster_triggers", state="WAITING") == waiting
          and val("chime_cluster_fires", state="EXECUTING") == 1, fams)
    check("metrics nodes", val("chime_cluster_nodes") == 3
          and val("chime_cluster_node_checkin_age_seconds", node="dead-node") > 3000, fams)

    # stats and metrics tell the truth (issue 35): job st.sync's runs are
    # scheduled ones late 20, 40, 30 (FAILED) and 30 ms (its node died:
    # REQUEUED), its recovery (OK, 45 s after the scheduled time), a retry
    # (60 s after), a backfill (30 days after) and a fire-now (50 min
    # after).  Only the scheduled runs have a lateness; the dead node's
    # REQUEUED row is a recovered run, not a run or a failure.
    helper("stats", URL)
    rc, st = js(["stats", "--job", "st.sync"])
    s = st[0] if rc == 0 and st else {}
    check("stats: lateness of scheduled runs only",
          s.get("late_p50_ms") == 30 and s.get("late_p99_ms") == 40, st)
    check("stats: a recovered run is no failure",
          s.get("runs") == 7 and s.get("failures") == 1
          and s.get("recovered") == 1, st)
    expect("stats table shows recovered", ["stats", "--job", "st.sync"], 0,
           has=["RECOVERED", "st.sync"])
    rc, out, err = run(["metrics"])
    lat = {}
    if rc == 0:
        for fam in text_string_to_metric_families(out):
            for smp in fam.samples:
                if smp.name == "chime_cluster_fire_lateness_seconds_count":
                    lat["count"] = smp.value
                if smp.name == "chime_cluster_fire_lateness_seconds_sum":
                    lat["sum"] = smp.value
    check("metrics: lateness of scheduled runs only (3 + 4)",
          lat.get("count") == 7 and lat.get("sum", 99) < 1, lat)
    helper("unstats", URL)

    # explain
    want = {"rep.daily-cron": ("due", "due at"), "rep.hourly": (None, "due at"),
            "etl.cal": ("blocked", "forbids concurrent runs"),
            "etl.window": ("due", "due at"), "ops.late": ("misfired", "misfire scan"),
            "ops.claimed": ("dead_node", "dead-node"),
            "ops.ended": ("ended", "end time")}
    for key, (reason, text) in want.items():
        expect("explain " + key, ["explain", key], 0, has=[text])
        rc, e = js(["explain", key])
        check("explain json " + key, rc == 0 and (reason is None or e["reason"] == reason), e)
    expect("explain unknown", ["explain", "no.such"], 3, err_has=["no trigger no.such"])
    show_checks()

    # pause / resume
    expect("pause trigger", ["pause", "trigger", "rep.hourly"], 0, has=["paused"])
    check("paused trigger state", triggers()["rep.hourly"]["state"] == "paused")
    expect("explain paused", ["explain", "rep.hourly"], 0,
           has=["paused", "resume with 'chimectl resume ...'"])
    expect("resume trigger", ["resume", "trigger", "rep.hourly"], 0)
    check("resumed trigger state", triggers()["rep.hourly"]["state"] == "waiting")
    rc, r = js(["pause", "job", "rep.daily"])
    check("pause job json", rc == 0 and r["ok"] is True, r)
    check("paused job state", triggers()["rep.daily-cron"]["state"] == "paused")
    expect("explain paused job", ["explain", "rep.daily-cron"], 0, has=["job rep.daily is paused"])
    expect("resume job", ["resume", "job", "rep.daily"], 0)
    expect("pause group", ["pause", "group", "re*"], 0)
    t = triggers()
    check("paused group", t["rep.hourly"]["state"] == "paused" and t["ops.late"]["state"] == "waiting", t)
    expect("resume group", ["resume", "group", "re*"], 0)
    expect("pause all", ["pause", "all"], 0)
    t = triggers()
    check("paused all", t["ops.late"]["state"] == "paused", t)
    expect("explain paused all", ["explain", "ops.late"], 0, has=["all triggers are paused"])
    expect("resume all", ["resume", "all"], 0)
    check("resumed all", triggers()["ops.late"]["state"] == "waiting")
    expect("pause unknown trigger", ["pause", "trigger", "no.such"], 3)
    expect("resume unknown job", ["resume", "job", "no.such"], 3)
    expect("pause bad usage", ["pause", "trigger"], 2)
    expect("pause bad key", ["pause", "job", "nodot"], 2)

    # fire
    expect("fire", ["fire", "rep.daily", "--data", '{"n": 1}'], 0, has=["MANUAL_TRIGGER"])
    rc, f = js(["fire", "rep.daily"])
    check("fire json", rc == 0 and f["trigger"].startswith("MANUAL_TRIGGER."), f)
    t = triggers()
    manual = [k for k in t if k.startswith("MANUAL_TRIGGER.")]
    check("fire adds one-shot triggers", len(manual) == 2 and
          all(t[k]["job"] == "rep.daily" and t[k]["schedule"] == "once" for k in manual), t)
    for bad in ('{"n": 1', "{n: 1}", "[1,]", '"a', "01", "1 2", "[" * 100 + "]" * 100):
        expect("fire bad data " + bad[:12], ["fire", "rep.daily", "--data", bad], 2,
               err_has=["not valid JSON"])
    for good in ('[1, -2.5e3, "x\\u00e9", true, false, null, {"a": {}}]', " 7 "):
        expect("fire good data " + good[:12], ["fire", "rep.daily", "--data", good], 0)
    expect("fire unknown", ["fire", "no.such"], 3, err_has=["no job no.such"])

    # fire --key (a request key) and enqueue (docs/queue.md)
    rc, f = js(["fire", "rep.daily", "--key", "req-1"])
    check("fire --key", rc == 0 and f["trigger"] == "CHIME_QUEUE.K_req-1"
          and f["existed"] is False, f)
    rc, f = js(["fire", "rep.daily", "--key", "req-1"])
    check("fire --key again: nothing stored", rc == 0 and f["existed"] is True
          and f["trigger"] == "CHIME_QUEUE.K_req-1", f)
    expect("fire --key again, text", ["fire", "rep.daily", "--key", "req-1"], 0,
           has=["run CHIME_QUEUE.K_req-1 with key req-1 is waiting or running"])
    expect("enqueue", ["enqueue", "rep.daily", "--data", '{"n": 2}',
                       "--priority", "9", "--at", "2030-01-01T00:00:00Z"], 0,
           has=["enqueued job rep.daily: trigger CHIME_QUEUE.Q_",
                "due at 2030-01-01 00:00:00"])
    rc, f = js(["enqueue", "rep.daily", "--key", "inv-7"])
    check("enqueue --key", rc == 0 and f["trigger"] == "CHIME_QUEUE.K_inv-7"
          and f["existed"] is False and f["due_ms"] > 0, f)
    rc, f = js(["enqueue", "rep.daily", "--key", "inv-7"])
    check("enqueue --key again", rc == 0 and f["existed"] is True, f)
    rc, f = js(["enqueue", "rep.daily", "--key", "inv-8", "--partition", "tenant-7"])
    rows = sql_rows("SELECT partition_key FROM {P}triggers WHERE trigger_group = "
                    "'CHIME_QUEUE' AND trigger_name = 'K_inv-8'")
    check("enqueue --partition: the run's trigger has the key",
          rc == 0 and rows == [["tenant-7"]], (f, rows))
    rc, f = js(["enqueue", "rep.daily", "--key", "inv-9", "--unique-for", "2h"])
    rows = sql_rows("SELECT unique_for_ms FROM {P}triggers WHERE trigger_group = "
                    "'CHIME_QUEUE' AND trigger_name = 'K_inv-9'")
    check("enqueue --unique-for: the run keeps its key 2 h after it",
          rc == 0 and rows == [["7200000"]], (f, rows))
    expect("enqueue --unique-for without --key",
           ["enqueue", "rep.daily", "--unique-for", "1h"], 2,
           err_has=["--unique-for needs --key"])
    expect("enqueue bad --unique-for",
           ["enqueue", "rep.daily", "--key", "x", "--unique-for", "30d"], 2,
           err_has=["--unique-for"])
    rc, f = js(["enqueue", "rep.daily", "--key", "inv-10", "--retry",
                "5,1s,2,1m,500ms"])
    rows = sql_rows("SELECT run_retry_max_attempts, run_retry_initial_delay_ms, "
                    "run_retry_multiplier_milli, run_retry_max_delay_ms, "
                    "run_retry_jitter_ms FROM {P}triggers WHERE trigger_group = "
                    "'CHIME_QUEUE' AND trigger_name = 'K_inv-10'")
    check("enqueue --retry: the run's own policy is stored with it",
          rc == 0 and rows == [["5", "1000", "2000", "60000", "500"]],
          (f, rows))
    for bad in ("", "x", "2,soon", "2,1s,0.5", "1,1s,2,1m,1s,9", "-1"):
        expect("enqueue bad --retry " + bad,
               ["enqueue", "rep.daily", "--retry", bad], 2,
               err_has=["--retry"])
    t = triggers()
    queued = [k for k in t if k.startswith("CHIME_QUEUE.")]
    check("enqueue adds one-shot triggers", len(queued) == 6 and
          all(t[k]["job"] == "rep.daily" and t[k]["schedule"] == "once"
              for k in queued), t)
    expect("enqueue unknown", ["enqueue", "no.such"], 3,
           err_has=["no job no.such"])
    expect("enqueue bad data", ["enqueue", "rep.daily", "--data", "{"], 2,
           err_has=["not valid JSON"])
    expect("enqueue bad time", ["enqueue", "rep.daily", "--at", "soon"], 2,
           err_has=["--at"])
    expect("enqueue no key", ["enqueue"], 2, err_has=["usage"])
    for k in queued:
        expect("delete " + k, ["delete", "trigger", k, "--yes"], 0)

    # cancel (nothing runs here: the engine tests cover a run being told)
    expect("cancel job", ["cancel", "job", "rep.daily"], 0, has=["asked 0 running"])
    rc, x = js(["cancel", "job", "rep.daily"])
    check("cancel json", rc == 0 and x["runs"] == 0 and x["action"] == "cancelled", x)
    expect("cancel unknown job", ["cancel", "job", "no.such"], 3, err_has=["no job no.such"])
    expect("cancel fire not running", ["cancel", "fire", "424242"], 3,
           err_has=["no fire 424242"])
    for bad in (["cancel"], ["cancel", "job"], ["cancel", "fire", "x"],
                ["cancel", "fire", "0"], ["cancel", "thing", "a.b"]):
        expect("cancel usage " + " ".join(bad[1:]), bad, 2)

    # delete, confirmed on a terminal
    for answer, status in (("n", 1), ("y", 0)):
        master, slave = os.openpty()
        os.write(master, (answer + "\n").encode())
        try:
            rc, out, err = run(["delete", "trigger", "etl.window"], stdin=slave)
        finally:
            os.close(slave)
            os.close(master)
        check(f"delete on a terminal answered {answer}", rc == status and
              "Delete trigger etl.window? [y/N]" in err, (rc, out, err))
    check("deleted after yes", "etl.window" not in triggers())
    expect("delete without --yes", ["delete", "job", "rep.hourly"], 2,
           err_has=["--yes", "not a terminal"])
    check("not deleted", "rep.hourly" in triggers())
    expect("delete trigger", ["delete", "trigger", "ops.late", "--yes"], 0, has=["deleted"])
    expect("delete job", ["--yes", "delete", "job", "rep.hourly"], 0)
    t = triggers()
    check("deleted", "ops.late" not in t and "rep.hourly" not in t, t)
    rc, jobs = js(["jobs", "rep"])
    check("deleted job gone", rc == 0 and [j["name"] for j in jobs] == ["daily"], jobs)
    expect("delete unknown", ["delete", "trigger", "ops.late", "--yes"], 3)
    expect("delete bad usage", ["delete", "calendar", "x.y", "--yes"], 2)

    # zones (the setup's triggers name Asia/Shanghai, Europe/Berlin, UTC and,
    # through its TZID, Europe/Paris); nothing changed, so nothing moves.
    expect("zones", ["zones"], 0, has=["ZONE", "Asia/Shanghai", "+08:00"])
    rc, zs = js(["zones"])
    zn = {z["zone"]: z for z in zs} if rc == 0 else {}
    check("zones json", rc == 0 and zn["Asia/Shanghai"]["triggers"] >= 1
          and zn["Asia/Shanghai"]["offset_now"] == "+08:00", zs)
    rc, zr = js(["zones", "reload"])
    check("zones reload", rc == 0 and zr["zones"] == len(zs) and zr["recomputed"] == 0, zr)
    expect("zones reload one", ["zones", "reload", "Asia/Shanghai"], 0,
           has=["reloaded 1 zone(s)", "0 trigger(s) moved"])
    expect("zones reload unknown", ["zones", "reload", "Nope/Nowhere"], 3,
           err_has=["Nope/Nowhere"])
    expect("zones bad usage", ["zones", "list"], 2)

    # leases
    expect("leases", ["leases"], 0, has=["nightly", "live-node", "hostA", "4242", "held", "old", "free"])
    rc, ls = js(["leases"])
    by = {l["name"]: l for l in ls} if rc == 0 else {}
    check("leases json", rc == 0 and by["nightly"]["token"] == 7 and by["nightly"]["state"] == "held"
          and by["old"]["state"] == "free" and by["nightly"]["pid"] == 4242, ls)
    expect("lease release without --yes", ["lease", "release", "nightly"], 2,
           err_has=["--yes", "not a terminal"])
    expect("lease release", ["lease", "release", "nightly", "--yes"], 0, has=["released lease nightly"])
    rc, ls = js(["leases"])
    check("released lease is free", rc == 0 and all(l["state"] == "free" for l in ls), ls)
    expect("lease release again", ["lease", "release", "nightly", "--yes"], 3, err_has=["no held lease"])
    expect("lease bad usage", ["lease", "take", "nightly"], 2)
    expect("leases bad usage", ["leases", "x"], 2)

    # limits (docs/queue.md, "Limits")
    expect("limits none", ["limits"], 0)
    expect("limit set", ["limit", "set", "export", "--max", "4", "--per-partition", "1",
                         "--rate", "50/1s"], 0, has=["set the limit of job type export"])
    expect("limit set other", ["limit", "set", "other", "--rate", "600/1m"], 0)
    expect("limit show", ["limit", "show"], 0, has=["export", "50/1000ms", "600/60000ms"])
    rc, ls = js(["limits"])
    by = {l["type"]: l for l in ls} if rc == 0 else {}
    check("limits json", rc == 0 and by["export"]["max"] == 4 and by["export"]["per_key"] == 1
          and by["export"]["waiting"] == 0 and by["export"]["running"] == 0
          and by["export"]["partition"] is None and by["other"]["max"] is None
          and by["other"]["rate"] == "600/60000ms", ls)
    expect("limit set nothing", ["limit", "set", "x"], 2, err_has=["no figure set"])
    expect("limit set bad rate", ["limit", "set", "x", "--rate", "5/2q"], 2, err_has=["--rate"])
    expect("limit set bad max", ["limit", "set", "x", "--max", "-1"], 2, err_has=["--max"])
    expect("limit clear", ["limit", "clear", "other"], 0, has=["cleared"])
    expect("limit clear again", ["limit", "clear", "other"], 3, err_has=["has no limit"])
    expect("limit bad usage", ["limit", "take", "x"], 2)
    rc, ls = js(["limits"])
    check("limit cleared", rc == 0 and [l["type"] for l in ls] == ["export"], ls)
    run(["limit", "clear", "export"])
    # The per-partition half: a rate per key, the key from the run's data.
    rtype = sql_rows("SELECT job_type FROM {P}jobs WHERE job_group = 'rep' "
                     "AND job_name = 'daily'")[0][0]
    expect("limit set per partition", ["limit", "set", rtype, "--per-partition", "1",
                                       "--partition-rate", "10/1m",
                                       "--partition-field", "tenant"], 0,
           has=["set the limit of job type " + rtype])
    rc, ls = js(["limits"])
    by = {l["type"]: l for l in ls if l["partition"] is None} if rc == 0 else {}
    check("limits json per partition", rc == 0 and by[rtype]["key_rate"] == "10/60000ms"
          and by[rtype]["field"] == "tenant" and by[rtype]["rate"] is None
          and by[rtype]["per_key"] == 1, ls)
    expect("limit show per partition", ["limit", "show"], 0,
           has=["KEY_RATE", "FIELD", "10/60000ms", "tenant"])
    rc, f = js(["enqueue", "rep.daily", "--key", "inv-9",
                "--data", '{"tenant": "acme", "n": 1}'])
    rows = sql_rows("SELECT partition_key FROM {P}triggers WHERE trigger_group = "
                    "'CHIME_QUEUE' AND trigger_name = 'K_inv-9'")
    check("enqueue: the partition key taken from the data",
          rc == 0 and rows == [["acme"]], (f, rows))
    rc, ls = js(["limits"])
    acme = [l for l in ls if l["partition"] == "acme"] if rc == 0 else []
    check("limits json: the partition's row", len(acme) == 1 and acme[0]["waiting"] == 1
          and acme[0]["key_rate"] == "10/60000ms", ls)
    expect("metrics per partition", ["metrics"], 0,
           has=['# TYPE chime_cluster_limit_rate_per_second gauge',
                'type="' + rtype + '",partition="acme"} 0.166667'])
    sql_rows("DELETE FROM {P}triggers WHERE trigger_name = 'K_inv-9'")
    expect("limit set bad partition rate", ["limit", "set", rtype, "--partition-rate", "x"],
           2, err_has=["--partition-rate"])
    run(["limit", "clear", rtype])

    watch_checks()
    edit_checks()
    audit_checks()
    drain_repair_checks()

    if PASSWORD:
        check("password never printed", not any(PASSWORD in o for o in outputs))


try:
    main()
finally:
    helper("drop", URL)
    helper("drop", URL2)
    helper("drop", URL3)
print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
