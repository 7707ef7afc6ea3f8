#!/usr/bin/env python3
"""cluster.py: the cluster fault tests.  Starts three chime-node processes on
the throwaway MariaDB, lets one of them schedule the test load (see
examples/node.c), injects one fault, stops every node and runs the checker
over what the jobs recorded.

    python3 cluster.py FAULT
    FAULT: none, kill, stop, skew, db-restart, kill-connections, duplicate-id,
           stop-plain, policies, backfill, rolling, stop-ahead, upgrade,
           kill-noqueue, stop-noqueue, kill-with

policies runs the run-policy load of examples/node.c instead (its own
checker, check_policies): an interrupt by `chimectl cancel` reaching a run
within 1.5 s, a retry running on another node after the node of the failed
first attempt was killed, and REPLACE and FORBID_SKIP holding across the
three nodes (never two runs of a job at once; every due fire run or
recorded SKIPPED/MISSED in the history).  It needs CHIMECTL (chimectl).

The nodes' jobs record their end exactly once, through transactional
completion (examples/node.c --table): a row in the table PREFIXresults
(cl_results) of the test database, committed with the fire's completion; the checker reads it
with the mariadb client (the URL's credentials).  stop-plain runs the stop
fault with the plain job (the end recorded in the file after asking
chime_ctx_check_owned()): it shows the at-least-once window of a job
whose effect lives outside the database, and tolerates a fire run twice
only where the stopped node's completion of that fire was refused.

rolling is a rolling restart, as every deploy does one: the three nodes
run the rolling load (examples/node.c --load rolling: the demo's load plus
runs of 4 s and 8 s, longer than a lease) and each node in turn gets
SIGTERM and is started again under its id, first stopping gracefully
(shutdown with a 10 s deadline, longer than any run), then with a deadline shorter
than the longest run (2.5 s).  The checker wants no fire run twice (two
owned ends; a graceful stop must keep its fires, so nobody recovers them),
none lost, every run cut at a deadline run again on another node, each
stop to return within its deadline and a margin, and each restart under
the same id to be accepted at once.

upgrade is a rolling upgrade (issue 34, docs/operations.md "Rolling
upgrades"): the three nodes start as the previous release's chime-node
(CHIME_OLD_NODE, built from its commit by `./dev rolling-upgrade`), which
creates its schema (tables cu_*, dropped first); then each node in turn is
stopped (SIGTERM) and started again under its id as this release's
(CHIME_NODE) with migrate=1: the first one migrates the schema while the
two old nodes go on firing on it.  The checker wants no fire run twice and
none lost, the schema at this release's version at the end, and every
node back.  Not in ./dev test: building the old release takes about a
minute (suite upgrade-extra).

Every node runs with chime's default local queue (engine/localq.c):
fires claimed beyond the free workers are recovered, fenced and never run
twice.  kill-noqueue and stop-noqueue are kill and stop with it off
(--local-queue 0): each node claims for its free workers only.
kill-with is kill with the jobs giving their row to the fire's completion
(chime_ctx_complete_with, examples/node.c --with-completion 1) instead of
committing it in a transaction of their own: the killed node's rows are
never written, its runs recovered and written once elsewhere.

stop-ahead: the nodes claim fires 1 s ahead of their time and check in
every 500 ms (--claim-ahead 1000 --checkin-interval 500: a lease of 1 s); a
node is stopped (SIGSTOP) right after it claimed a fire, for as short a time
as a survivor needs to declare it dead and take its fires over, so that it
continues about when that fire is due: its worker then starts within the
claim-ahead time (and 250 ms) of the claim, when it asks the store only if
the node's lease broke since the claim.  It must ask, and not run the fire
(it logs that it was taken over), nor any other fire it held.

backfill is no fault: while the three nodes run their load, `chimectl
backfill load.cron` asks for the 200 past fires of the cron trigger; the
checker wants each of them run exactly once (with its original scheduled
time) among the three nodes, and recorded in the history under
CHIME_BACKFILL.

Environment: CHIME_TEST_MYSQL_URL (the database), CHIME_NODE (the chime-node
program), CHIME_OLD_NODE (the previous release's, for upgrade), CHIMECTL (chimectl, for policies and backfill), CHIME_DEV (./dev, for db-restart, with CHIME_DB_DIR/CHIME_DB_PORT),
CHIME_RECOVERY_LIMIT_MS (default 3000: the longest allowed time from the kill
to the recovered run starting).

The checker fails on: a fire run twice (two owned ends of one trigger and
scheduled time, among every run recorded), a fire missing (the expected times follow from the trigger
definitions over the window, less a grace at its end), a run that was cut
short (killed, or its node lost the fire) with no recovered run, a recovery
slower than the limit, overlapping runs of the FORBID job, and in the skew
test (and for the survivors of the stop test) a fire that started late.  Python 3 standard library only.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

NODES = ["n1", "n2", "n3"]
# The load examples/node.c schedules: trigger -> period (ms).
PERIODS = {"s300": 300, "s500": 500, "long": 2000, "cron": 1000, "forbid": 400}
# The rolling load adds runs longer than a lease (--load rolling).
ROLLING_PERIODS = dict(PERIODS, r4s=5000, r8s=10000)
LONG_RUNS_MS = {"r4s": 4000, "r8s": 8000}  # how long those runs take
ROLLING_DEADLINES_MS = (10000, 2500)  # graceful, then shorter than r8s
STOP_MARGIN_MS = 2500  # a stop returns within its deadline and this
GRACE_MS = 3000  # expected times this close to the stop are not required
LEAD_MS = 2000  # the load starts this long after the harness starts


def now_ms():
    return int(time.time() * 1000)


def log(msg):
    print(f"{now_ms()} cluster: {msg}", flush=True)


def mariadb_args(base):
    """The mariadb client on the database of URL base, for one -e query."""
    u = urllib.parse.urlsplit(base)
    return ["mariadb", "-h", u.hostname, "-P", str(u.port or 3306),
            "-u", urllib.parse.unquote(u.username or ""),
            "-p" + urllib.parse.unquote(u.password or ""),
            "--protocol=tcp", "-N", "-B", u.path.lstrip("/") or "mysql", "-e"]


def mariadb(base, query, timeout=None):
    """Runs query; its output rows, tab-split."""
    out = subprocess.run(mariadb_args(base) + [query], capture_output=True,
                         text=True, check=True, timeout=timeout).stdout
    return [line.split("\t") for line in out.splitlines()]


def diagnostic_rows(base, query):
    """query's rows for a failure's report, or one row saying why they
    could not be read (the report goes on whatever the database does)."""
    try:
        return mariadb(base, query, timeout=5)
    except subprocess.CalledProcessError as e:
        return [[e.stderr.strip()]]
    except subprocess.TimeoutExpired:
        return [["(no answer within 5 s)"]]
    except (OSError, ValueError) as e:  # no client, a URL it cannot take
        return [[f"(not read: {e})"]]


def print_rows(rows):
    for r in rows:
        print("    " + "\t".join(r), flush=True)


def drop_prefix(base, prefix):
    """Drops every table of the database of URL base named prefix...."""
    db = urllib.parse.urlsplit(base).path.lstrip("/")
    rows = mariadb(base, "SELECT table_name FROM information_schema.tables "
                   f"WHERE table_schema = '{db}' AND table_name LIKE "
                   f"'{prefix.replace('_', '!_')}%' ESCAPE '!'")
    if rows:
        mariadb(base, "SET FOREIGN_KEY_CHECKS = 0; DROP TABLE " +
                ", ".join(r[0] for r in rows))


class NodeProcs:
    """Node processes that print "ready ..." once started and write whole
    lines to a log of their own (shard-cluster.py, limit-cluster.py)."""

    def __init__(self, prefix):
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.procs = {}

    def logfile(self, node):
        return os.path.join(self.dir, f"{node}.log")

    def spawn(self, node, args):
        """Starts args as node, its stderr in DIR/NODE.err; waits for its
        "ready" line."""
        err = open(os.path.join(self.dir, f"{node}.err"), "ab")
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err)
        line = p.stdout.readline().decode()
        if not line.startswith("ready"):
            p.wait(timeout=30)
            raise SystemExit(f"node {node} did not start: {p.returncode}")
        self.procs[node] = p
        return p

    def lines(self, node):
        """The node's log lines, split (a killed node's last, partial
        line left out)."""
        try:
            with open(self.logfile(node)) as f:
                return [ln.split() for ln in f if ln.endswith("\n")]
        except OSError:
            return []

    def stop_all(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


class Sampler(threading.Thread):
    """Reads, once a second while the nodes run, where each trigger stands
    (the 20 due first) and the transactions open for over a second (with
    the node whose session runs each): a failed run prints the last SAMPLES
    of them.  A stall of every node shows there as it happens (the rows
    held, the trigger that stopped moving), not only after the nodes have
    left.  Its own thread and client process: the harness's timing is not
    touched."""

    SAMPLES = 12

    def __init__(self, base, prefix):
        super().__init__(daemon=True)
        self.base = base
        self.query = (
            "SELECT ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000); "
            "SELECT trigger_name, state, next_fire_ms, owner FROM "
            f"{prefix}triggers ORDER BY next_fire_ms, trigger_name "
            "LIMIT 20; "  # the load's few triggers, or a queue's first runs
            "SELECT t.trx_mysql_thread_id, s.node, t.trx_state, "
            "t.trx_started, t.trx_rows_locked, "
            "LEFT(REPLACE(t.trx_query, '\\n', ' '), 100) "
            "FROM information_schema.innodb_trx t "
            f"LEFT JOIN {prefix}node_sessions s "
            "ON s.conn_id = t.trx_mysql_thread_id "
            "WHERE t.trx_started < NOW() - INTERVAL 1 SECOND")
        self.samples = []
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(1.0):
            rows = diagnostic_rows(self.base, self.query)
            self.samples = (self.samples + [(now_ms(), rows)])[-self.SAMPLES:]

    def stop(self):
        self.done.set()
        if self.is_alive():
            self.join(timeout=10)

    def print(self):
        for at, rows in self.samples:
            print(f"--- sample at {at} (the database's clock first, then "
                  "the triggers, then transactions open over 1 s):",
                  flush=True)
            print_rows(rows)


class Cluster:
    def __init__(self, fault, plain=False):
        self.fault = fault
        self.plain = plain
        self.stopped = None  # the node SIGSTOPped
        self.base = os.environ["CHIME_TEST_MYSQL_URL"]
        self.node_exe = os.environ["CHIME_NODE"]
        self.dir = tempfile.mkdtemp(prefix=f"chime-cluster-{fault}-")
        self.procs = {}
        self.errs = {}
        self.start_ms = (now_ms() // 1000 + 1) * 1000 + LEAD_MS
        self.killed = {}  # node -> kill time
        self.cut = set()  # nodes stopped past their deadline (rolling)
        self.started_ms = {}  # node -> when it was started again (rolling)
        self.stop_ms = None
        self.sampler = None  # started with the nodes (start_all)
        self.prefix = "cl_"
        self.periods = ROLLING_PERIODS if fault == "rolling" else PERIODS
        self.node_args = (["--load", "rolling", "--deadline", "10000"]
                          if fault == "rolling" else
                          ["--claim-ahead", "1000", "--checkin-interval", "500"]
                          if fault == "stop-ahead"
                          else [])

    @property
    def table(self):
        """Where the transactional job records its end (None: plain)."""
        return None if self.plain else self.prefix + "results"

    def url(self, extra):
        sep = "&" if "?" in self.base else "?"
        return (self.base + sep + "prefix=" + self.prefix + "&auto_create=1"
                + extra)

    def make_table(self):
        """A fresh results table for the transactional job."""
        if self.table:
            mariadb(self.base, f"DROP TABLE IF EXISTS {self.table}; "
                    f"CREATE TABLE {self.table} (id BIGINT NOT NULL "
                    "AUTO_INCREMENT PRIMARY KEY, trigger_name VARCHAR(32) "
                    "NOT NULL, scheduled_ms BIGINT NOT NULL, fire_id BIGINT "
                    "NOT NULL, node VARCHAR(32) NOT NULL, start_ms BIGINT "
                    "NOT NULL, end_ms BIGINT NULL, recovering TINYINT NOT "
                    "NULL, KEY (fire_id)) ENGINE=InnoDB")

    def spawn(self, node, extra="", schedule=False):
        args = [self.node_exe, self.url(extra), node, self.dir]
        if schedule:
            args += ["--policies" if self.fault == "policies" else
                     "--schedule", str(self.start_ms)]
        if self.table:
            args += ["--table", self.table]
        args += self.node_args
        err = open(os.path.join(self.dir, f"{node}.err"), "ab")
        env = None
        if self.node_exe == os.environ.get("CHIME_OLD_NODE"):
            # meson test points LD_LIBRARY_PATH at this tree's library: the
            # previous release's program must load its own (its RUNPATH).
            env = dict(os.environ)
            env.pop("LD_LIBRARY_PATH", None)
        return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err,
                                env=env)

    def start(self, node, extra="", schedule=False):
        p = self.spawn(node, extra, schedule)
        line = p.stdout.readline().decode()
        if not line.startswith("ready"):
            p.wait(timeout=30)
            raise SystemExit(f"node {node} did not start (status {p.returncode}):"
                             f"\n{self.stderr_of(node)}")
        self.procs[node] = p

    def stderr_of(self, node):
        try:
            with open(os.path.join(self.dir, f"{node}.err")) as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def start_all(self, extras=None):
        extras = extras or {}
        self.make_table()
        self.start("n1", "&clear=1" + extras.get("n1", ""), schedule=True)
        for n in NODES[1:]:
            self.start(n, extras.get(n, ""))
        self.sampler = Sampler(self.base, self.prefix)
        self.sampler.start()
        log(f"3 nodes up; the load starts at {self.start_ms}")

    def sleep_until(self, t_ms):
        # The time left is read once: read again after the loop's test, it
        # may have run out meanwhile (a loaded machine) and be negative.
        while (left_ms := t_ms - now_ms()) > 0:
            time.sleep(min(0.05, left_ms / 1000))

    def stop_all(self):
        self.stop_ms = now_ms()
        for n, p in self.procs.items():
            if n not in self.killed and p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.terminate()
        for n, p in self.procs.items():
            try:
                p.wait(timeout=40)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                raise SystemExit(f"node {n} did not stop on SIGTERM")
            if n not in self.killed and p.returncode != 0:
                raise SystemExit(f"node {n} exited with {p.returncode}:\n"
                                 f"{self.stderr_of(n)}")
        if self.sampler:
            self.sampler.stop()

    def kill_left(self):
        """Kills the nodes still running (a run that failed part-way)."""
        if self.sampler:
            self.sampler.stop()
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()

    def finish(self, status):
        """The run's status; its files are removed when it passed."""
        if status == 0:
            shutil.rmtree(self.dir, ignore_errors=True)
        return status

    def lines(self, ext):
        """The tab-split lines of every node's ID.ext results file."""
        for n in NODES:
            path = os.path.join(self.dir, f"{n}.{ext}")
            if os.path.exists(path):
                with open(path) as f:
                    for line in f:
                        yield line.rstrip("\n").split("\t")

    def records(self, with_table=True):
        """Every run recorded: the nodes' files (S lines, and the E lines of
        the plain job or of a run that lost its fire) and the committed rows
        of the results table (owned E records)."""
        rows = []
        for k, trig, sched, fid, node, start, end, rec, owned in \
                self.lines("log"):
            rows.append(dict(kind=k, trigger=trig, sched=int(sched),
                             fire=int(fid), node=node, start=int(start),
                             end=int(end), recovering=rec == "1",
                             owned=owned == "1"))
        if self.table and with_table:
            for trig, sched, fid, node, start, end, rec in mariadb(
                    self.base, "SELECT trigger_name, scheduled_ms, fire_id, "
                    f"node, start_ms, end_ms, recovering FROM {self.table} "
                    "ORDER BY id"):
                rows.append(dict(kind="E", trigger=trig, sched=int(sched),
                                 fire=int(fid), node=node, start=int(start),
                                 end=int(end), recovering=rec == "1",
                                 owned=True))
        return rows

    def running_long(self):
        """The node running the long job now, or None."""
        open_runs = {}
        for r in self.records(with_table=False):
            key = (r["node"], r["fire"])
            if r["trigger"] != "long":
                continue
            if r["kind"] == "S":
                open_runs[key] = r
            else:
                open_runs.pop(key, None)
        for (node, _), r in open_runs.items():
            if node not in self.killed and now_ms() - r["start"] < 600:
                return node
        return None

    def wait_for_long(self, timeout_s=15):
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            n = self.running_long()
            if n:
                return n
            time.sleep(0.02)
        raise SystemExit("no node started the long job in time")


