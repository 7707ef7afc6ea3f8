#!/usr/bin/env python3
"""lease-cluster.py: the named-lease cluster test.  Four lease-node
processes (tests/cluster/lease-node.c) loop acquire -> write (token,
holder, start, end) -> release on one lease for RUN_S seconds, on the
throwaway MariaDB, while the harness kills the current holder with SIGKILL
(and starts a replacement) and SIGSTOPs another holder for three times the
lease's at_most.  Then the checker reads the sections table (no unique key)
and fails on:

  - two sections with one token, or tokens whose order is not the order
    of the sections' starts (tokens strictly increase per acquisition);
  - two sections that overlap in database time, unless the earlier one's
    lease had expired before the later one started (the holder was paused
    past at_most): then its late writes carry the older token, which a
    fenced resource refuses (the later token was seen first), and its
    release must have been refused (CHIME_ENOTOWNER);
  - a release refused although it returned before the lease's end;
  - a stopped holder that did not overrun its lease (the fault missed);
  - a process that did not finish in time (a deadlock) or failed.

Environment: CHIME_TEST_MYSQL_URL, CHIME_LEASE_NODE (the program).
Python 3 standard library only; the mariadb client reads the table.
"""
import os
import signal
import subprocess
import sys
import time
import urllib.parse

RUN_S = 9
AT_MOST_MS = 500  # lease-node.c's
STOP_S = 3 * AT_MOST_MS / 1000
ENOTOWNER = -14
PREFIX = "cl_le_"


def log(msg):
    print(f"{int(time.time() * 1000)} lease-cluster: {msg}", flush=True)


