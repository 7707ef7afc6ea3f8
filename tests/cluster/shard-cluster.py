#!/usr/bin/env python3
"""shard-cluster.py: the sharded-batch cluster tests (issue 15,
docs/batch.md).  Three shard-node processes on the throwaway MariaDB; one
of them schedules a job of 30 shards of about 200 ms (10 steps of 20 ms,
a checkpoint after each); the checker reads the nodes' logs and the
history table.

    python3 shard-cluster.py spread    every shard exactly once, each node
                                       runs 8 to 12 of them
    python3 shard-cluster.py kill      a node is killed (SIGKILL) while it
                                       runs shards: its unfinished shards run
                                       on the survivors, resuming from their
                                       last checkpoint; none lost, none run
                                       again after it completed
    python3 shard-cluster.py bench [SHARDS [WORKERS [STEPS]]]
                                       the bench (docs/performance.md): the
                                       batch's wall time on one node and on
                                       three (default 60 shards of 10 steps
                                       of 20 ms, a checkpoint after 5 and
                                       10, 2 workers per node), and their
                                       ratio

The spread test also asks chimectl (CHIMECTL) for the fire's shards
(`chimectl shards`) and why the job requiring the tag "gpu" that no node
has does not run (`chimectl explain`).

Environment: CHIME_TEST_MYSQL_URL, CHIME_SHARD_NODE (the shard-node
program), CHIMECTL.  Python 3 standard library only.
"""
import collections
import json
import os
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import NodeProcs, drop_prefix, mariadb, now_ms  # noqa: E402 (the fault tests' helpers)

NODES = ["n1", "n2", "n3"]
SHARDS = 30
STEPS = 10
PREFIX = "sh_"
LEAD_MS = 2500  # the batch starts this long after the first node


def log(msg):
    print(f"{now_ms()} shards: {msg}", flush=True)


def drop_tables(base):
    drop_prefix(base, PREFIX)