def refused_fires(c, node):
    """The fire ids whose completion node logged as refused."""
    found = re.findall(r"fire (\d+) of trigger .*? was taken over by another "
                       r"node; its completion was refused", c.stderr_of(node))
    return {int(f) for f in found}


def check(c, on_time_ms=None, need_recovery=False, on_time_nodes=None,
          tolerated=None, also_expected=()):
    """also_expected: (trigger, scheduled_ms) fires that must have run besides
    the load's own (a backfill's).
    on_time_nodes: the nodes on_time_ms applies to (None: all), and
    then not to the FORBID job, whose next run waits by design for its run
    on a stopped node to be recovered.
    tolerated: fire ids whose double run (that fire and its recovered run)
    is the known at-least-once window of the plain job."""
    rows = c.records()
    tolerated = tolerated or set()
    doubles_tolerated = 0
    failures = []
    ends = {}
    for r in rows:
        if r["kind"] == "E" and r["owned"]:
            ends.setdefault((r["trigger"], r["sched"]), []).append(r)
    # Every recorded run counts for doubles, up to the stop; only *missing*
    # fires are excused near the stop (the grace).
    for (trig, t), got in sorted(ends.items()):
        if len(got) > 1:
            # A node killed between recording the end and completing the
            # fire is re-run (at least once for jobs that request
            # recovery): allowed only as exactly that pair.
            killed = [g for g in got if g["node"] in c.killed]
            rec = [g for g in got if g["recovering"]]
            refused = [g for g in got if g["fire"] in tolerated]
            if len(got) == 2 and len(rec) == 1 and len(refused) == 1:
                doubles_tolerated += 1
                log(f"tolerated (at-least-once window of the plain job): "
                    f"{trig} at {t} ran on " + ", ".join(g["node"] for g in got)
                    + f"; fire {refused[0]['fire']}'s completion was refused")
            elif not (len(got) == 2 and len(killed) == 1 and len(rec) == 1):
                failures.append(f"ran {len(got)} times: {trig} at {t} on "
                                + ", ".join(g["node"] for g in got))
    last = c.stop_ms - GRACE_MS
    expected = 0
    for trig, period in c.periods.items():
        t = c.start_ms
        while t <= last:
            expected += 1
            if not ends.get((trig, t)):
                failures.append(f"missing: {trig} at {t}")
            t += period
    for trig, t in also_expected:
        expected += 1
        if not ends.get((trig, t)):
            failures.append(f"missing: {trig} at {t}")
    # Runs cut short: killed (a start with no end) or lost (owned 0).
    starts = {(r["node"], r["fire"]): r for r in rows if r["kind"] == "S"}
    finished = {}
    for r in rows:  # an owned end wins over a file's "lost" line
        key = (r["node"], r["fire"])
        if r["kind"] == "E" and (key not in finished or r["owned"]):
            finished[key] = r
    recoveries = []
    for key, s in starts.items():
        e = finished.get(key)
        if e and e["owned"]:
            continue
        if not e and s["node"] not in c.killed and s["node"] not in c.cut:
            failures.append(f"run of {s['trigger']} at {s['sched']} on "
                            f"{s['node']} never ended")
            continue
        # Recovered elsewhere: by another node, or (rolling) by the same
        # id's next process, which may be the one a hand-over reached, or
        # by the same node once it learnt that its run was taken over (its
        # end recorded as lost: stop-ahead's node, continued, may be the
        # first to claim the recovered fire).
        rec = [g for g in ends.get((s["trigger"], s["sched"]), [])
               if g["recovering"] and (g["node"] != s["node"]
                                       or s["node"] in c.cut or e)]
        if not rec:
            failures.append(f"not recovered: {s['trigger']} at {s['sched']} "
                            f"(fire {s['fire']} on {s['node']})")
            continue
        if s["node"] in c.killed:
            recoveries.append(rec[0]["start"] - c.killed[s["node"]])
    limit = int(os.environ.get("CHIME_RECOVERY_LIMIT_MS", "3000"))
    if need_recovery and not recoveries:
        failures.append("the fault cut no run short: nothing was recovered")
    for ms in recoveries:
        if ms > limit:
            failures.append(f"recovery took {ms} ms (limit {limit})")
    forbid = sorted((r for r in rows if r["kind"] == "E" and r["owned"]
                     and r["trigger"] == "forbid"), key=lambda r: r["start"])
    for a, b in zip(forbid, forbid[1:]):
        if b["start"] < a["end"]:
            failures.append(f"FORBID runs overlap: {a['sched']} on {a['node']}"
                            f" and {b['sched']} on {b['node']}")
    if on_time_ms is not None:
        for r in rows:
            if (r["kind"] == "S" and not r["recovering"]
                    and (on_time_nodes is None or (r["node"] in on_time_nodes
                                                   and r["trigger"] != "forbid"))
                    and r["start"] - r["sched"] > on_time_ms):
                failures.append(f"late by {r['start'] - r['sched']} ms: "
                                f"{r['trigger']} at {r['sched']} on {r['node']}")
    runs = sum(len(v) for v in ends.values())
    by_node = {}
    for v in ends.values():
        for g in v:
            by_node[g["node"]] = by_node.get(g["node"], 0) + 1
    log(f"checker: {expected} expected fires, {runs} owned runs "
        f"(per node {by_node}), recoveries {recoveries} ms, "
        f"{doubles_tolerated} double(s) tolerated")
    return verdict(c, failures, "checker")


