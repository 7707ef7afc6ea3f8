#!/usr/bin/env python3
"""test-chime-alert.py: runs chime-alert against the throwaway MariaDB
(CHIME_TEST_MYSQL_URL), in tables of a prefix of its own, with a local
HTTP receiver (and an https one) and a command sink, and checks what
arrives: one POST per failure with the right JSON, retries through two
500s, a dead node alerted once (and resolved), a misfire, an overdue job,
the command's stdin and environment, and no resend after a restart.

usage: test-chime-alert.py PATH-TO-chime-alert PATH-TO-chimectl BUILD_ROOT CC SANITIZE
"""
import http.server
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ALERT, CTL, BUILD, CC, SANITIZE = sys.argv[1:6]
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE = os.environ.get("CHIME_TEST_MYSQL_URL")
if not BASE:
    print("FAIL: CHIME_TEST_MYSQL_URL is not set (start ./dev db-up): a "
          "missing database is never a skip")
    sys.exit(1)
PREFIX = "alert%d_" % os.getpid()
SEP = "&" if "?" in BASE else "?"
URL = BASE + SEP + "prefix=" + PREFIX
DB = urllib.parse.urlsplit(BASE)
SCHED = "alerttest"
TMP = tempfile.mkdtemp(prefix="chime-alert-test-")
STATE = os.path.join(TMP, "state")
failures = 0
passed = 0


def check(name, cond, detail=""):
    global failures, passed
    if cond:
        passed += 1
        print(f"ok   {name}")
    else:
        failures += 1
        print(f"FAIL {name} {detail}")


def sql(query):
    """Runs SQL on the test database ({P}: the prefix); rows as lists."""
    p = subprocess.run(
        ["mysql", "-h", DB.hostname, "-P", str(DB.port or 3306), "-u",
         urllib.parse.unquote(DB.username), "-N", "-B",
         DB.path.lstrip("/"), "-e", query.replace("{P}", PREFIX)],
        capture_output=True, text=True, timeout=30,
        env=dict(os.environ, MYSQL_PWD=urllib.parse.unquote(DB.password or "")))
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return [line.split("\t") for line in p.stdout.splitlines()]


def now_ms():
    return int(sql("SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)")[0][0])


def wait(what, fn, timeout=15.0):
    """Polls fn until it returns something true (wide margins)."""
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v or time.monotonic() > end:
            check(what, v)
            return v
        time.sleep(0.05)


class Receiver:
    """A local webhook: records each POST; answers the statuses queued
    (then 200)."""

    def __init__(self, tls_ctx=None):
        self.posts = []
        self.answers = []
        self.lock = threading.Lock()
        rec = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                with rec.lock:
                    status = rec.answers.pop(0) if rec.answers else 200
                    rec.posts.append({"path": self.path, "status": status,
                                      "headers": dict(self.headers),
                                      "body": body.decode()})
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls_ctx:
            self.server.socket = tls_ctx.wrap_socket(self.server.socket,
                                                     server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, kind=None, status=200):
        with self.lock:
            out = [json.loads(p["body"]) for p in self.posts
                   if status is None or p["status"] == status]
        return [b for b in out if kind is None or b["kind"] == kind]


def history(job, outcome="FAILED", error="disk full", fire_id=1):
    g, n = job.split(".", 1)
    t = now_ms()
    sql("INSERT INTO {P}history (sched_name, fire_id, trigger_group, "
        "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
        "error_code, error_text, started_ms, duration_ms, recovering, "
        f"finished_ms) VALUES ('{SCHED}', {fire_id}, '{g}', '{n}-trigger', "
        f"'{g}', '{n}', {t - 100}, 'node-a', '{outcome}', -1, '{error}', "
        f"{t - 90}, 80, 0, {t - 10})")