class Batch(NodeProcs):
    def __init__(self, scenario):
        super().__init__(f"chime-shards-{scenario}-")
        self.scenario = scenario
        self.base = os.environ["CHIME_TEST_MYSQL_URL"]
        self.exe = os.environ["CHIME_SHARD_NODE"]

    def url(self):
        sep = "&" if "?" in self.base else "?"
        return self.base + sep + "prefix=" + PREFIX + "&auto_create=1"

    def start(self, node, schedule=None, workers=4, steps=STEPS,
              shards=SHARDS, every=1):
        args = [self.exe, self.url(), node, self.logfile(node), "--workers",
                str(workers), "--steps", str(steps), "--checkpoint-every",
                str(every)]
        if schedule:
            args += ["--schedule", str(schedule), str(shards)]
        self.spawn(node, args)

    def whole(self):
        """The sharded fire's history row: (fire_id, outcome, message)."""
        rows = mariadb(self.base, f"SELECT fire_id, outcome, error_text FROM "
                       f"{PREFIX}history WHERE sched_name = 'shards' AND "
                       "trigger_group = 'batch' AND trigger_name = 'once'")
        return rows[0] if rows else None

    def wait_whole(self, limit_s=90):
        deadline = time.time() + limit_s
        while time.time() < deadline:
            w = self.whole()
            if w:
                return w
            time.sleep(0.2)
        return None

    def victim_running(self, node):
        """Whether node runs a shard that wrote a checkpoint and has not
        ended, and at least 8 shards ended somewhere."""
        ended = sum(1 for n in NODES for ln in self.lines(n) if ln[0] == "E")
        open_runs = {}
        for ln in self.lines(node):
            if ln[0] == "S":
                open_runs[ln[2]] = 0
            elif ln[0] == "C" and ln[2] in open_runs:
                open_runs[ln[2]] = int(ln[3])
            elif ln[0] == "E":
                open_runs.pop(ln[2], None)
        return ended >= 8 and any(v >= 2 for v in open_runs.values())

    def run(self):
        drop_tables(self.base)
        self.start(NODES[0], schedule=now_ms() + LEAD_MS)
        for n in NODES[1:]:
            self.start(n)
        return self.batch()

    def wall_ms(self, nodes, shards, workers, steps):
        """One timed batch on `nodes` nodes: the sharded fire's duration
        (split to last shard), from its history row."""
        drop_tables(self.base)
        self.procs = {}
        for i, n in enumerate(NODES[:nodes]):
            self.start(n, schedule=now_ms() + LEAD_MS if i == 0 else None,
                       workers=workers, steps=steps, shards=shards,
                       every=steps // 2 or 1)
        whole = self.wait_whole(limit_s=600)
        self.stop_all()
        if not whole or whole[1] != "OK":
            raise SystemExit(f"the batch on {nodes} node(s) did not complete")
        rows = mariadb(self.base, f"SELECT duration_ms FROM {PREFIX}history "
                       f"WHERE fire_id = {whole[0]}")
        return int(rows[0][0])

    def batch(self):
        victim, killed_at = None, None
        if self.scenario == "kill":
            victim = NODES[1]
            deadline = time.time() + 60
            while time.time() < deadline and not self.victim_running(victim):
                time.sleep(0.01)
            self.procs[victim].kill()
            self.procs[victim].wait()
            killed_at = now_ms()
            log(f"killed {victim}")
        whole = self.wait_whole()
        self.stop_all()
        return self.check(whole, victim, killed_at)

    def check(self, whole, victim, killed_at):
        bad = []
        if not whole:
            return ["the sharded fire never completed"]
        parent = whole[0]
        if whole[1] != "OK":
            bad.append(f"the sharded fire ended {whole[1]}: {whole[2]}")
        rows = mariadb(self.base, "SELECT shard_index, node, outcome, "
                       f"finished_ms, fire_id FROM {PREFIX}history WHERE "
                       f"shard_parent = {parent}")
        ok = collections.defaultdict(list)  # index -> [(finished, fire id)]
        per_node = collections.Counter()
        for index, node, outcome, fin, fire in rows:
            if outcome == "OK":
                ok[int(index)].append((int(fin), fire))
                per_node[node] += 1
        for i in range(SHARDS):
            if len(ok[i]) != 1:
                bad.append(f"shard {i} completed {len(ok[i])} time(s)")
        starts = collections.defaultdict(list)  # index -> (start, node, ln)
        for n in NODES:
            for ln in self.lines(n):
                if ln[0] == "S" and ln[3] == parent:
                    starts[int(ln[1])].append((int(ln[4]), n, ln))
        # A run of a completed shard that started after its completion (the
        # completing run itself excepted: history times are the database's
        # clock, the logs' the node's, a few ms apart).
        for i, runs in starts.items():
            if len(ok[i]) == 1:
                fin, fire = ok[i][0]
                late = [r for r in runs if r[0] > fin and r[2][2] != fire]
                if late:
                    bad.append(f"shard {i} ran again after it completed: "
                               f"{late}")
        log(f"shards per node: {dict(per_node)}")
        if victim is None:
            bad += self.check_chimectl(parent)
            for n in NODES:
                if not 8 <= per_node[n] <= 12:
                    bad.append(f"node {n} ran {per_node[n]} shards (8-12)")
            for i, runs in starts.items():
                if len(runs) != 1:
                    bad.append(f"shard {i} started {len(runs)} times")
            return bad
        # The victim's unfinished shards: run again by a survivor, from their
        # last checkpoint.
        last_cp, ended = {}, set()
        for ln in self.lines(victim):
            if ln[0] == "S":
                last_cp[(int(ln[1]), ln[2])] = 0
            elif ln[0] == "C":
                last_cp[(int(ln[1]), ln[2])] = int(ln[3])
            elif ln[0] == "E":
                ended.add((int(ln[1]), ln[2]))
        unfinished = {k: v for k, v in last_cp.items() if k not in ended}
        if not unfinished:
            bad.append(f"{victim} had no shard running when it was killed")
        resumed = 0
        for (index, fire), cp in unfinished.items():
            again = [r for r in starts[index] if r[1] != victim and
                     r[0] >= killed_at - 1000]
            if not again:
                bad.append(f"shard {index} (fire {fire}) of {victim} never "
                           "ran again")
                continue
            run = again[0][2]
            if run[6] != "1":
                bad.append(f"shard {index} ran again but not as recovered")
            if int(run[5]) < cp:
                bad.append(f"shard {index} resumed from {run[5]}, its last "
                           f"checkpoint was {cp}")
            resumed += int(run[5]) > 0
        if unfinished and resumed == 0:
            bad.append("no recovered shard resumed from a checkpoint")
        log(f"{len(unfinished)} shard(s) of {victim} recovered, {resumed} "
            "resumed from a checkpoint")
        return bad


    def chimectl(self, *args):
        env = dict(os.environ, CHIME_URL=self.url(),
                   CHIME_SCHEDULER="shards")
        p = subprocess.run([os.environ["CHIMECTL"], "--json"] + list(args),
                           capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return None, f"chimectl {' '.join(args)}: {p.stderr.strip()}"
        return json.loads(p.stdout), None

    def check_chimectl(self, parent):
        bad = []
        rows, err = self.chimectl("shards", parent)
        if err:
            return [err]
        done = [r for r in rows if r["state"] == "done" and
                r["outcome"] == "OK"]
        if len(done) != SHARDS or len(rows) != SHARDS:
            bad.append(f"chimectl shards: {len(rows)} rows, {len(done)} done "
                       f"OK (want {SHARDS})")
        why, err = self.chimectl("explain", "batch.gpu")
        if err:
            return bad + [err]
        if why.get("reason") != "no_tag" or "tag gpu" not in why["message"]:
            bad.append(f"chimectl explain batch.gpu: {why}")
        return bad


def bench(args):
    shards, workers, steps = (list(map(int, args)) + [60, 2, 10][len(args):])
    b = Batch("bench")
    try:
        one = b.wall_ms(1, shards, workers, steps)
        three = b.wall_ms(3, shards, workers, steps)
    finally:
        b.stop_all()
    print(f"shards={shards} shard_ms={steps * 20} workers_per_node={workers} "
          f"wall_ms_1_node={one} wall_ms_3_nodes={three} "
          f"ratio={three / one:.2f}", flush=True)
    return 0


def main():
    scenario = sys.argv[1] if len(sys.argv) > 1 else "spread"
    if scenario == "bench":
        return bench(sys.argv[2:])
    if scenario not in ("spread", "kill"):
        raise SystemExit(__doc__)
    b = Batch(scenario)
    t0 = time.time()
    try:
        bad = b.run()
    finally:
        b.stop_all()
    for line in bad:
        log("FAIL " + line)
    log(f"{scenario}: {'FAIL' if bad else 'ok'} in {time.time() - t0:.1f} s "
        f"(logs in {b.dir})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