def stop_ahead(c):
    """Stops a node that holds a fire claimed ahead of its time until a
    survivor took it over (see the top); the failures seen."""
    deadline = time.time() + 20
    while time.time() < deadline:
        rows = mariadb(c.base, "SELECT f.fire_id, f.node, f.scheduled_ms - "
                       "(UNIX_TIMESTAMP(NOW(3)) * 1000) FROM "
                       f"{c.prefix}fired f WHERE f.sched_name = 'cluster' AND "
                       "f.state = 'EXECUTING' AND f.trigger_group = 'load' "
                       "ORDER BY 3 DESC LIMIT 1")
        if rows and int(float(rows[0][2])) > 900:
            fire, victim = int(rows[0][0]), rows[0][1]
            break
        time.sleep(0.02)
    else:
        return ["no fire was claimed ahead of its time"]
    p = c.procs[victim]
    p.send_signal(signal.SIGSTOP)
    c.stopped = victim
    c.stopped_ms = now_ms()
    log(f"stopped {victim} (SIGSTOP) holding fire {fire}, claimed "
        f"{rows[0][2]} ms ahead of its time")
    # Stopped until a survivor recovered its fires (its lease ends first,
    # within 1 s), at most 15 s.
    said = f"recovered dead node {victim}"
    end = now_ms() + 15000
    while now_ms() < end and not any(said in c.stderr_of(n)
                                      for n in c.procs if n != victim):
        time.sleep(0.02)
    p.send_signal(signal.SIGCONT)
    log(f"continued {victim} ({now_ms() - c.stopped_ms} ms later)")
    # Its worker asks at its time: wait for its answer in the log (or a
    # run it should not start), then a second more for a run after it.
    said = f"fire {fire} of trigger"
    end = now_ms() + 15000
    while now_ms() < end and said not in c.stderr_of(victim) and not any(
            r["kind"] == "S" and r["fire"] == fire and r["node"] == victim
            for r in c.records(with_table=False)):
        time.sleep(0.05)
    c.sleep_until(now_ms() + 1000)
    ran = [r for r in c.records(with_table=False)
           if r["kind"] == "S" and r["fire"] == fire and r["node"] == victim]
    if ran:
        return [f"{victim} started fire {fire} after it was taken over"]
    if said not in c.stderr_of(victim):
        return [f"{victim} did not log that fire {fire} was taken over"]
    return []


