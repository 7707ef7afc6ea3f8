#!/usr/bin/env python3
"""test-chime-web.py: the browser test of chime-web.  Starts a 2-node
cluster (chime-node, the cluster tests' node) on the throwaway MariaDB
(CHIME_TEST_MYSQL_URL) in tables of a prefix of its own, chime-web on a
free port with an operator token, and drives headless Chromium (Debian's
chromium and chromium-driver, python3-selenium) through every page and
action: each page loads without console errors and shows the live data;
pause, resume, fire now, cancel and delete take effect (checked in the
database and on the page); writes without the token or the CSRF token are
refused; bad input gets a 4xx and writes nothing; text from the database
and the URL is escaped.  A missing database or browser is a failure,
never a skip.

usage: test-chime-web.py CHIME-WEB CHIME-NODE [SCREENSHOT.png]
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
check("--help", rc == 0 and "--token-file" in out and "--listen" in out)
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
    for node, extra in (("n1", ["--schedule", str(start)]), ("n2", [])):
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

    def manual_long():
        rows = sql("SELECT fire_id FROM {P}fired WHERE job_name = 'long' AND "
                   "trigger_group = 'MANUAL_TRIGGER' AND state = 'EXECUTING'")
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
            "SELECT COUNT(*) FROM {P}fired WHERE fire_id = %s" % cancelled)
            == [["0"]])
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

    # ---- the events page shows the actions, escaped
    body = page("/events", ["cancelled fire", "paused trigger load.cron"])
    check("the forwarded address is shown as text, not markup",
          "<img src=x id=pwn>" in body and
          not driver.find_elements(By.ID, "pwn"))

    # ---- a phone-sized screen: nothing wider than the screen but tables,
    # which scroll in their own box
    driver.set_window_size(390, 844)
    for path in ("/", "/jobs", "/history"):
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
    check("no console errors after the actions", not console_errors())

    # ---- read-only mode: without --token-file no write is possible
    ro = start_web(None)
    st, body = http(ro, "/api/pause", b"what=all", bearer)
    check("read-only chime-web refuses writes even with a token",
          st == 403 and "read-only" in body)
    st, body = http(ro, "/login", b"token=" + TOKEN.encode())
    check("read-only chime-web has no sign-in", st == 403)
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
