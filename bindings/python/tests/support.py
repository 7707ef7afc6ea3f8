"""support: what the binding's tests share: waiting for a condition, and
the URL of the throwaway MariaDB (CHIME_TEST_MYSQL_URL) with a test's own
parameters, and the life of a node process (cluster_node.py,
idle_node.py)."""

import os
import sys
import threading
import time

WAIT_S = 20.0


def wait_for(pred, timeout=WAIT_S):
    """Polls pred every 20 ms until it holds or timeout seconds pass;
    returns its last answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def mysql_url(params):
    """CHIME_TEST_MYSQL_URL with the URL parameters params added (text
    "a=1&b=2"), or None when it is not set."""
    base = os.environ.get("CHIME_TEST_MYSQL_URL")
    if not base:
        return None
    sep = "&" if "?" in base else "?"
    return base + sep + params


def serve_node(sched, job_type, out_path, line_of, hold_s=0.0):
    """The life of a node process: registers job_type on sched, each run
    appending line_of(ctx) to out_path after holding its worker hold_s
    seconds; starts, prints "ready", runs until a line arrives on stdin (or
    stdin closes), then closes sched, waiting for its running jobs, and
    prints "done"."""
    lock = threading.Lock()
    with open(out_path, "a", encoding="utf-8") as out:
        @sched.job(job_type)
        def run(ctx):
            line = line_of(ctx)
            if hold_s:
                time.sleep(hold_s)
            with lock:
                out.write(line)
                out.flush()

        sched.start()
        print("ready", flush=True)
        sys.stdin.readline()
        sched.close()
    print("done", flush=True)