def rolling(c):
    """Restarts each node in turn, gracefully then past a deadline (see the
    top); the failures seen on the way."""
    failures = []
    # A node's deadline is the one it was started with: the first pass
    # stops the nodes started with the first deadline and starts them with
    # the next; the last pass starts them graceful again.
    nexts = list(ROLLING_DEADLINES_MS[1:]) + [ROLLING_DEADLINES_MS[0]]
    for deadline, then in zip(ROLLING_DEADLINES_MS, nexts):
        c.node_args = ["--load", "rolling", "--deadline", str(then)]
        left = list(NODES)
        while left:
            # Each node once a pass, in the order the long runs (4 or 8 s)
            # come (a fixed order waited up to 15 s for one node's): the
            # next one stopped is the first node left that runs one with
            # enough of it still to go, so that a graceful stop has one to
            # keep past a lease (over 3 s left: a lease is 2 s) and a short
            # deadline one to cut (over the deadline and 1 s left); within
            # 15 s one comes.
            graceful = deadline >= max(LONG_RUNS_MS.values())
            need_ms = 3000 if graceful else deadline + 1000
            end = now_ms() + 15000
            n = None
            while n is None and now_ms() < end:
                n = next((r["node"] for r in c.records(with_table=False)
                          if r["node"] in left and r["kind"] == "S"
                          and r["trigger"] in LONG_RUNS_MS
                          and r["start"] >= c.started_ms.get(r["node"], 0)
                          and LONG_RUNS_MS[r["trigger"]]
                          - (now_ms() - r["start"]) > need_ms), None)
                if n is None:
                    time.sleep(0.05)
            n = n or left[0]
            left.remove(n)
            p = c.procs[n]
            t0 = now_ms()
            p.terminate()
            try:
                p.wait(timeout=(deadline + 20000) / 1000)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            took = now_ms() - t0
            log(f"{n} stopped in {took} ms (deadline {deadline} ms, status "
                f"{p.returncode})")
            if p.returncode != 0:
                failures.append(f"{n} exited with {p.returncode}")
            if took > deadline + STOP_MARGIN_MS:
                failures.append(f"{n} took {took} ms to stop (deadline "
                                f"{deadline} ms)")
            if "handed to the cluster" in c.stderr_of(n).split(
                    "signal 15, shutting down")[-1]:
                c.cut.add(n)
            # Started again at once under its id: a stopped node left.
            c.started_ms[n] = now_ms()  # its earlier runs started before
            c.start(n, "")
            log(f"{n} started again")
            time.sleep(0.5)
    if not c.cut:
        failures.append("no stop past its deadline cut a run short")
    return failures