def mariadb(base, query):
    u = urllib.parse.urlsplit(base)
    args = ["mariadb", "-h", u.hostname, "-P", str(u.port or 3306),
            "-u", urllib.parse.unquote(u.username or ""),
            "-p" + urllib.parse.unquote(u.password or ""),
            "--protocol=tcp", "-N", "-B", u.path.lstrip("/"), "-e", query]
    out = subprocess.run(args, capture_output=True, text=True,
                         check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def db_spec(base):
    u = urllib.parse.urlsplit(base)
    return ":".join([u.hostname, str(u.port or 3306),
                     urllib.parse.unquote(u.username or ""),
                     urllib.parse.unquote(u.password or ""),
                     u.path.lstrip("/")])


def fresh_tables(base):
    """Drops the store tables of PREFIX (a new schema each run) and makes
    an empty sections table."""
    rows = mariadb(base, "SELECT table_name FROM information_schema.tables "
                   "WHERE table_schema = DATABASE() AND table_name LIKE "
                   f"'{PREFIX.replace('_', chr(92) + '_')}%'")
    for (name,) in rows:
        mariadb(base, f"DROP TABLE IF EXISTS `{name}`")
    mariadb(base, "DROP TABLE IF EXISTS cl_sections")
    mariadb(base, "CREATE TABLE cl_sections (token BIGINT NOT NULL, holder "
            "VARCHAR(64) NOT NULL, start_ms BIGINT NOT NULL, end_ms BIGINT, "
            "expires_ms BIGINT NOT NULL, release_rc INT, released_ms BIGINT) "
            "ENGINE=InnoDB")


def open_holder(base):
    """The holder of the newest section still open, or None."""
    rows = mariadb(base, "SELECT holder FROM cl_sections WHERE end_ms IS "
                   "NULL ORDER BY token DESC LIMIT 1")
    return rows[0][0] if rows else None


def holder_open(base, holder):
    """Whether holder has a section still open."""
    return bool(mariadb(base, "SELECT 1 FROM cl_sections WHERE end_ms IS "
                        f"NULL AND holder = '{holder}' LIMIT 1"))


def sections(base):
    rows = mariadb(base, "SELECT token, holder, start_ms, IFNULL(end_ms, "
                   "-1), expires_ms, IFNULL(release_rc, 1), IFNULL(released_ms, -1) "
                   "FROM cl_sections ORDER BY token")
    out = []
    for t, h, s, e, x, rc, rel in rows:
        out.append({"token": int(t), "holder": h, "start": int(s),
                    "end": int(e) if int(e) >= 0 else None,
                    "expires": int(x),
                    "rc": None if int(rc) == 1 else int(rc),
                    "released": int(rel) if int(rel) >= 0 else None})
    return out


class Harness:
    def __init__(self):
        self.base = os.environ["CHIME_TEST_MYSQL_URL"]
        self.exe = os.environ["CHIME_LEASE_NODE"]
        sep = "&" if "?" in self.base else "?"
        self.store = f"{self.base}{sep}auto_create=1&prefix={PREFIX}"
        self.procs = {}
        self.killed = set()
        self.stopped = None
        self.started = time.monotonic()

    def start(self, holder):
        left = max(1, int(RUN_S - (time.monotonic() - self.started)))
        self.procs[holder] = subprocess.Popen(
            [self.exe, self.store, db_spec(self.base), holder, str(left)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def until(self, seconds):
        while time.monotonic() - self.started < seconds:
            time.sleep(0.05)

    def current_holder(self):
        for _ in range(100):
            h = open_holder(self.base)
            if h in self.procs and h not in self.killed:
                return h
            time.sleep(0.02)
        return None

    def kill_holder(self):
        h = self.current_holder()
        if not h:
            return False
        log(f"SIGKILL {h}")
        self.procs[h].send_signal(signal.SIGKILL)
        self.killed.add(h)
        self.start("h-new")
        return True

    def stop_holder(self):
        """SIGSTOPs a holder inside its section for STOP_S.  A section
        lasts 20-170 ms, so the holder read from the table may have left it
        before the signal lands (it did, under load): the stop counts only
        when the stopped holder's section is still open at its end (no
        statement of it can be in flight by then); otherwise the holder
        goes on and the next one is tried while there is time."""
        while time.monotonic() - self.started < RUN_S - STOP_S - 1.0:
            h = self.current_holder()
            if not h:
                return False
            log(f"SIGSTOP {h} for {STOP_S:.1f} s")
            self.procs[h].send_signal(signal.SIGSTOP)
            time.sleep(STOP_S)
            caught = holder_open(self.base, h)
            self.procs[h].send_signal(signal.SIGCONT)
            log(f"SIGCONT {h}" + ("" if caught else
                                  ": it had left its section, again"))
            if caught:
                self.stopped = h
                return True
        return False

    def wait_all(self):
        problems = []
        for h, p in self.procs.items():
            try:
                out, err = p.communicate(timeout=RUN_S + 30)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                problems.append(f"{h} did not finish: a deadlock?")
            if h not in self.killed:
                log(f"{h} exit {p.returncode}: {out.strip()} {err.strip()}")
                if p.returncode != 0:
                    problems.append(f"{h} failed: {err.strip()}")
        return problems


def check(rows, stopped, killed):
    problems = []
    tokens = [r["token"] for r in rows]
    if len(set(tokens)) != len(tokens):
        problems.append("a token was handed out twice")
    for a, b in zip(rows, rows[1:]):
        if b["start"] < a["start"]:
            problems.append(f"token {b['token']} started before token "
                            f"{a['token']}")
    fenced = 0
    for i, a in enumerate(rows):
        # A killed holder's section ends, at the latest, with its lease.
        a_end = a["end"] if a["end"] is not None else a["expires"]
        for b in rows[i + 1:]:
            if b["start"] >= a_end:
                continue
            # Overlap: only allowed when a's lease ran out first.
            if a["expires"] > b["start"]:
                problems.append(f"tokens {a['token']} ({a['holder']}) and "
                                f"{b['token']} ({b['holder']}) overlap while "
                                "both leases were live")
            elif a["rc"] not in (ENOTOWNER, None):
                problems.append(f"token {a['token']} overran its lease but "
                                f"its release returned {a['rc']}")
            else:
                fenced += 1
                log(f"fenced: token {a['token']} ({a['holder']}) wrote its "
                    f"end at {a_end}, after token {b['token']} "
                    f"({b['holder']}) started at {b['start']}: a resource "
                    f"that saw token {b['token']} refuses token {a['token']}")
        # Judged by when the release returned, not by the section's end:
        # a holder descheduled between the two (load, or the SIGSTOP) may
        # release after its lease ran out, and is then rightly refused.
        live = a["released"] is not None and a["released"] < a["expires"]
        if live and a["rc"] == ENOTOWNER:
            problems.append(f"token {a['token']} was released within its "
                            "lease but the release was refused")
    overran = [r for r in rows if r["holder"] == stopped and
               r["end"] is not None and r["end"] > r["expires"]]
    if stopped and not overran:
        problems.append(f"the stopped holder {stopped} never overran its "
                        "lease: the fault missed")
    if len(rows) < 10:
        problems.append(f"only {len(rows)} sections: no progress")
    log(f"{len(rows)} sections, {fenced} fenced overlaps, killed {killed}, "
        f"stopped {stopped}")
    return problems


def main():
    h = Harness()
    fresh_tables(h.base)
    for i in range(1, 5):
        h.start(f"h{i}")
    h.until(2.5)
    kill_ok = h.kill_holder()
    h.until(3.5)
    stop_ok = h.stop_holder()
    problems = h.wait_all()
    if not kill_ok or not stop_ok:
        problems.append("no holder was found to kill or stop")
    problems += check(sections(h.base), h.stopped, sorted(h.killed))
    for p in problems:
        log("FAIL " + p)
    log("ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
