#!/usr/bin/env python3
"""test-chime-web.py: the browser test of chime-web.  Starts a 2-node
cluster (chime-node, the cluster tests' node) on the throwaway MariaDB
(CHIME_TEST_MYSQL_URL) in tables of a prefix of its own, chime-web on a
free port with an operator token, and drives headless Chromium (Debian's
chromium and chromium-driver, python3-selenium) through every page and
action: each page loads without console errors and shows the live data;
pause, resume, fire now, cancel and delete take effect (checked in the
database and on the page); a cron trigger is created on its edit page with
the live preview of its next fires (a bad expression shows the parser's
message, in the preview and when saved, and writes nothing), edited and
deleted, and a cancelled run is retried with its recorded data and with
data of its own; writes without the token or the CSRF token are
refused; bad input gets a 4xx and writes nothing; text from the database
and the URL is escaped.  A missing database or browser is a failure,
never a skip.

usage: test-chime-web.py CHIME-WEB CHIME-NODE [SCREENSHOT.png]

SCREENSHOT.png gets the overview, SCREENSHOT-trigger.png the trigger edit
page with its preview, SCREENSHOT-trigger-detail.png a trigger's page (the
README's docs/chime-web*.png are copies).
"""
import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

WEB, NODE = sys.argv[1], sys.argv[2]
SHOT = sys.argv[3] if len(sys.argv) > 3 else None
CTL = sys.argv[4] if len(sys.argv) > 4 else None  # chimectl
BASE = os.environ.get("CHIME_TEST_MYSQL_URL")
failures = 0


def check(name, cond, detail=""):
    global failures
    if cond:
        print(f"ok   {name}", flush=True)
    else:
        failures += 1
        print(f"FAIL {name} {detail}", flush=True)
    return cond


if not BASE:
    print("FAIL: CHIME_TEST_MYSQL_URL is not set (start ./dev db-up): a "
          "missing database is never a skip")
    sys.exit(1)
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError:
    print("FAIL: python3-selenium is missing (./dev setup installs it): a "
          "missing browser is never a skip")
    sys.exit(1)
for prog in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
    if not os.path.exists(prog):
        print(f"FAIL: {prog} is missing (./dev setup installs chromium and "
              "chromium-driver)")
        sys.exit(1)

PREFIX = "web%d_" % os.getpid()
SEP = "&" if "?" in BASE else "?"
URL = BASE + SEP + "prefix=" + PREFIX
DB = urllib.parse.urlsplit(BASE)
TOKEN = "operator-token-%d" % os.getpid()


def sql(query):
    """Rows of a query on the test database, tab-separated text."""
    p = subprocess.run(
        ["mysql", "-h", DB.hostname, "-P", str(DB.port or 3306), "-u",
         urllib.parse.unquote(DB.username), "-N", "-B",
         DB.path.lstrip("/"), "-e", query.replace("{P}", PREFIX)],
        capture_output=True, text=True, timeout=30,
        env=dict(os.environ, MYSQL_PWD=urllib.parse.unquote(DB.password or "")))
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return [line.split("\t") for line in p.stdout.splitlines()]


def wait(what, fn, timeout=20.0):
    """Polls fn until it returns something true (wide margins: the machine
    may be loaded)."""
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v or time.monotonic() > end:
            check(what, v)
            return v
        time.sleep(0.2)


def trigger_state(key):
    g, n = key.split(".", 1)
    rows = sql("SELECT state FROM {P}triggers WHERE sched_name = 'cluster' "
               f"AND trigger_group = '{g}' AND trigger_name = '{n}'")
    return rows[0][0] if rows else None