def verdict(c, failures, name):
    """Logs the failures (and the nodes' stderr) or OK; the exit status."""
    if failures:
        for f in failures[:40]:
            log("FAIL " + f)
        for n in NODES:
            print(f"--- stderr of {n}:\n{c.stderr_of(n)}", flush=True)
        if c.sampler:
            c.sampler.print()
        print_tables(c)
        return 1
    log(f"{name}: OK")
    return 0


def print_tables(c):
    """The store's rows a failure is read from: where each trigger stands
    (its state, next fire and claim), the fires held, the last runs ended
    and the nodes' check-ins, as the database has them after the run: a
    fault that stopped every node's fires at once (cluster/skew once, stop
    47) left no mark in their logs."""
    queries = {
        "triggers": "SELECT trigger_name, state, next_fire_ms, owner, "
                    f"claim_fire_id, recovering FROM {c.prefix}triggers "
                    "ORDER BY trigger_name",
        "fired": "SELECT fire_id, trigger_name, scheduled_ms, acquired_ms, "
                 f"node, state FROM {c.prefix}fired ORDER BY fire_id",
        "history, the last 20": "SELECT * FROM (SELECT id, trigger_name, "
                                "scheduled_ms, node, outcome, started_ms, "
                                "duration_ms, finished_ms FROM "
                                f"{c.prefix}history ORDER BY id DESC LIMIT 20)"
                                " AS h ORDER BY id",
        "nodes": "SELECT instance_id, started_ms, last_checkin_ms, "
                 f"ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) FROM {c.prefix}nodes "
                 "ORDER BY instance_id",
    }
    for what, query in queries.items():
        print(f"--- {what}:", flush=True)
        print_rows(diagnostic_rows(c.base, query)[:60])


# The policy load's periods (ms), examples/node.c --policies.
POLICY_PERIODS = {"replace": 500, "skip": 250}
INTERRUPT_LIMIT_MS = 1500  # the bound for `chimectl cancel`


