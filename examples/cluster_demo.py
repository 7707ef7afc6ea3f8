#!/usr/bin/env python3
"""cluster_demo.py: the cluster demo `./dev demo` runs.  Three chime-node
processes share the throwaway MariaDB and run a small load (simple triggers
every 300, 500 and 2000 ms, a cron every second, a FORBID job every 400 ms;
see examples/node.c).  A few seconds in, the node running the long job is
killed with SIGKILL; a survivor detects it and re-runs the job (recovering,
with its original scheduled time).  At the end: a table of which node ran
each fire and a summary.  It reuses the cluster tests' harness and checker.

    python3 cluster_demo.py CHIME_NODE MYSQL_URL
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "cluster"))
import cluster  # noqa: E402


def main():
    os.environ["CHIME_NODE"] = sys.argv[1]
    os.environ["CHIME_TEST_MYSQL_URL"] = sys.argv[2]
    c = cluster.Cluster("demo")
    c.prefix = "demo_"
    try:
        c.start_all()
        c.sleep_until(c.start_ms + 3000)
        victim = c.wait_for_long()
        c.procs[victim].kill()
        c.killed[victim] = cluster.now_ms()
        c.procs[victim].wait()
        cluster.log(f"killed {victim} with SIGKILL while it ran the long job")
        c.sleep_until(cluster.now_ms() + 7000)
        c.stop_all()
    finally:
        for p in c.procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    rows = [r for r in c.records() if r["kind"] == "E" and r["owned"]]
    rows.sort(key=lambda r: (r["sched"], r["trigger"]))
    print()
    print(f"{'scheduled (ms after start)':>27}  {'job':<7} {'node':<5} "
          f"{'started late by':>15}  note")
    for r in rows:
        note = "RECOVERED after the kill" if r["recovering"] else ""
        print(f"{r['sched'] - c.start_ms:>27}  {r['trigger']:<7} "
              f"{r['node']:<5} {r['start'] - r['sched']:>12} ms  {note}")
    print()
    status = cluster.check(c, need_recovery=True)
    keys = {}
    for r in rows:
        keys[(r["trigger"], r["sched"])] = keys.get((r["trigger"], r["sched"]), 0) + 1
    dups = sum(n - 1 for n in keys.values())
    rec = [r["start"] - c.killed[victim] for r in rows if r["recovering"]]
    print(f"summary: {len(rows)} fires run by 3 nodes ({victim} killed), "
          f"duplicates {dups}, lost {'0' if status == 0 else 'SOME (see above)'}, "
          f"recovery time {min(rec) if rec else '-'} to "
          f"{max(rec) if rec else '-'} ms from the kill to the recovered "
          f"runs starting")
    return status


if __name__ == "__main__":
    sys.exit(main())