def run_web(args):
    p = subprocess.run([WEB] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


rc, out, err = run_web(["--version"])
check("--version", rc == 0 and out.startswith("chime-web ") and "libchime" in out)
rc, out, err = run_web(["--help"])
check("--help", rc == 0 and "--token-file" in out and "--listen" in out
      and "--users-file" in out)
for args, want in ((["--port", "70000"], "--port"), (["--bogus"], "--bogus"),
                   (["extra"], "extra"), (["--url", "http://x/"], "mysql://"),
                   (["--url", URL, "--token-file", "/nonexistent"], "token")):
    rc, out, err = run_web(args)
    check(f"chime-web {' '.join(args)[:40]} fails with a message",
          rc in (1, 2) and want in err and err.count("\n") == 1,
          f"exit {rc} {err!r}")

procs = []
tmp = tempfile.mkdtemp(prefix="chime-web-test-")
driver = None


def start_web(token_file, extra=()):
    p = subprocess.Popen([WEB, "--url", URL, "--scheduler", "cluster",
                          "--port", "0", "--tz", "UTC"] + list(extra)
                         + (["--token-file", token_file] if token_file else []),
                         stderr=subprocess.PIPE, text=True)
    procs.append(p)
    line = p.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        raise RuntimeError("chime-web did not start: " + line + p.stderr.read())
    return "http://127.0.0.1:%s" % m.group(1)


def http(base, path, data=None, headers=None, method=None):
    req = urllib.request.Request(base + path, data=data, headers=headers or {},
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def http_or_error(base, path):
    """http(), a refused or dropped connection as status None."""
    try:
        return http(base, path)
    except (OSError, urllib.error.URLError) as e:
        return None, repr(e)


class Trickler:
    """Slow clients: n connections from address source, each sending a
    request line, then a header byte every half second, never ending its
    headers (a slowloris)."""

    def __init__(self, port, n, source="127.0.0.1"):
        self.socks, self.stop = [], threading.Event()
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((source, 0))
            s.settimeout(10)
            s.connect(("127.0.0.1", port))
            try:
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            except OSError:
                pass  # refused already: counted by closed()
            self.socks.append(s)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.wait(0.5):
            for s in self.socks:
                try:
                    s.send(b"a")
                except OSError:
                    pass

    def closed(self):
        """How many of the connections the server has closed."""
        n = 0
        for s in self.socks:
            try:
                r, _, _ = select.select([s], [], [], 0)
                if r and s.recv(4096, socket.MSG_PEEK) == b"":
                    n += 1
            except OSError:
                n += 1
        return n

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def prompt_requests(base, what, n=5, within=5.0):
    """n requests one after the other: each answered 200 within `within`
    seconds (they take milliseconds; the margin is for a loaded
    machine)."""
    got = []
    for _ in range(n):
        t0 = time.monotonic()
        st, body = http_or_error(base, "/api/nodes")
        got.append((st, round(time.monotonic() - t0, 2),
                    body[:80] if st != 200 else ""))
    check(what, all(st == 200 and dt < within for st, dt, _ in got), got)


def console_errors():
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def page(path, has):
    driver.get(WEB_URL + path)
    body = driver.find_element(By.TAG_NAME, "body").text
    errs = console_errors()
    check(f"page {path} loads without console errors", not errs, repr(errs))
    for h in has:
        check(f"page {path} shows {h!r}", h in body, body[:400])
    return body


def load(path):
    """Loads a page to act on, its refresh off (so that what the test
    found is not replaced under it)."""
    driver.get(WEB_URL + path)
    driver.execute_script("document.body.dataset.refresh = 'off';")


def click_action(row_css, action, accept=True):
    """Clicks the action button of the row and answers its confirmation."""
    driver.execute_script("document.body.dataset.refresh = 'off';")
    btn = driver.find_element(By.CSS_SELECTOR,
                              f"{row_css} button[data-action='{action}']")
    btn.click()
    try:
        alert = driver.switch_to.alert
        alert.accept() if accept else alert.dismiss()
    except Exception:
        pass


def text_of(by, what):
    """The element's text, "" while the page is loading or without it."""
    try:
        return driver.find_element(by, what).text
    except Exception:
        return ""


def message():
    return text_of(By.ID, "msg")


try:
    start = int(time.time() * 1000) + 1500
    env = dict(os.environ)
    # n2 adds the run-policy jobs: pol.retry's first attempt fails and is
    # retried (the detail pages' retry chain).
    for node, extra in (("n1", ["--schedule", str(start)]),
                        ("n2", ["--policies", str(start)])):
        u = URL + "&auto_create=1"
        p = subprocess.Popen([NODE, u, node, tmp] + extra,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
        procs.append(p)
        check(f"node {node} starts", "ready" in p.stdout.readline())
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    WEB_URL = start_web(token_file, ["--allowed-host", "Chime.Example."])
    bearer = {"Authorization": "Bearer " + TOKEN}
    wait("the API sees two live nodes", lambda: sum(
        1 for n in json.loads(http(WEB_URL, "/api/nodes")[1])
        if n["state"] == "live") == 2)
    wait("history has fires", lambda: len(json.loads(
        http(WEB_URL, "/api/history?limit=5")[1])) >= 3)

    # ---- bad input: 4xx with a message, nothing written, server alive
    before = sql("SELECT trigger_group, trigger_name, state FROM {P}triggers "
                 "WHERE state LIKE 'PAUSED%' ORDER BY 1, 2")
    njobs = sql("SELECT COUNT(*) FROM {P}jobs")
    bad = [
        ("GET", "/history?nope=1", None, {}, 400),
        ("GET", "/history?page=-3", None, {}, 400),
        ("GET", "/history?page=" + "9" * 40, None, {}, 400),
        ("GET", "/history?since=yesterday", None, {}, 400),
        ("GET", "/history?job=" + "x" * 600, None, {}, 400),
        ("GET", "/api/history?outcome=OK%27%20OR%201%3D1", None, {}, 400),
        ("GET", "/api/explain", None, {}, 400),
        ("GET", "/api/explain?trigger=no.such", None, {}, 404),
        ("GET", "/api/nodes?x=1", None, {}, 400),
        ("GET", "/edit/trigger?key=nodot", None, {}, 400),
        ("GET", "/edit/trigger?key=no.such", None, {}, 404),
        ("GET", "/edit/trigger?nope=1", None, {}, 400),
        ("GET", "/edit/job?key=no.such", None, {}, 404),
        ("GET", "/retry?fire=x", None, {}, 400),
        ("GET", "/retry?fire=999999999", None, {}, 404),
        ("GET", "/api/preview?bogus=1", None, {}, 400),
        ("POST", "/api/retry", b"fire=999999999", bearer, 404),
        ("POST", "/api/job-save", b"mode=add&key=load.s500&type=load", bearer, 422),
        ("POST", "/api/job-save", b"mode=edit&key=load.s500&retry=-1", bearer, 400),
        ("GET", "/api/nothing", None, {}, 404),
        ("GET", "/" + "a" * 3000, None, {}, 414),
        ("GET", "/api/pause", None, {}, 405),
        ("PUT", "/jobs", b"", {}, 405),
        ("DELETE", "/api/delete", None, {}, 405),
        ("POST", "/api/pause", b"what=all", {}, 403),
        ("POST", "/api/pause", b"what=all", {"Authorization": "Bearer wrong"}, 403),
        ("POST", "/api/pause", b"what=all&csrf=forged", {}, 403),
        ("POST", "/api/pause", b"what=nothing&target=x", bearer, 400),
        ("POST", "/api/pause", b"what=trigger&target=nodot", bearer, 400),
        ("POST", "/api/pause", b"what=trigger&target=no.such", bearer, 404),
        ("POST", "/api/pause", b"what=all&extra=1", bearer, 400),
        ("POST", "/api/pause", b"what=%zz", bearer, 400),
        ("POST", "/api/pause", b"what=all&what=all", bearer, 400),
        ("POST", "/api/pause?what=all", b"", bearer, 400),
        ("POST", "/api/pause", b"a=" + b"b" * 20000, bearer, 413),
        ("POST", "/api/fire", b"job=load.s300&data=%7Bnot", bearer, 400),
        ("POST", "/api/fire", b"", bearer, 400),
        ("POST", "/api/cancel", b"fire=-1", bearer, 400),
        ("POST", "/api/cancel", b"fire=12abc", bearer, 400),
        ("POST", "/api/cancel", b"fire=999999999999", bearer, 404),
        ("POST", "/api/delete", b"what=group&target=load", bearer, 400),
        ("POST", "/api/delete", b"what=job&target=no.such", bearer, 404),
        ("POST", "/login", b"token=wrong", {}, 403),
        ("GET", "/history?job=%ff%fe.x", None, {}, 400),
        ("POST", "/api/pause", b"what=trigger&target=%c0%af.x", bearer, 400),
        ("POST", "/api/pause", b'{"what": "all"}',
         dict(bearer, **{"Content-Type": "application/json"}), 415),
    ]
    for method, path, data, headers, want in bad:
        st, body = http(WEB_URL, path, data, headers, method)
        check(f"{method} {path[:50]} -> {want}", st == want and body.strip(),
              f"got {st} {body[:200]!r}")
    check("bad input wrote nothing",
          sql("SELECT trigger_group, trigger_name, state FROM {P}triggers "
              "WHERE state LIKE 'PAUSED%' ORDER BY 1, 2") == before and
          sql("SELECT COUNT(*) FROM {P}jobs") == njobs)
    check("chime-web survived the bad input",
          http(WEB_URL, "/api/nodes")[0] == 200)

    # ---- the Host header (issue 35: DNS rebinding): a page of another
    # site, its name rebound to 127.0.0.1, asks with its own name as Host
    port = int(WEB_URL.rsplit(":", 1)[1])
    for host in ("evil.example", "evil.example:%d" % port, "127.0.0.1.evil.example",
                 "", "[::2]:%d" % port, "a b"):
        st, body = http(WEB_URL, "/api/jobs", headers={"Host": host})
        check(f"Host {host!r} is refused (421), nothing read",
              st == 421 and "load" not in body and "Host" in body,
              f"got {st} {body[:200]!r}")
    st, body = http(WEB_URL, "/", headers={"Host": "evil.example"})
    check("a page for Host evil.example is refused too", st == 421, st)
    for host in ("127.0.0.1:%d" % port, "localhost:%d" % port, "LOCALHOST",
                 "[::1]:%d" % port, "chime.example", "chime.example.:443"):
        st, body = http(WEB_URL, "/api/jobs", headers={"Host": host})
        check(f"Host {host!r} is answered", st == 200 and "load" in body,
              f"got {st} {body[:200]!r}")
    # ---- Origin on a write: another origin's form or script is refused
    # even with valid credentials; this server's own origin is not
    for origin in ("http://evil.example", "http://127.0.0.1:%d" % (port + 1),
                   "null", "http://127.0.0.1:%d.evil.example" % port):
        st, body = http(WEB_URL, "/api/pause", b"what=all",
                        dict(bearer, Origin=origin), "POST")
        check(f"a write from Origin {origin!r} is refused (403)",
              st == 403 and "origin" in body, f"got {st} {body[:200]!r}")
    st, body = http(WEB_URL, "/login", b"token=" + TOKEN.encode(),
                    {"Origin": "http://evil.example"}, "POST")
    check("a sign-in from another origin is refused", st == 403, st)
    check("the cross-origin writes wrote nothing",
          sql("SELECT COUNT(*) FROM {P}triggers WHERE state LIKE 'PAUSED%'")
          == [["0"]])
    for origin in ("http://127.0.0.1:%d" % port, "https://chime.example"):
        st, body = http(WEB_URL, "/api/resume",
                        b"what=group&target=nothing-here",
                        dict(bearer, Origin=origin), "POST")
        check(f"a write from this server's Origin {origin!r} is done",
              st == 200, f"got {st} {body[:200]!r}")

    # ---- slow clients (issue 35): 70 connections trickling their headers
    # do not keep 5 real requests out, from the same address or another;
    # the server closes them once their request is late, and one address
    # holds at most WEB_MAX_PER_CLIENT (128) connections
    slow = Trickler(port, 70)
    try:
        prompt_requests(WEB_URL, "70 slow clients: 5 requests answered at once")
        wait("the 70 slow clients are closed though they keep sending",
             lambda: slow.closed() == 70, timeout=60)
    finally:
        slow.close()
    slow = Trickler(port, 150, source="127.0.0.2")
    try:
        wait("150 slow clients of one address: the 22 past 128 refused",
             lambda: slow.closed() >= 22, timeout=8)
        prompt_requests(WEB_URL, "150 slow clients of another address: 5 "
                        "requests answered at once")
    finally:
        slow.close()

    # ---- /metrics: the figures of chimectl metrics (one set), parsed
    try:  # Debian's python3-prometheus-client
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")
        from prometheus_client.parser import text_string_to_metric_families
    st, body = http(WEB_URL, "/metrics")
    fams = {f.name: f for f in text_string_to_metric_families(body)} if st == 200 else {}
    check("/metrics is chimectl metrics' set", st == 200
          and fams["chime_store_up"].samples[0].value == 1
          and {"chime_cluster_runs", "chime_cluster_fire_lateness_seconds",
               "chime_cluster_triggers", "chime_cluster_nodes"} <= set(fams)
          and fams["chime_cluster_nodes"].samples[0].value >= 2, body[:2000])

    # ---- escaping: text from the URL and from the database
    st, _ = http(WEB_URL, "/api/resume", b"what=group&target=nothing-here",
                 dict(bearer, **{"X-Forwarded-For": "<img src=x id=pwn>"}))
    check("an action through a proxy", st == 200)
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
              "--disable-gpu", "--window-size=1280,1000"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                              options=opts)
    driver.set_page_load_timeout(30)
    driver.get(WEB_URL + "/history?msg=%3Cscript%3Ealert(1)%3C%2Fscript%3E"
               "%3Cimg%20src%3Dx%20id%3Dpwn%3E")
    check("a message in the URL is shown as text",
          "<script>alert(1)</script>" in message() and
          not driver.find_elements(By.ID, "pwn"))

    # ---- every page, read-only, with live data
    page("/", ["store reachable", "n1", "n2", "live", "fires per minute"])
    check("the overview counts two live nodes",
          driver.find_element(By.ID, "live-nodes").text == "2")
    check("the overview has three charts",
          len(driver.find_elements(By.CSS_SELECTOR, "figure.chart svg")) == 3)
    # The limits of job types (docs/queue.md): a table on the overview once
    # one is set.
    check("no limits section without a limit", "Limits" not in
          http(WEB_URL, "/")[1])
    sql("INSERT INTO {P}limits (sched_name, job_type, max_running) VALUES "
        "('cluster', 'web-limited', 3)")
    body = http(WEB_URL, "/")[1]
    check("the overview shows the limits", "<h2>Limits</h2>" in body and
          "web-limited" in body, body[-400:])
    sql("DELETE FROM {P}limits WHERE job_type = 'web-limited'")
    page("/triggers", ["load.cron", "* * * * * ?", "UTC", "waiting"])
    page("/jobs", ["load.long", "Running fires"])
    page("/history", ["load.s300", "ok"])
    page("/history?outcome=OK&job=load.s300", ["load.s300"])
    page("/events", ["started", "n1", "n2"])
    # ---- the page refreshes itself in place, without a reload
    driver.get(WEB_URL + "/")
    driver.execute_script("window.notReloaded = true;")
    first = text_of(By.ID, "updated")
    wait("the overview refreshes in place", lambda: text_of(
        By.ID, "updated") not in ("", first) and driver.execute_script(
        "return window.notReloaded === true;"))
    check("read-only pages have no action buttons",
          not driver.find_elements(By.CSS_SELECTOR, "button[data-action]"))

    # ---- detail pages (issue 35): a trigger, a job, a fire, a node, and
    # their JSON twins; links between them from the list pages
    st, body = http(WEB_URL, "/api/triggers/load.cron")
    tj = json.loads(body) if st == 200 else {}
    check("/api/triggers/load.cron: state, why, next fires in its zone, runs",
          tj.get("state") == "waiting" and tj.get("zone") == "UTC"
          and len(tj.get("next_fires", [])) == 5
          and all(t.endswith("Z") for t in tj["next_fires"])
          and tj.get("job") == "load.cron" and isinstance(tj.get("runs"), list)
          and all(r["trigger"] == "load.cron" for r in tj["runs"]), body[:500])
    wait("the retry of pol.retry ran", lambda: len(json.loads(http(
        WEB_URL, "/api/history?job=pol.retry")[1])) >= 2)
    st, body = http(WEB_URL, "/api/jobs/pol.retry")
    jj = json.loads(body) if st == 200 else {}
    runs = jj.get("runs", [])
    check("/api/jobs/pol.retry: its runs with attempts 2 and 1",
          st == 200 and jj.get("attempts", [])[:2] == [2, 1]
          and runs[0]["outcome"] == "ok" and runs[1]["outcome"] != "ok"
          and runs[0]["trigger"].startswith("CHIME_RETRY.retry-"), body[:600])
    retry_fire = str(runs[0]["fire_id"]) if len(runs) > 1 else "0"
    first_fire = str(runs[1]["fire_id"]) if len(runs) > 1 else "0"
    st, body = http(WEB_URL, "/api/fires/" + retry_fire)
    fj = json.loads(body) if st == 200 else {}
    check("/api/fires/ID: the retry's attempt, chain, node and outcome",
          fj.get("attempt") == "2" and fj.get("retry_of") == first_fire
          and fj.get("retry_chain") == first_fire + " " + retry_fire
          and fj.get("job") == "pol.retry" and fj.get("outcome") == "ok"
          and fj.get("node") in ("n1", "n2"), body[:500])
    check("a job no longer stored has a page by its runs",
          jj.get("state", "").startswith("no longer stored"), jj.get("state"))
    st, body = http(WEB_URL, "/api/fires/" + first_fire)
    check("/api/fires/ID: the first attempt links to its retry",
          st == 200 and json.loads(body).get("retried_by") == retry_fire, body)
    st, body = http(WEB_URL, "/api/nodes/n1")
    check("/api/nodes/n1", st == 200 and json.loads(body).get("state") == "live"
          and all(r["node"] == "n1" for r in json.loads(body)["runs"]), body[:300])
    for path, want in (("/api/jobs/no.such", 404), ("/api/triggers/nodot", 400),
                       ("/api/fires/abc", 400), ("/api/fires/999999999", 404),
                       ("/api/nodes/nobody", 404), ("/jobs/no.such", 404),
                       ("/fires/-1", 400), ("/api/jobs/load.s300?x=1", 400),
                       ("/nodes/", 404), ("/zone?tz=Mars/Base", 400)):
        st, body = http(WEB_URL, path)
        check(f"GET {path} -> {want}", st == want and body.strip(), (st, body[:200]))
    # ---- history searchable: trigger, node, outcome, time range
    for q, key, want in (("node=n2", "node", "n2"),
                         ("trigger=load.cron", "trigger", "load.cron"),
                         ("outcome=OK&job=pol.retry", "outcome", "ok")):
        st, body = http(WEB_URL, "/api/history?" + q)
        rows = json.loads(body) if st == 200 else []
        check(f"/api/history?{q}: every row matches", rows
              and all(r[key] == want for r in rows), body[:300])
    st, body = http(WEB_URL, "/api/history?until=0")
    check("/api/history?until=0: none", st == 200 and json.loads(body) == [], body)
    # A trigger of another zone (set in its row: its every-second cron
    # fires the same there): its next fires as that zone says, by default
    sql("UPDATE {P}triggers SET zone_name = 'Asia/Tokyo' WHERE "
        "trigger_group = 'load' AND trigger_name = 'cron'")
    tj = json.loads(http(WEB_URL, "/api/triggers/load.cron")[1])
    check("a Tokyo trigger's next fires are in +09:00", tj.get("zone") ==
          "Asia/Tokyo" and all(t.endswith("+09:00") for t in tj["next_fires"]),
          tj.get("next_fires"))
    load("/triggers")
    check("... on the triggers page too (no zone picked)", "+09:00" in text_of(
        By.CSS_SELECTOR, "tr[data-trigger='load.cron'] td.next"))
    sql("UPDATE {P}triggers SET zone_name = 'UTC' WHERE "
        "trigger_group = 'load' AND trigger_name = 'cron'")
    page("/nodes", ["n1", "n2", "live"])
    driver.find_element(By.CSS_SELECTOR, "tr[data-node='n1'] a").click()
    wait("the nodes page links to node n1's page",
         lambda: "Node n1" in text_of(By.TAG_NAME, "h1"))
    check("node n1's page has its runs", "Runs" in text_of(By.TAG_NAME, "main"))
    load("/")
    driver.find_element(By.CSS_SELECTOR, "tr[data-node='n2'] a").click()
    wait("the overview links to node n2's page",
         lambda: "Node n2" in text_of(By.TAG_NAME, "h1"))
    load("/triggers")
    driver.find_element(By.CSS_SELECTOR,
                        "tr[data-trigger='load.cron'] td a").click()
    wait("the triggers page links to the trigger's page",
         lambda: "Trigger load.cron" in text_of(By.TAG_NAME, "h1"))
    nxt = text_of(By.ID, "f-next").splitlines()
    check("the trigger's page: its 5 next fires in its zone (UTC)",
          len(nxt) == 5 and all(t.endswith("Z") for t in nxt), nxt)
    check("the trigger's page says why", text_of(By.ID, "f-why") != "")
    driver.find_element(By.CSS_SELECTOR, "#f-job a").click()
    wait("the trigger's page links to its job",
         lambda: "Job load.cron" in text_of(By.TAG_NAME, "h1"))
    driver.get(WEB_URL + "/jobs/pol.retry")
    check("the job's page shows the attempts", [
        e.text for e in driver.find_elements(By.CSS_SELECTOR, "#runs td.attempt")
    ][:2] == ["2", "1"])
    driver.find_element(By.CSS_SELECTOR,
                        f"#runs tr[data-fire='{retry_fire}'] td a").click()
    wait("the job's page links to the fire's",
         lambda: f"Fire {retry_fire}" in text_of(By.TAG_NAME, "h1"))
    check("the fire's page links to the attempt before",
          text_of(By.ID, "f-retry_of") == first_fire and
          driver.find_element(By.CSS_SELECTOR, "#f-retry_of a")
          .get_attribute("href").endswith("/fires/" + first_fire))
    # ---- the search form
    driver.get(WEB_URL + "/history")
    driver.find_element(By.ID, "q-job").send_keys("pol.retry")
    retry_node = runs[0]["node"] if runs else "?"
    driver.find_element(By.ID, "q-node").send_keys(retry_node)
    driver.find_element(By.ID, "q-go").click()
    wait("the search form filters by job and node", lambda: "node=" +
         retry_node in driver.current_url and len(driver.find_elements(
             By.CSS_SELECTOR, "#runs tbody tr")) >= 1)
    cells = [e.text for e in driver.find_elements(
        By.CSS_SELECTOR, "#runs tbody td:nth-child(2)")]
    nodes = [e.text for e in driver.find_elements(
        By.CSS_SELECTOR, "#runs tbody td:nth-child(8)")]
    check("the search's rows are all pol.retry's on that node",
          cells and all(c == "pol.retry" for c in cells)
          and all(n == retry_node for n in nodes), (cells, nodes))
    # ---- times in the zone the operator picks (a cookie), next fires in
    # the trigger's own zone
    driver.get(WEB_URL + "/triggers/load.cron")
    driver.find_element(By.ID, "tz").send_keys("Asia/Kolkata")
    driver.find_element(By.ID, "tz-set").click()
    wait("the zone picked: times in +05:30",
         lambda: "+05:30" in text_of(By.ID, "updated"))
    check("... back on the same page, next fires still in the trigger's zone",
          "Trigger load.cron" in text_of(By.TAG_NAME, "h1") and
          all(t.endswith("Z") for t in text_of(By.ID, "f-next").splitlines()))
    driver.get(WEB_URL + "/history")
    check("the history page in the picked zone",
          "+05:30" in text_of(By.ID, "runs"))
    driver.get(WEB_URL + "/zone?tz=&back=/history")
    check("an empty zone goes back to the default (UTC)",
          "+05:30" not in text_of(By.ID, "runs") and
          text_of(By.ID, "updated").endswith("Z"))
    check("no console errors on the detail pages", not console_errors())

    # ---- sign in
    driver.get(WEB_URL + "/login")
    driver.find_element(By.ID, "token").send_keys(TOKEN)
    driver.find_element(By.ID, "signin").click()
    wait("signed in", lambda: "operator" in text_of(By.CLASS_NAME, "who"))
    check("a write from the signed-in page without the CSRF token is refused",
          driver.execute_async_script(
              "var done = arguments[0]; fetch('/api/pause', {method: 'POST', "
              "headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
              " body: 'what=all'}).then(function (r) { done(r.status); });")
          == 403 and trigger_state("load.cron") != "PAUSED")
    driver.get_log("browser")  # that refusal is the one console error wanted

    # ---- pause and resume a trigger
    row = "tr[data-trigger='load.cron']"
    load("/triggers")
    click_action(row, "pause")
    wait("pause: the database has load.cron paused",
         lambda: trigger_state("load.cron") == "PAUSED")
    # The page shows an action's message once its request returned: wait.
    wait("pause: the page says so", lambda: "paused trigger load.cron" in
         message() and "paused" in text_of(By.CSS_SELECTOR, row + " td.state"))
    why = driver.find_element(By.CSS_SELECTOR, row + " td.why").text
    check("pause: the page explains it in its own terms", "paused" in why
          and "resume button" in why and "chimectl" not in why, why)
    click_action(row, "resume")
    wait("resume: the database has load.cron no longer paused",
         lambda: trigger_state("load.cron") not in (None, "PAUSED"))
    wait("resume: the page says so",
         lambda: "resumed trigger load.cron" in message())

    # ---- fire now
    load("/jobs")
    click_action("tr[data-job='load.s500']", "fire")
    wait("fire now: the page says so",
         lambda: "fired job load.s500" in message())
    # The form carries a request key made when the page was rendered: its
    # run is the enqueued run with that key (docs/queue.md).
    wait("fire now: the database has the manual fire's history", lambda: sql(
        "SELECT COUNT(*) FROM {P}history WHERE job_name = 's500' AND "
        "trigger_group = 'CHIME_QUEUE' AND trigger_name LIKE 'K!_web-%' "
        "ESCAPE '!'")[0][0] != "0")
    # A retried POST (its reply lost) finds the run its key stored.
    slow = b"job=load.long&data=3000&key=retried-1"  # a 3 s run
    st, body = http(WEB_URL, "/api/fire", slow, bearer, "POST")
    check("fire now with a key: stored", st == 200 and "fired job" in body,
          body)
    st, body = http(WEB_URL, "/api/fire", slow, bearer, "POST")
    check("fire now retried: nothing stored", st == 200 and
          "stored already" in body, body)

    # ---- cancel a running fire.  The button interrupts the run, as
    # `chimectl cancel fire` does: its node tells it at its next check-in
    # (1 s) and records it CANCELLED when it returns.  The run cancelled is
    # a fire of load.long made to last 60 s (its data is the run's length),
    # so the interrupt lands however late the check-in is under load.
    def outcome_of(fire):
        rows = sql("SELECT outcome FROM {P}history WHERE fire_id = %s" % fire)
        return rows[0][0] if rows else None

    # A running fire: its fired row, or a one-shot's run kept in its
    # trigger row (jobstore/mysql/runs.c).
    def manual_long():
        rows = sql("SELECT fire_id FROM {P}fired WHERE job_name = 'long' AND "
                   "trigger_group = 'MANUAL_TRIGGER' AND state = 'EXECUTING' "
                   "UNION ALL SELECT claim_fire_id FROM {P}triggers WHERE "
                   "job_name = 'long' AND trigger_group = 'MANUAL_TRIGGER' "
                   "AND state = 'EXECUTING'")
        return rows[0][0] if rows else None

    st, body = http(WEB_URL, "/api/fire", b"job=load.long&data=60000", bearer,
                    "POST")
    check("cancel: a 60 s run of load.long was fired", st == 200, body)
    wait("cancel: the 60 s run started", lambda: manual_long() is not None)
    fire = manual_long()
    cancelled = None
    if fire:
        load("/jobs")
        click_action(f"#running tr[data-fire='{fire}']", "cancel")
        # The page writes its message when the request returns.
        if wait("cancel: the page says so",
                lambda: f"cancelled fire {fire}" in message()):
            wait("cancel: fire %s ended" % fire,
                 lambda: outcome_of(fire) is not None)
            cancelled = fire if outcome_of(fire) == "CANCELLED" else None
    check("cancel: the database has the fire CANCELLED",
          cancelled)
    if cancelled:
        check("cancel: the fire left the running table", sql(
            "SELECT (SELECT COUNT(*) FROM {P}fired WHERE fire_id = %s) + "
            "(SELECT COUNT(*) FROM {P}triggers WHERE state = 'EXECUTING' AND "
            "claim_fire_id = %s)" % (cancelled, cancelled)) == [["0"]])
        driver.get(WEB_URL + "/history?outcome=CANCELLED")
        check("cancel: the history page shows it",
              "cancelled" in driver.find_element(By.TAG_NAME, "main").text)

    # ---- delete, asked first: dismissed, then accepted
    load("/triggers")
    click_action("tr[data-trigger='load.forbid']", "delete", accept=False)
    check("delete dismissed: nothing deleted",
          trigger_state("load.forbid") is not None)
    click_action("tr[data-trigger='load.forbid']", "delete")
    wait("delete: the database lost the trigger",
         lambda: trigger_state("load.forbid") is None)
    wait("delete: the page says so",
         lambda: "deleted trigger load.forbid" in message())

    # ---- edit from the console (issue 35): a cron trigger created with
    # the live preview, a bad expression refused with the parser's words,
    # edited, deleted; a cancelled run retried with its data
    def cron_text(key):
        g, n = key.split(".", 1)
        rows = sql("SELECT cron_text FROM {P}triggers WHERE sched_name = "
                   f"'cluster' AND trigger_group = '{g}' AND trigger_name = '{n}'")
        return rows[0][0] if rows else None

    def field(name):
        return driver.find_element(By.CSS_SELECTOR, f"#trigger-form [name='{name}']")

    def retype(name, text):
        e = field(name)
        e.clear()
        e.send_keys(text)

    load("/triggers")
    driver.find_element(By.ID, "new-trigger").click()
    wait("new trigger: the form is shown",
         lambda: driver.find_elements(By.ID, "trigger-form"))
    retype("key", "web.nightly")
    retype("job", "load.s500")
    retype("zone", "Europe/Berlin")
    retype("schedule", "0 0 2 * * ?")
    wait("new trigger: the preview shows the next fires in the zone",
         lambda: "02:00:00+01:00" in text_of(By.ID, "preview-times") and
         "Europe/Berlin" in text_of(By.ID, "preview"))
    retype("schedule", "0 0 2 * * FOO")
    wait("bad cron: the preview shows the parser's message",
         lambda: "day-of-week field, column 11" in text_of(By.ID, "preview-error"))
    driver.find_element(By.ID, "save").click()
    wait("bad cron: the saved form comes back with the message",
         lambda: "unknown day name 'FOO'" in message() and
         field("schedule").get_attribute("value") == "0 0 2 * * FOO")
    check("bad cron: nothing written", cron_text("web.nightly") is None)
    driver.get_log("browser")  # the 422 of the refused save is wanted
    retype("schedule", "0 0 2 * * ?")
    driver.find_element(By.ID, "save").click()
    wait("new trigger: stored", lambda: cron_text("web.nightly") == "0 0 2 * * ?")
    wait("new trigger: the page says so",
         lambda: "added trigger web.nightly" in message())
    check("new trigger: in the trigger's zone", sql(
        "SELECT zone_name FROM {P}triggers WHERE trigger_name = 'nightly'")
        == [["Europe/Berlin"]])
    load("/triggers")
    driver.find_element(By.CSS_SELECTOR, "tr[data-trigger='web.nightly'] "
                        "a[data-edit='trigger']").click()
    wait("edit trigger: the form has its schedule",
         lambda: driver.find_elements(By.ID, "trigger-form") and
         field("schedule").get_attribute("value") == "0 0 2 * * ?" and
         field("zone").get_attribute("value") == "Europe/Berlin")
    retype("schedule", "0 30 3 * * ?")
    wait("edit trigger: the preview follows, in words too",
         lambda: "03:30:00+01:00" in text_of(By.ID, "preview-times") and
         "03:30:00" in text_of(By.ID, "preview-words"))
    if SHOT:  # the README's picture of the trigger page, with its preview
        driver.set_window_size(1200, 820)
        driver.execute_script("document.activeElement.blur();")
        driver.save_screenshot(SHOT.replace(".png", "-trigger.png"))
        driver.set_window_size(1280, 1000)
    driver.find_element(By.ID, "save").click()
    wait("edit trigger: stored", lambda: cron_text("web.nightly") == "0 30 3 * * ?")
    wait("edit trigger: the page says so",
         lambda: "changed trigger web.nightly" in message())
    load("/edit/trigger?key=web.nightly")
    click_action("#trigger-acts", "delete")
    wait("delete from the edit page: gone", lambda: cron_text("web.nightly") is None)
    # A script edits too, with the operator token; bad input writes nothing.
    for body, want in ((b"mode=add&key=web.s&job=load.s500&kind=cron&schedule=61", 422),
                       (b"mode=add&key=web.s&job=load.s500&kind=nope&schedule=1", 400),
                       (b"mode=add&key=web.s&job=load.s500&bogus=1", 400),
                       (b"mode=grow&key=web.s", 400),
                       (b"mode=add&key=web.s&job=no.such&kind=simple&schedule=1m", 404)):
        st, out = http(WEB_URL, "/api/trigger-save", body, bearer, "POST")
        check(f"trigger-save {body[:40]!r} -> {want}", st == want, f"{st} {out}")
    check("refused saves wrote nothing", cron_text("web.s") is None and
          trigger_state("web.s") is None)
    st, out = http(WEB_URL, "/api/trigger-save",
                   b"mode=add&key=web.s&job=load.s500&kind=daily&schedule=1+hour"
                   b"&between=09:00-17:00&days=mon-fri&zone=Asia/Tokyo", bearer, "POST")
    check("trigger-save by script", st == 200 and "added trigger web.s" in out, out)
    st, out = http(WEB_URL, "/api/job-save", b"mode=edit&key=load.s500&retry=2"
                   b"&retry-delay=5s&timeout=10m", bearer, "POST")
    check("job-save by script", st == 200 and sql(
        "SELECT retry_max_attempts, timeout_ms FROM {P}jobs WHERE job_name = "
        "'s500'") == [["2", "600000"]], out)
    st, out = http(WEB_URL, "/api/preview?kind=unix-cron&schedule=CRON_TZ%3DAsia"
                   "%2FTokyo%2030%202%20*%20*%201-5")
    pv = json.loads(out) if st == 200 else {}
    check("/api/preview of a Unix cron, in its zone", pv.get("ok") and
          pv["zone"] == "Asia/Tokyo" and pv["next"][0].endswith("+09:00"), out)
    # Fire now with data, from the job's page.
    load("/edit/job?key=load.s500")
    check("the job's page has its settings", driver.find_element(
        By.ID, "f-retry").get_attribute("value") == "2" and driver.find_element(
        By.ID, "f-timeout").get_attribute("value") == "10m")
    driver.find_element(By.ID, "f-fire-data").send_keys("5")
    click_action("#fire-form", "fire")
    wait("fire now with data: the page says so",
         lambda: "fired job load.s500" in message())
    # Retry the cancelled run of load.long, with data of our own.
    def manual_runs():
        return int(sql("SELECT COUNT(*) FROM {P}history WHERE job_name = "
                       "'long' AND trigger_group = 'MANUAL_TRIGGER'")[0][0])
    if check("retry: there is a cancelled run to retry", cancelled):
        # Its history keeps the fire-now's data (its one-off trigger is
        # gone): the fire's page shows it, and a retry without data of
        # its own runs the job with it (cancelled again: it would last 60 s).
        st, body = http(WEB_URL, "/api/fires/" + cancelled)
        fj = json.loads(body) if st == 200 else {}
        check("/api/fires/ID: the run's own data", fj.get("data") == "60000"
              and fj.get("data_encoding") == "text"
              and fj.get("data_bytes") == "5", body[:800])

        def retried_long():
            rows = sql("SELECT f.fire_id FROM {P}fired f JOIN {P}triggers t ON "
                       "t.sched_name = f.sched_name AND t.trigger_group = "
                       "f.trigger_group AND t.trigger_name = f.trigger_name "
                       "WHERE f.job_name = 'long' AND t.trigger_group = "
                       "'MANUAL_TRIGGER' AND t.data = '60000' AND f.state = "
                       "'EXECUTING' AND f.fire_id <> %s UNION ALL SELECT "
                       "claim_fire_id FROM {P}triggers WHERE job_name = "
                       "'long' AND trigger_group = 'MANUAL_TRIGGER' AND "
                       "data = '60000' AND state = 'EXECUTING' AND "
                       "claim_fire_id <> %s" % (cancelled, cancelled))
            return rows[0][0] if rows else None
        st, out = http(WEB_URL, "/api/retry", b"fire=" + cancelled.encode(),
                       bearer, "POST")
        check("retry by script: with the run's own data", st == 200 and
              "with the run's own data" in out, out)
        if wait("retry: the run's data reached the retried run",
                lambda: retried_long() is not None):
            again = retried_long()
            http(WEB_URL, "/api/cancel", b"fire=" + again.encode(), bearer,
                 "POST")
            wait("retry: the retried run was cancelled",
                 lambda: outcome_of(again) is not None)
        before_runs = manual_runs()
        load("/history?outcome=CANCELLED")
        driver.find_element(By.CSS_SELECTOR,
                            f"tr[data-fire='{cancelled}'] a.retry").click()
        wait("retry: the run's page", lambda: driver.find_elements(
            By.ID, "retry-form"))
        check("retry: the page shows the run's own data",
              text_of(By.ID, "run-data") == "60000")
        data = driver.find_element(By.ID, "f-data")
        data.clear()
        data.send_keys("10")
        click_action("#retry-form", "retry")
        wait("retry: the page says so", lambda:
             f"retried run {cancelled} (CANCELLED) of job load.long" in message())
        wait("retry: the job ran again", lambda: manual_runs() > before_runs)

    # ---- drain a node of the live cluster from the overview, then undrain
    load("/")
    click_action("tr[data-node='n2']", "drain")
    wait("drain: the page says so", lambda: "draining node n2" in message())
    wait("drain: n2 says it is drained (it checks in, runs nothing)",
         lambda: sql("SELECT state FROM {P}node_drains WHERE instance_id = "
                     "'n2'") == [["DRAINED"]], timeout=30)
    wait("drain: the overview shows n2 drained", lambda: "drained" in text_of(
        By.CSS_SELECTOR, "tr[data-node='n2'] td.drain") or load("/"))
    click_action("tr[data-node='n2']", "undrain")
    wait("undrain: the drain request is gone",
         lambda: sql("SELECT COUNT(*) FROM {P}node_drains") == [["0"]])
    if CTL:
        # chimectl drain --wait on the live node n1: it returns once n1 is
        # empty, and n2 takes every fire meanwhile
        def ctl(*args):
            return subprocess.run([CTL, "--url", URL, "--scheduler", "cluster",
                                   "--json"] + list(args), capture_output=True,
                                  text=True, timeout=60)
        p = ctl("drain", "n1", "--wait", "--timeout", "20")
        out = json.loads(p.stdout or "{}")
        check("chimectl drain n1 --wait returns once n1 is drained",
              p.returncode == 0 and out.get("drain") == "drained",
              p.stdout + p.stderr)
        last = int(sql("SELECT COALESCE(MAX(id), 0) FROM {P}history")[0][0])
        q = "SELECT DISTINCT node FROM {P}history WHERE id > %d" % last
        wait("fires run while n1 is drained", lambda: sql(q), timeout=30)
        time.sleep(1.0)
        nodes = sql(q)
        check("while n1 is drained every fire runs on n2",
              nodes == [["n2"]], nodes)
        p = ctl("undrain", "n1")
        check("chimectl undrain n1", p.returncode == 0, p.stdout + p.stderr)

    # ---- the events and audit pages show the actions, escaped
    body = page("/events", ["cancel", "fire " + str(cancelled or ""),
                            "trigger load.cron", "operator"])
    page("/audit", ["drain", "undrain", "node n2", "delete",
                    "trigger load.forbid", "trigger add", "web.nightly",
                    "retry"])
    driver.get(WEB_URL + "/audit?action=drain")
    check("the audit page filters by action", "undrain" not in
          driver.find_element(By.TAG_NAME, "main").text)
    check("the forwarded address is shown as text, not markup",
          "<img src=x id=pwn>" in body and
          not driver.find_elements(By.ID, "pwn"))

    # ---- a phone-sized screen: nothing wider than the screen but tables,
    # which scroll in their own box
    driver.set_window_size(390, 844)
    for path in ("/", "/jobs", "/history", "/nodes", "/triggers/load.cron"):
        driver.get(WEB_URL + path)
        check(f"page {path} fits a phone's width", driver.execute_script(
            "return document.documentElement.scrollWidth <= "
            "window.innerWidth + 1;"))
    driver.set_window_size(1280, 1000)

    # ---- the screenshot for the README: the overview of a live cluster
    driver.get(WEB_URL + "/")
    if SHOT:
        driver.set_window_size(1200, 900)
        driver.save_screenshot(SHOT)
        # ... and a trigger's page (SCREENSHOT-trigger-detail.png)
        driver.get(WEB_URL + "/triggers/load.cron")
        driver.save_screenshot(SHOT[:-4] + "-trigger-detail.png")
        driver.get(WEB_URL + "/")
    check("no console errors after the actions", not console_errors())

    # ---- users and roles (issue 35): alice an operator, bob read-only
    # (--users-file); every write checked on the server
    users_file = os.path.join(tmp, "users")
    ALICE, BOB = "alice-token-%d" % os.getpid(), "bob-token-%d" % os.getpid()
    with open(users_file, "w") as f:
        f.write("# NAME ROLE TOKEN\n\nalice operator %s\nbob  read-only\t%s\n"
                % (ALICE, BOB))
    for text, want in (("carol admin tok-123456789\n", "role"),
                       ("carol operator short\n", "shorter"),
                       ("carol operator\n", "NAME ROLE TOKEN"),
                       ("a operator tok-123456789\nb read-only tok-123456789\n",
                        "same token"),
                       ("a operator tok-123456789\na read-only tok-987654321\n",
                        "twice"),
                       ("c<d operator tok-123456789\n", "user name")):
        bad_file = os.path.join(tmp, "bad-users")
        with open(bad_file, "w") as f:
            f.write(text)
        rc, out, err = run_web(["--url", URL, "--users-file", bad_file])
        check(f"users file {text.strip()[:30]!r} is refused with a message",
              rc in (1, 2) and want in err and ALICE not in err, err)
    rc, out, err = run_web(["--url", URL, "--users-file", "/nonexistent"])
    check("an unreadable users file is refused", rc == 1 and "users" in err, err)
    roles = start_web(None, ["--users-file", users_file])
    paused_before = sql("SELECT COUNT(*) FROM {P}triggers WHERE state LIKE "
                        "'PAUSED%'")
    st, body = http(roles, "/api/pause", b"what=all",
                    {"Authorization": "Bearer " + BOB})
    check("a read-only user's write is refused (403) on the server",
          st == 403 and "read-only" in body and "bob" in body, (st, body))
    check("... and nothing changed", sql(
        "SELECT COUNT(*) FROM {P}triggers WHERE state LIKE 'PAUSED%'")
        == paused_before)
    st, body = http(roles, "/api/resume", b"what=group&target=nothing-here",
                    {"Authorization": "Bearer " + ALICE})
    check("an operator's write is done", st == 200, (st, body))
    st, body = http(roles, "/api/pause", b"what=all",
                    {"Authorization": "Bearer " + TOKEN})
    check("the --token-file token of another chime-web is no user here",
          st == 403, st)
    def sign_in(token, name, role):
        driver.get(roles + "/login")
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "signin").click()
        wait(f"{name} signed in, {role}", lambda: name in text_of(
            By.CLASS_NAME, "who") and role in text_of(By.CLASS_NAME, "who"))
        driver.get(roles + "/triggers")

    sign_in(BOB, "bob", "read-only")
    check("a read-only user's pages have no action buttons",
          not driver.find_elements(By.CSS_SELECTOR, "button[data-action]"))
    # The page's own CSRF token (the sign-out form's): a valid session's
    # write, refused for the role alone.
    status = driver.execute_async_script(
        "var done = arguments[0]; var c = document.querySelector("
        "'input[name=csrf]').value; fetch('/api/pause', {method: 'POST', "
        "headers: {'Content-Type': 'application/x-www-form-urlencoded'}, "
        "body: 'what=trigger&target=load.cron&csrf=' + c}).then("
        "function (r) { done(r.status); });")
    check("a read-only user's write from the browser is refused (403)",
          status == 403 and trigger_state("load.cron") != "PAUSED", status)
    driver.get_log("browser")  # that refusal is the console error wanted
    driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
    wait("bob signed out", lambda: "sign in" in text_of(By.CLASS_NAME, "who"))
    sign_in(ALICE, "alice", "operator")
    click_action("tr[data-trigger='load.cron']", "pause")
    wait("alice paused load.cron", lambda: trigger_state("load.cron") == "PAUSED")
    wait("the action is recorded in the audit with alice's name",
         lambda: any(a.get("who") == "alice" and a.get("action") == "pause"
                     for a in json.loads(http(roles, "/api/audit")[1] or "[]")))
    st, _ = http(roles, "/api/resume", b"what=trigger&target=load.cron",
                 {"Authorization": "Bearer " + ALICE})
    check("alice resumed load.cron", st == 200 and
          trigger_state("load.cron") != "PAUSED")

    # ---- read-only mode: without --token-file no write is possible
    ro = start_web(None)
    st, body = http(ro, "/api/pause", b"what=all", bearer)
    check("read-only chime-web refuses writes even with a token",
          st == 403 and "read-only" in body)
    st, body = http(ro, "/login", b"token=" + TOKEN.encode())
    check("read-only chime-web has no sign-in", st == 403)
    st, body = http(ro, "/edit/trigger?key=web.s")
    check("read-only chime-web shows a trigger's page without a save button",
          st == 200 and "web.s" in body and 'id="save"' not in body, st)
    st, body = http(ro, "/api/trigger-save", b"mode=edit&key=web.s&priority=1",
                    bearer)
    check("read-only chime-web refuses an edit even with a token",
          st == 403 and "read-only" in body)
finally:
    if driver:
        driver.quit()
    for p in reversed(procs):
        p.terminate()
    for p in reversed(procs):
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
        if p.args[0] == WEB:
            check("chime-web exits 0 on SIGTERM", p.returncode == 0,
                  f"exit {p.returncode}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tables = [r[0] for r in sql(f"SHOW TABLES LIKE '{PREFIX}%'")]
        if tables:
            sql("DROP TABLE " + ", ".join(tables))
    except RuntimeError as e:
        print("note: could not drop the test tables: " + str(e))

print("FAILED: %d" % failures if failures else "all ok")
sys.exit(1 if failures else 0)