def policy_records(c):
    """The policy job's B (begin) and F (finish) lines of every node."""
    return [dict(kind=k, job=job, sched=int(sched), fire=int(fid), node=node,
                 start=int(start), end=int(end), attempt=int(attempt),
                 told=told == "1")
            for k, job, sched, fid, node, start, end, attempt, told
            in c.lines("pol")]


def wait_policy(c, pred, what, timeout_s=15):
    """The first policy record matching pred, waiting for it."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        for r in policy_records(c):
            if pred(r):
                return r
        time.sleep(0.02)
    raise SystemExit(f"no {what} in time")


def history(c, where):
    """(fire_id, scheduled_ms, outcome) rows of the cluster's history."""
    return [(int(f), int(s), o) for f, s, o in mariadb(
        c.base, f"SELECT fire_id, scheduled_ms, outcome FROM {c.prefix}history"
        f" WHERE sched_name = 'cluster' AND job_group = 'pol' AND {where}")]


def run_policies(c):
    """The policies scenario's steps; returns the measured interrupt
    latency and the retry's (killed node, first fire id)."""
    # (c) An interrupt by chimectl reaches the polite run wherever it runs.
    polite = wait_policy(c, lambda r: r["kind"] == "B" and r["job"] == "polite",
                         "polite run")
    sep = "&" if "?" in c.base else "?"
    t0 = now_ms()
    subprocess.run([os.environ["CHIMECTL"], "--url",
                    c.base + sep + "prefix=" + c.prefix, "--scheduler",
                    "cluster", "cancel", "fire", str(polite["fire"])],
                   check=True, capture_output=True)
    t1 = now_ms()  # the interrupt is in the store: issued
    told = wait_policy(c, lambda r: r["kind"] == "F" and r["fire"] ==
                       polite["fire"], "end of the interrupted run")
    latency = told["end"] - t1
    log(f"chimectl cancel fire {polite['fire']} (on {polite['node']}) took "
        f"{t1 - t0} ms; the run returned {latency} ms after, "
        f"told={told['told']}")
    # (a) The first attempt of retry fails; once its retry is stored, its
    # node is killed: another node runs attempt 2.
    first = wait_policy(c, lambda r: r["kind"] == "F" and r["job"] == "retry",
                        "failed first attempt")
    deadline = time.time() + 10
    while not mariadb(c.base, f"SELECT 1 FROM {c.prefix}triggers WHERE "
                      "sched_name = 'cluster' AND trigger_group = "
                      "'CHIME_RETRY' AND job_group = 'pol'"):
        if time.time() > deadline:
            raise SystemExit("the failed attempt stored no retry")
        time.sleep(0.02)
    victim = first["node"]
    c.procs[victim].kill()
    c.killed[victim] = now_ms()
    c.procs[victim].wait()
    log(f"killed {victim} (kill -9) after attempt 1 of retry failed there")
    wait_policy(c, lambda r: r["kind"] == "F" and r["job"] == "retry"
                and r["attempt"] == 2, "second attempt", timeout_s=20)
    c.sleep_until(now_ms() + 2000)
    return latency, told["told"], victim, first


def check_policies(c, latency, told, victim, first):
    rows = policy_records(c)
    failures = []
    if not told or latency > INTERRUPT_LIMIT_MS:
        failures.append(f"interrupt: told={told} after {latency} ms "
                        f"(limit {INTERRUPT_LIMIT_MS})")
    seconds = [r for r in rows if r["job"] == "retry" and r["kind"] == "B"
               and r["attempt"] == 2]
    if len(seconds) != 1 or seconds[0]["node"] == victim or \
            seconds[0]["sched"] != first["sched"] or \
            seconds[0]["fire"] == first["fire"]:
        failures.append(f"retry: attempt 2 runs {seconds} (attempt 1 fire "
                        f"{first['fire']} on {victim})")
    outcomes = {f: o for f, _, o in history(c, "job_name = 'retry'")}
    if outcomes.get(first["fire"]) != "RETRIED" or \
            (seconds and outcomes.get(seconds[0]["fire"]) != "OK"):
        failures.append(f"retry: history {outcomes}")
    last = c.stop_ms - GRACE_MS
    for job, period in POLICY_PERIODS.items():
        begins = sorted((r for r in rows if r["kind"] == "B"
                         and r["job"] == job), key=lambda r: r["start"])
        ends = {r["fire"]: r["end"] for r in rows
                if r["kind"] == "F" and r["job"] == job}
        # A run of the killed node ends at the kill, at the latest.
        spans = [(b["start"], ends.get(b["fire"], c.killed.get(b["node"],
                                                               c.stop_ms)), b)
                 for b in begins]
        for (s1, e1, a), (s2, _, b) in zip(spans, spans[1:]):
            if s2 < e1:
                failures.append(f"{job}: runs overlap: fire {a['fire']} on "
                                f"{a['node']} and {b['fire']} on {b['node']}")
        ran = {b["sched"] for b in begins}
        dropped = {s for _, s, o in history(
            c, f"job_name = '{job}' AND outcome IN ('SKIPPED', 'MISSED')")}
        nodes = {b["node"] for b in begins}
        t, due = c.start_ms, 0
        while t <= last:
            due += 1
            if t not in ran and t not in dropped:
                failures.append(f"{job}: the fire due at {t} was neither run "
                                "nor recorded SKIPPED/MISSED")
            t += period
        log(f"{job}: {due} due fires, {len(ran & set(range(c.start_ms, last + 1)))}"
            f" run (on {sorted(nodes)}), {len(dropped)} recorded "
            "SKIPPED/MISSED")
        cancelled = [f for f, _, o in history(
            c, f"job_name = '{job}' AND outcome = 'CANCELLED'")]
        if job == "replace" and not cancelled:
            failures.append("replace: no run was cancelled by the next")
    return verdict(c, failures, "policies checker")