class Alert:
    """A running chime-alert."""

    def __init__(self, *extra):
        self.log = open(os.path.join(TMP, "alert.log"), "a")
        self.p = subprocess.Popen(
            [ALERT, "--url", URL, "--scheduler", SCHED, "--state", STATE,
             "--interval", "0.1", "--retry", "0.1"] + list(extra),
            stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(timeout=20)
        self.log.close()
        return rc


def log_text():
    with open(os.path.join(TMP, "alert.log")) as f:
        return f.read()


NODE = """
import sys, threading, time
import chime
url, sched = sys.argv[1], sys.argv[2]
ran = threading.Event()
with chime.Scheduler(url=url, name=sched, instance_id="py-node", workers=2,
                     log=False) as s:
    def boom(ctx):
        ran.set()
        raise RuntimeError("disk full")
    s.register("boom", boom)
    s.schedule(chime.Job("real", "boom", "boom"),
               chime.Simple(interval_ms=0, repeat=0, group="real", name="once"))
    if not ran.wait(30):
        sys.exit("the job did not run")
    end = time.monotonic() + 30
    while not s.history(job="real.boom") and time.monotonic() < end:
        time.sleep(0.05)
"""


IDLE_NODE = """
import sys, time
import chime
with chime.Scheduler(url=sys.argv[1], name=sys.argv[2], instance_id=sys.argv[3],
                     workers=1, log=False) as s:
    print("up", flush=True)
    time.sleep(120)
"""


def node_env():
    env = dict(os.environ)
    env["CHIME_LIB"] = os.path.join(BUILD, "libchime.so")
    env["CHIME_LIB_ONLY"] = "1"
    env["PYTHONPATH"] = os.path.join(SOURCE, "bindings", "python")
    if "address" in SANITIZE:
        rt = subprocess.run(CC.split() + ["-print-file-name=libasan.so"],
                            capture_output=True, text=True).stdout.strip()
        env["LD_PRELOAD"] = rt
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def idle_death(recv):
    """Two real nodes (check-in every 1 s, the default); one is killed
    while idle and the survivor removes its row within about 3 s: the
    nodes read every 250 ms see it stale first, so its death is alerted,
    once."""
    nodes = [subprocess.Popen([sys.executable, "-c", IDLE_NODE, URL, SCHED, n],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=node_env())
             for n in ("py-a", "py-b")]
    try:
        up = all(p.stdout.readline().strip() == "up" for p in nodes)
        check("two idle nodes up", up)
        time.sleep(0.5)
        nodes[1].kill()
        nodes[1].wait(timeout=30)
        got = wait("an idle node killed: dead", lambda: [
            b for b in recv.bodies("node_dead") if b["node"] == "py-b"], 20)
        wait("the survivor removed its row", lambda: not sql(
            "SELECT 1 FROM {P}nodes WHERE instance_id = 'py-b'"), 20)
        time.sleep(0.5)
        got = [b for b in recv.bodies("node_dead") if b["node"] == "py-b"]
        check("an idle node's death alerted once", len(got) == 1, got)
        nodes[0].send_signal(signal.SIGINT)  # a clean stop: its row goes
        nodes[0].wait(timeout=30)
        wait("the survivor stopped cleanly", lambda: not sql(
            "SELECT 1 FROM {P}nodes WHERE instance_id = 'py-a'"), 20)
        time.sleep(0.5)
        check("the survivor, stopped cleanly, is not dead",
              not [b for b in recv.bodies("node_dead") if b["node"] == "py-a"])
    finally:
        for p in nodes:
            p.kill()
            p.wait(timeout=30)


def real_node():
    """A node of this build (the Python binding) whose job fails: the
    engine writes the history row."""
    p = subprocess.run([sys.executable, "-c", NODE, URL, SCHED],
                       capture_output=True, text=True, timeout=90, env=node_env())
    check("a real node ran its failing job", p.returncode == 0, p.stderr[-2000:])


def usage_checks():
    for args, words in (([], "no --webhook"), (["--webhook", "ftp://x"], "http://"),
                        (["--webhook", "http://h/a b"], "no spaces"),
                        (["--webhook", "http://u:p@h/"], "credentials"),
                        (["--webhook", "http://h:x/"], "port"),
                        (["--command", "true", "--expect", "a.b=soon"], "duration"),
                        (["--command", "true", "--expect", "ab=1m"], "GROUP.NAME"),
                        (["--command", "true", "--header", "nocolon"], "Name: value"),
                        (["--command", "true", "--interval", "0"], "--interval")):
        p = subprocess.run([ALERT, "--url", URL] + args, capture_output=True,
                           text=True, timeout=30)
        check(f"usage {args}: exit 2", p.returncode == 2 and words in p.stderr,
              f"{p.returncode} {p.stderr!r}")
    p = subprocess.run([ALERT, "--help"], capture_output=True, text=True, timeout=30)
    check("--help", p.returncode == 0 and "--webhook URL" in p.stdout)


def main():
    subprocess.run([CTL, "--url", URL, "--scheduler", SCHED, "schema", "init"],
                   check=True, capture_output=True, timeout=60)
    usage_checks()
    recv = Receiver()
    hook = f"http://127.0.0.1:{recv.port}/hook"
    cmd_out = os.path.join(TMP, "cmd")
    os.mkdir(cmd_out)
    command = (f"f={cmd_out}/$(date +%s%N).json; cat > $f.tmp; "
               "echo \"$CHIME_ALERT_KIND $CHIME_ALERT_STATUS $CHIME_ALERT_JOB "
               "$CHIME_ALERT_FIRE_ID\" > $f.env; mv $f.tmp $f")
    sql("INSERT INTO {P}jobs (sched_name, job_group, job_name, job_type, "
        f"durable, requests_recovery, concurrency, persist_data) VALUES "
        f"('{SCHED}', 'ov', 'hourly', 't', 1, 0, 0, 0)")
    a = Alert("--webhook", hook, "--header", "Authorization: Bearer s3cret",
              "--command", command, "--window", "600",
              "--misfire-threshold", "1", "--expect", "ov.*=2s")
    wait("first poll writes the state file", lambda: os.path.exists(STATE))

    # A node's job that fails: one POST naming it; its clean stop (its
    # row removed with a fresh check-in) is no death.
    real_node()
    got = wait("a real failure POSTed", lambda: [
        b for b in recv.bodies("run_failed") if b["job"] == "real.boom"])
    if got:
        b = got[0]
        check("a real failure's JSON", b["trigger"] == "real.once" and
              b["node"] == "py-node" and b["outcome"] == "FAILED" and
              "disk full" in b["message"] and b["fire_id"] > 0, b)
    time.sleep(0.6)
    check("a node that stops cleanly is not dead", not recv.bodies("node_dead"),
          recv.bodies("node_dead"))

    def load_fails():
        return [b for b in recv.bodies("run_failed") if b["job"] == "etl.load"]

    # A failing job: exactly one POST with the right JSON; the command too.
    history("etl.load", fire_id=4242)
    got = wait("failed run POSTed", load_fails)
    time.sleep(0.6)  # six more polls: nothing more
    fails = load_fails()
    posts = [p for p in recv.posts if '"job":"etl.load"' in p["body"]]
    check("exactly one POST for one failure", len(fails) == 1 and len(posts) == 1,
          posts)
    if got:
        b = got[0]
        check("failure JSON", b["status"] == "firing" and b["job"] == "etl.load"
              and b["trigger"] == "etl.load-trigger" and b["fire_id"] == 4242
              and b["node"] == "node-a" and b["outcome"] == "FAILED"
              and b["count"] == 1 and b["scheduler"] == SCHED
              and b["key"] == "run_failed:etl.load" and "disk full" in b["message"]
              and b["time"].endswith("Z") and isinstance(b["time_ms"], int)
              and b["text"].startswith(f"chime {SCHED}: run_failed FIRING: job "
                                       "etl.load failed"), b)
        post = [p for p in recv.posts if "etl.load" in p["body"]][0]
        check("POST headers", post["path"] == "/hook" and
              post["headers"].get("Content-Type") == "application/json"
              and post["headers"].get("Authorization") == "Bearer s3cret",
              post["headers"])

    def command_got(kind):
        out = []
        for f in sorted(os.listdir(cmd_out)):
            if f.endswith(".json"):
                with open(os.path.join(cmd_out, f)) as fh:
                    body = json.load(fh)
                with open(os.path.join(cmd_out, f + ".env")) as fh:
                    env = fh.read().split()
                if body["kind"] == kind:
                    out.append((body, env))
        return out

    c = wait("command sink ran", lambda: [
        x for x in command_got("run_failed") if x[0]["job"] == "etl.load"])
    if c:
        check("command stdin and environment",
              c[0][0]["job"] == "etl.load" and
              c[0][1] == ["run_failed", "firing", "etl.load", "4242"], c)

    # The same job again within the window: counted, not sent.
    history("etl.load", fire_id=4243)
    time.sleep(0.6)
    check("a second failure within the window is not sent",
          len(load_fails()) == 1, load_fails())

    # A receiver answering 500 twice, then 200: the third try gets it.
    recv.answers = [500, 500]
    history("etl.other", outcome="TIMED_OUT", error="ran over", fire_id=77)
    got = wait("retried alert delivered",
               lambda: [b for b in recv.bodies("run_failed")
                        if b["job"] == "etl.other"])
    time.sleep(0.5)
    tries = [p for p in recv.posts if "etl.other" in p["body"]]
    check("delivered on the third try", [p["status"] for p in tries] == [500, 500, 200],
          [p["status"] for p in tries])
    check("each try the same alert", len({p["body"] for p in tries}) == 1)

    # A dead node: alerted once over many polls, resolved when it is back.
    t = now_ms()
    sql("INSERT INTO {P}nodes (sched_name, instance_id, host, pid, started_ms, "
        f"last_checkin_ms, checkin_interval_ms, version) VALUES ('{SCHED}', "
        f"'node-x', 'hostx', 1, {t - 120000}, {t - 60000}, 1000, '0.1.0')")
    got = wait("dead node POSTed", lambda: recv.bodies("node_dead"))
    time.sleep(1.0)
    dead = recv.bodies("node_dead")
    check("a dead node alerts once", len(dead) == 1 and dead[0]["node"] == "node-x"
          and dead[0]["status"] == "firing" and "dead" in dead[0]["message"], dead)
    sql(f"UPDATE {{P}}nodes SET last_checkin_ms = {now_ms()}, "
        "checkin_interval_ms = 600000 WHERE instance_id = 'node-x'")
    wait("node back: resolved", lambda: [b for b in recv.bodies("node_dead")
                                         if b["status"] == "resolved"])

    # A node whose check-ins stopped, removed by a survivor's recovery
    # before chime-alert saw its lease run out: seen stale (over 1.5
    # check-in intervals old, still live), then gone: dead, once.
    t = now_ms()
    sql("INSERT INTO {P}nodes (sched_name, instance_id, host, pid, started_ms, "
        f"last_checkin_ms, checkin_interval_ms, version) VALUES ('{SCHED}', "
        f"'node-v', 'hostv', 2, {t - 60000}, {t - 16000}, 10000, '0.1.0')")

    def seen_stale():
        with open(STATE) as f:
            return re.search(r"^key 0 -?\d+ \d+ \d+ 1 0 node_dead:node-v$",
                             f.read(), re.M)

    wait("the stale node seen", seen_stale)
    check("a stale node that is still live is not dead yet",
          not [b for b in recv.bodies("node_dead") if b["node"] == "node-v"])
    sql("DELETE FROM {P}nodes WHERE instance_id = 'node-v'")
    got = wait("a stale node's row gone: dead", lambda: [
        b for b in recv.bodies("node_dead") if b["node"] == "node-v"])
    time.sleep(0.5)
    got = [b for b in recv.bodies("node_dead") if b["node"] == "node-v"]
    check("its death alerted once", len(got) == 1 and "row is gone" in
          got[0]["message"] and got[0]["status"] == "firing", got)

    idle_death(recv)

    # A trigger late past the misfire threshold (1 s), then fired.
    t = now_ms()
    sql("INSERT INTO {P}triggers (sched_name, trigger_group, trigger_name, "
        "job_group, job_name, job_type, kind, start_set, start_ms, end_ms, "
        "misfire, priority, next_fire_ms, prev_fire_ms, times_triggered, "
        "state_start_ms, state_repeat_count, state) VALUES "
        f"('{SCHED}', 'ov', 'every-min', 'ov', 'hourly', 't', 0, 0, {t}, "
        f"{2**62}, 0, 5, {t - 5000}, {t - 65000}, 3, {t}, 0, 'WAITING')")
    got = wait("misfire POSTed", lambda: recv.bodies("misfire"))
    if got:
        check("misfire JSON", got[0]["trigger"] == "ov.every-min" and
              got[0]["job"] == "ov.hourly" and "late" in got[0]["message"], got)
    sql(f"UPDATE {{P}}triggers SET next_fire_ms = {now_ms() + 60000} "
        "WHERE trigger_name = 'every-min'")
    wait("misfire resolved", lambda: [b for b in recv.bodies("misfire")
                                      if b["status"] == "resolved"])
    check("one misfire alert", len([b for b in recv.bodies("misfire")
                                     if b["status"] == "firing"]) == 1)

    # Every node down makes every trigger late: 30 at once give 10 alerts
    # one by one and one summary counting the other 20; the 10 are
    # resolved one by one, the 20 never said are not.
    def flooded(status):
        return [b for b in recv.bodies("misfire") if b["status"] == status and (
            b["key"].startswith("misfire:flood.") or b["key"] == "misfire:(more)")]

    t = now_ms()
    sql("INSERT INTO {P}triggers (sched_name, trigger_group, trigger_name, "
        "job_group, job_name, job_type, kind, start_set, start_ms, end_ms, "
        "misfire, priority, next_fire_ms, prev_fire_ms, times_triggered, "
        "state_start_ms, state_repeat_count, state) SELECT "
        f"'{SCHED}', 'flood', CONCAT('t', seq), 'flood', 'j', 't', 0, 0, {t}, "
        f"{2**62}, 0, 5, {t - 5000} + seq, {t - 65000}, 3, {t}, 0, 'WAITING' "
        "FROM seq_1_to_30")
    wait("a flood of misfires summed up", lambda: [
        b for b in recv.bodies("misfire") if b["key"] == "misfire:(more)"])
    time.sleep(0.5)
    flood = flooded("firing")
    summary = [b for b in flood if b["key"] == "misfire:(more)"]
    check("10 misfires one by one and one summary of 20",
          len(flood) == 11 and len(summary) == 1 and summary[0]["count"] == 20
          and "20 more misfire firing alerts" in summary[0]["message"],
          [(b["key"], b.get("count")) for b in flood])
    sql(f"UPDATE {{P}}triggers SET next_fire_ms = {now_ms() + 60000} "
        "WHERE trigger_group = 'flood'")
    wait("the flood resolved", lambda: len(flooded("resolved")) >= 10)
    time.sleep(0.5)
    res = flooded("resolved")
    check("only the 10 said are resolved", len(res) == 10 and
          {b["key"] for b in res} == {b["key"] for b in flood} - {"misfire:(more)"},
          len(res))

    # A job expected every 2 s that does not succeed: overdue, then OK.
    got = wait("overdue job POSTed", lambda: recv.bodies("job_overdue"))
    if got:
        check("overdue JSON", got[0]["job"] == "ov.hourly" and
              "expected within 2.0s" in got[0]["message"], got)
    history("ov.hourly", outcome="OK", error="", fire_id=90)
    wait("overdue resolved on success", lambda: [
        b for b in recv.bodies("job_overdue") if b["status"] == "resolved"])

    # A storm: 1500 failures of three jobs at once, more than one batch
    # (1000 rows): one alert per job, and the reading goes on past them.
    t = now_ms()
    sql("INSERT INTO {P}history (sched_name, fire_id, trigger_group, "
        "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
        "error_code, error_text, started_ms, duration_ms, recovering, "
        f"finished_ms) SELECT '{SCHED}', seq, 'storm', 't', 'storm', "
        f"CONCAT('j', seq % 3), {t}, 'node-a', 'FAILED', -1, 'boom', {t}, 1, "
        f"0, {t} FROM seq_1_to_1500")
    history("etl.after-storm", fire_id=3)
    wait("the failure after the storm is sent", lambda: [
        b for b in recv.bodies("run_failed") if b["job"] == "etl.after-storm"])
    storm = [b for b in recv.bodies("run_failed") if b["job"].startswith("storm.")]
    check("a storm: one alert per job", sorted(b["job"] for b in storm) ==
          ["storm.j0", "storm.j1", "storm.j2"], [b["job"] for b in storm])

    # A long error of multibyte text, cut to the message's bound: still
    # valid UTF-8 and JSON (the receiver decodes it strictly).
    history("etl.unicode", error="\u00e9\u20ac" * 1500, fire_id=12)
    got = wait("a cut multibyte message is sent", lambda: [
        b for b in recv.bodies("run_failed") if b["job"] == "etl.unicode"])
    if got:
        m = got[0]["message"]
        check("the cut falls between characters", 1900 < len(m.encode()) < 2048
              and m.endswith(("\u00e9", "\u20ac")), len(m.encode()))

    # A restart resends nothing; new alerts still come.  What the stopped
    # process said last of each key (ov.hourly, expected every 2 s, may
    # have gone overdue again on a slow run: the restart's 600 s then
    # resolves it, a new state, not a resend).
    rc = a.stop()
    check("SIGTERM: exit 0", rc == 0, rc)
    said = {b["key"]: b["status"] for b in recv.bodies(status=None)}
    before = len(recv.posts)
    a = Alert("--webhook", hook, "--command", command, "--window", "600",
              "--misfire-threshold", "1", "--expect", "ov.*=600s")
    wait("restart resumes the state", lambda: "resumed from" in log_text())
    time.sleep(1.0)
    after = recv.bodies(status=None)[before:]
    check("a restart does not resend",
          not [b for b in after if said.get(b["key"]) == b["status"]], after)
    history("etl.new", fire_id=5)
    wait("after the restart a new failure is sent", lambda: [
        b for b in recv.bodies("run_failed") if b["job"] == "etl.new"])
    time.sleep(0.3)

    # An alert queued when stopped is delivered after the restart, once.
    recv.answers = [500] * 1000
    history("etl.queued", fire_id=6)
    wait("queued alert tried", lambda: [p for p in recv.posts
                                        if "etl.queued" in p["body"]])
    rc = a.stop()
    recv.answers = []
    a = Alert("--webhook", hook, "--command", command, "--window", "600")
    wait("queued alert delivered after the restart", lambda: [
        b for b in recv.bodies("run_failed") if b["job"] == "etl.queued"])
    time.sleep(0.5)
    check("delivered once", len([b for b in recv.bodies("run_failed")
                                 if b["job"] == "etl.queued"]) == 1)
    a.stop()

    https_check()
    once_check(recv)


def once_check(recv):
    """--once: one poll, the deliveries, exit 0 (a cron job's way)."""
    hook = f"http://127.0.0.1:{recv.port}/once"
    args = [ALERT, "--url", URL, "--scheduler", SCHED, "--state", STATE,
            "--webhook", hook, "--once"]
    os.unlink(STATE)
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    check("--once: a first start exits 0", p.returncode == 0, p.stderr)
    history("once.job", fire_id=11)
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    got = [b for b in recv.bodies("run_failed") if b["job"] == "once.job"]
    check("--once: delivered, then exit 0", p.returncode == 0 and len(got) == 1,
          (p.returncode, p.stderr, got))
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    got = [b for b in recv.bodies("run_failed") if b["job"] == "once.job"]
    check("--once again: nothing resent", p.returncode == 0 and len(got) == 1)
    # A command that runs over --timeout is killed: the attempt failed.
    history("once.slow", fire_id=13)
    start = time.monotonic()
    p = subprocess.run([ALERT, "--url", URL, "--scheduler", SCHED, "--state",
                        STATE, "--command", "sleep 20", "--timeout", "0.3",
                        "--attempts", "1", "--once"],
                       capture_output=True, text=True, timeout=60)
    check("a command over --timeout is killed",
          p.returncode == 0 and time.monotonic() - start < 10 and
          "ran over 0.3 s: killed" in p.stderr, (p.returncode, p.stderr))
    # A poll that cannot connect says why (--once exits 4).
    bad = URL.replace(f":{DB.port}/", ":1/") if DB.port else None
    if bad:
        p = subprocess.run([ALERT, "--url", bad, "--state", STATE + ".x",
                            "--command", "true", "--once"],
                           capture_output=True, text=True, timeout=60)
        check("no database: exit 4, said, the password not", p.returncode == 4 and
              "chime-alert:" in p.stderr and
              urllib.parse.unquote(DB.password or "-") not in p.stderr, p.stderr)


def https_check():
    """A webhook over https, its certificate checked (--ca-file)."""
    key, cert = os.path.join(TMP, "key.pem"), os.path.join(TMP, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "1", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True, timeout=60)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    recv = Receiver(ctx)
    hook = f"https://localhost:{recv.port}/tls"
    os.unlink(STATE)
    a = Alert("--webhook", hook, "--ca-file", cert)
    wait("https: first poll", lambda: os.path.exists(STATE))
    history("tls.job", fire_id=8)
    got = wait("https webhook got the alert", lambda: recv.bodies("run_failed"))
    check("https JSON", bool(got) and got[0]["job"] == "tls.job", got)
    a.stop()
    # Without the CA the certificate is refused: never delivered.
    os.unlink(STATE)
    a = Alert("--webhook", hook, "--attempts", "2")
    wait("https: first poll without the CA", lambda: os.path.exists(STATE))
    history("tls.other", fire_id=9)
    wait("an unknown certificate is refused",
         lambda: "gave up on firing run_failed:tls.other" in log_text())
    check("nothing sent without trust",
          not [b for b in recv.bodies(None, None) if b["job"] == "tls.other"])
    a.stop()


try:
    main()
finally:
    try:
        tables = sql(f"SHOW TABLES LIKE '{PREFIX}%'")
        if tables:
            sql("DROP TABLE " + ", ".join(t[0] for t in tables))
    except RuntimeError as e:
        print("cleanup:", e)
    if failures:
        print(log_text())
    shutil.rmtree(TMP, ignore_errors=True)
print(f"{passed} passed, {failures} failed")
sys.exit(1 if failures else 0)