def kill_connections(base):
    args = mariadb_args(base)
    query = ("SELECT id FROM information_schema.processlist WHERE id <> "
             "CONNECTION_ID() AND user = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)")
    out = subprocess.run(args + [query],
                         capture_output=True, text=True, check=True).stdout
    ids = [i for i in out.split() if i.isdigit()]
    for i in ids:
        subprocess.run(args + [f"KILL CONNECTION {i}"], capture_output=True,
                       text=True)
    return len(ids)


BACKFILL_FIRES = 200


def backfill(c):
    """Backfills the cron trigger's 200 fires before the load started, with
    chimectl, while the nodes run; waits for every one to be recorded.
    Returns the fires the checker must find, or None on a failure."""
    first = c.start_ms - BACKFILL_FIRES * 1000  # cron fires every second
    last = c.start_ms - 1000
    out = subprocess.run(
        [os.environ["CHIMECTL"], "--url", c.url(""), "--scheduler", "cluster",
         "backfill", "load.cron", "--from", str(first), "--to", str(last)],
        capture_output=True, text=True)
    log(f"chimectl backfill: {out.stdout.strip()} {out.stderr.strip()}")
    if out.returncode != 0 or f"{BACKFILL_FIRES} fires created" not in out.stdout:
        log(f"FAIL chimectl backfill (status {out.returncode})")
        return None
    count = (f"SELECT COUNT(*) FROM {c.table} WHERE trigger_name = 'cron' "
             f"AND scheduled_ms BETWEEN {first} AND {last}")
    deadline = time.time() + 90  # wide: a loaded machine
    while (done := int(mariadb(c.base, count)[0][0])) < BACKFILL_FIRES:
        if time.time() > deadline:
            log(f"FAIL only {done} of {BACKFILL_FIRES} backfill fires ran")
            return None
        time.sleep(0.2)
    log(f"all {BACKFILL_FIRES} backfill fires recorded")
    return [("cron", t) for t in range(first, last + 1, 1000)]


def check_backfill_history(c, fires):
    """Each backfill fire is in the history once, under CHIME_BACKFILL, with
    its original scheduled time; and more than one node ran them."""
    lo, hi = fires[0][1], fires[-1][1]
    rows = mariadb(c.base, "SELECT scheduled_ms, COUNT(*), MIN(trigger_group),"
                   f" MIN(outcome) FROM {c.prefix}history WHERE sched_name ="
                   f" 'cluster' AND job_name = 'cron' AND scheduled_ms BETWEEN"
                   f" {lo} AND {hi} GROUP BY scheduled_ms")
    bad = [r for r in rows if r[1:] != ["1", "CHIME_BACKFILL", "OK"]]
    nodes = mariadb(c.base, f"SELECT node, COUNT(*) FROM {c.table} WHERE "
                    f"trigger_name = 'cron' AND scheduled_ms BETWEEN {lo} AND"
                    f" {hi} GROUP BY node")
    log(f"backfill fires per node: {dict((n, int(k)) for n, k in nodes)}")
    if len(rows) != len(fires) or bad:
        log(f"FAIL history: {len(rows)} backfill fires of {len(fires)}, "
            f"wrong: {bad[:5]}")
        return 1
    if len(nodes) < 2:
        log("FAIL one node ran every backfill fire")
        return 1
    return 0


def upgrade(c):
    """Replaces each node of the previous release by one of this release
    (see the top); the failures seen on the way."""
    failures = []
    new_exe = os.environ["CHIME_NODE"]
    old_exe = c.node_exe
    for i, n in enumerate(NODES):
        # Stopped right after it started a run of the long job (1.2 s), so
        # that its stop has a run to finish; within 10 s one comes.
        end = now_ms() + 10000
        while now_ms() < end and not any(
                r["node"] == n and r["kind"] == "S" and r["trigger"] == "long"
                and now_ms() - r["start"] < 300
                for r in c.records(with_table=False)):
            time.sleep(0.05)
        p = c.procs[n]
        t0 = now_ms()
        p.terminate()
        try:
            p.wait(timeout=40)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log(f"old {n} stopped in {now_ms() - t0} ms (status {p.returncode})")
        if p.returncode != 0:
            failures.append(f"old {n} exited with {p.returncode}")
        c.node_exe = new_exe
        c.start(n, "&migrate=1")
        version = mariadb(c.base, "SELECT MAX(version) FROM "
                          f"{c.prefix}schema_version")[0][0]
        log(f"{n} started again as this release (schema version {version})")
        if i == 0:
            c.new_version = version
        time.sleep(2.5)
    # The previous release knows no compatible_with: started on the
    # migrated schema it refuses it (docs/operations.md), and fires nothing.
    c.node_exe = old_exe
    p = c.spawn("old")
    c.procs["old"] = p  # killed by kill_left whatever happens
    try:
        p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
    err = c.stderr_of("old")
    if p.returncode == 0 or "newer" not in err:
        failures.append(f"an old node started on the migrated schema "
                        f"(status {p.returncode}): {err[-400:]}")
    else:
        log("an old node started afterwards refuses the schema: "
            + err.strip().splitlines()[-1])
    del c.procs["old"]
    c.node_exe = new_exe
    if int(c.new_version) <= int(c.old_version):
        failures.append(f"the schema was not migrated: version "
                        f"{c.old_version} before, {c.new_version} after")
    return failures


def main():
    fault = sys.argv[1] if len(sys.argv) > 1 else "none"
    plain = fault.endswith("-plain")
    if plain:
        fault = fault[:-len("-plain")]
    no_queue = fault.endswith("-noqueue")
    if no_queue:
        fault = fault[:-len("-noqueue")]
    with_completion = fault.endswith("-with")
    if with_completion:
        fault = fault[:-len("-with")]
    c = Cluster(fault, plain)
    if no_queue:
        c.node_args += ["--local-queue", "0"]
    if with_completion:
        c.node_args += ["--with-completion", "1"]
    on_time_nodes = None
    tolerated = None
    extras = {}
    if fault == "policies":
        c.plain = True  # the policy job records in files only
        try:
            c.start_all()
            c.sleep_until(c.start_ms)
            measured = run_policies(c)
            c.sleep_until(max(now_ms(), c.start_ms + 9000))
            c.stop_all()
            return c.finish(check_policies(c, *measured))
        finally:
            c.kill_left()
    if fault == "upgrade":
        c.prefix = "cu_"
        c.node_exe = os.environ.get("CHIME_OLD_NODE", "")
        if not c.node_exe or not os.access(c.node_exe, os.X_OK):
            log("FAIL upgrade needs CHIME_OLD_NODE, the previous release's "
                "chime-node: run it with ./dev rolling-upgrade")
            return 1
        for (table,) in mariadb(c.base, "SELECT table_name FROM "
                                "information_schema.tables WHERE "
                                "table_schema = DATABASE() AND "
                                "LEFT(table_name, 3) = 'cu_'"):
            mariadb(c.base, f"DROP TABLE {table}")
    if fault == "skew":
        extras = {"n2": "&test_clock_offset_ms=-180000",
                  "n3": "&test_clock_offset_ms=240000"}
    try:
        c.start_all(extras)
        c.sleep_until(c.start_ms + 1000)
        on_time = None
        need_recovery = False
        if fault == "kill":
            victim = c.wait_for_long()
            c.procs[victim].kill()
            c.killed[victim] = now_ms()
            c.procs[victim].wait()
            log(f"killed {victim} (kill -9) while it ran the long job")
            need_recovery = True
            c.sleep_until(now_ms() + 6000)
        elif fault == "stop":
            # With the transactional job the victim stops inside its
            # transaction (the long job sleeps between its row's insert and
            # the commit): it holds its fired row's lock and an uncommitted
            # row.  The survivors must end its sessions, recover it, and
            # keep firing on time meanwhile, never fencing themselves.
            victim = c.wait_for_long()
            c.stopped = victim
            c.procs[victim].send_signal(signal.SIGSTOP)
            log(f"stopped {victim} (SIGSTOP) while it ran the long job")
            time.sleep(5)
            c.procs[victim].send_signal(signal.SIGCONT)
            log(f"continued {victim}")
            c.sleep_until(now_ms() + 5000)
            err = c.stderr_of(victim)
            for want in ("fenced itself", "its completion was refused"):
                if want not in err:
                    log(f"FAIL {victim} did not log '{want}':\n{err}")
                    return 1
            survivors = [n for n in NODES if n != victim]
            for n in survivors:
                if "fenced itself" in c.stderr_of(n):
                    log(f"FAIL survivor {n} fenced itself:\n"
                        f"{c.stderr_of(n)}")
                    return 1
            if c.table and not any(
                    f"database session(s) of dead node {victim}"
                    in c.stderr_of(n) for n in survivors):
                log(f"FAIL no survivor ended the sessions of {victim}")
                return 1
            # Wide: a survivor may wait for a lock of the stopped node
            # until its lease ends and its sessions are ended (2 s); a
            # survivor that waited for the stopped node itself would be
            # 5 s late.
            on_time = 3000
            on_time_nodes = set(survivors)
            if plain:
                tolerated = refused_fires(c, victim)
        elif fault == "skew":
            on_time = 1500
            c.sleep_until(now_ms() + 6000)
        elif fault == "db-restart":
            dev = os.environ["CHIME_DEV"]
            log("restarting MariaDB")
            subprocess.run([dev, "db-restart"], check=True,
                           stdout=subprocess.DEVNULL)
            log("MariaDB is back")
            c.sleep_until(now_ms() + 8000)
        elif fault == "kill-connections":
            for _ in range(3):
                log(f"killed {kill_connections(c.base)} connection(s)")
                time.sleep(1.5)
            c.sleep_until(now_ms() + 5000)
        elif fault == "duplicate-id":
            p = c.spawn("n2")
            out, _ = p.communicate(timeout=60)
            err = c.stderr_of("n2")
            if p.returncode != 3 or "in use by a live node" not in err:
                log(f"FAIL the duplicate n2 was not refused (status "
                    f"{p.returncode}, output {out!r})\n{err}")
                return 1
            log("a second n2 was refused: "
                + err.strip().splitlines()[-1])
            c.sleep_until(now_ms() + 3000)
        elif fault == "none":
            c.sleep_until(now_ms() + 6000)
        elif fault == "upgrade":
            c.old_version = mariadb(c.base, "SELECT MAX(version) FROM "
                                    f"{c.prefix}schema_version")[0][0]
            log(f"the previous release's nodes run on schema version "
                f"{c.old_version}")
            failures = upgrade(c)
            c.sleep_until(now_ms() + 4000)
            c.stop_all()
            status = check(c)
            for f in failures:
                log("FAIL " + f)
            return 1 if failures else c.finish(status)
        elif fault in ("stop-ahead", "rolling"):
            failures = stop_ahead(c) if fault == "stop-ahead" else rolling(c)
            c.sleep_until(now_ms() + 4000)
            c.stop_all()
            status = check(c)
            for f in failures:
                log("FAIL " + f)
            return 1 if failures else c.finish(status)
        elif fault == "backfill":
            also_expected = backfill(c)
            if also_expected is None:
                return 1
            c.sleep_until(now_ms() + 4000)  # live fires go on meanwhile
            c.stop_all()
            status = check(c, also_expected=also_expected)
            return c.finish(status or check_backfill_history(c, also_expected))
        else:
            raise SystemExit(f"unknown fault {fault}")
        c.stop_all()
        return c.finish(check(c, on_time, need_recovery, on_time_nodes,
                              tolerated))
    finally:
        c.kill_left()


if __name__ == "__main__":
    sys.exit(main())
