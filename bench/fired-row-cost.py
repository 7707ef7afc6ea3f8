#!/usr/bin/env python3
"""fired-row-cost.py: what one fire's `fired` row costs the database server.

Usage (after `./dev db-up` and one chime-bench run, which creates the
tables):  python3 bench/fired-row-cost.py [--pk-only] [ROWS_PER_BATCH [BATCHES]]

A fire inserts its `fired` row when it is claimed and deletes it when it
completes, and InnoDB purges the deleted row later (issue 32's "fewer rows
per fire").  This replays that work alone, in the batches a busy node uses,
on a scratch copy of the table (CREATE TABLE ... LIKE chime_fired: the same
columns and indexes), and reads the server's CPU time (utime + stime of the
pid in build/mariadb/mariadbd.pid) around it.  Each batch is two
transactions, as a claim's and a completion's: the INSERT, then the
completion's SELECT ... FOR UPDATE and DELETE.  The baseline runs the same
transactions with the SELECT alone (no row written), so what is left is the
rows' own cost: insert, delete and purge.  It prints the median of three
rounds, in µs of server CPU per fire.  --pk-only drops the copy's
secondary indexes first: what the row costs without them.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CNF = os.path.join(ROOT, "build", "mariadb", "my.cnf")
PIDFILE = os.path.join(ROOT, "build", "mariadb", "mariadbd.pid")
TABLE = "fired_row_cost"
BASE_ID = 10_000_000_000


def client(sql):
    """Runs sql as root over the dev server's socket; returns its stdout."""
    r = subprocess.run(
        ["mariadb", f"--defaults-file={CNF}", "--protocol=socket", "-uroot",
         "-N", "chime_test"],
        input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"fired-row-cost: mariadb: {r.stderr.strip()}")
    return r.stdout


def server_cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def purge_done():
    """True once InnoDB has purged every committed delete."""
    out = client("SHOW ENGINE INNODB STATUS\\G")
    for line in out.splitlines():
        if line.startswith("History list length"):
            return int(line.split()[-1]) < 50
    return True


def batches(rows, count, write):
    ids_of = lambda b: [BASE_ID + b * rows + k for k in range(rows)]
    out = []
    for b in range(count):
        ids = ids_of(b)
        id_list = ",".join(map(str, ids))
        if write:
            values = ",".join(
                f"({i},'bench','bench','t{i % 2000:05d}','bench','bench',"
                f"{1_700_000_000_000 + i},{1_700_000_000_000 + i},"
                f"'node-{i % 3}-0123456789abcdef','EXECUTING',0,1,0,5,0,"
                f"'bench',NULL)" for i in ids)
            out.append(
                f"BEGIN; INSERT INTO {TABLE} (fire_id, sched_name, "
                "trigger_group, trigger_name, job_group, job_name, "
                "scheduled_ms, acquired_ms, node, state, forbid, "
                "requests_recovery, recovering, priority, shard_parent, "
                f"job_type, partition_key) VALUES {values}; COMMIT;")
        else:
            out.append("BEGIN; COMMIT;")
        out.append(f"BEGIN; SELECT fire_id FROM {TABLE} WHERE fire_id IN "
                   f"({id_list}) FOR UPDATE;")
        if write:
            out.append(f"DELETE FROM {TABLE} WHERE fire_id IN ({id_list});")
        out.append("COMMIT;")
    return "\n".join(out)


def round_cpu(pid, sql):
    """Server CPU seconds for sql, its purge included."""
    before = server_cpu_s(pid)
    client(sql)
    deadline = time.monotonic() + 60
    while not purge_done() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # the purge threads' last batch
    return server_cpu_s(pid) - before


def drop_secondary_indexes():
    keys = client("SELECT DISTINCT index_name FROM information_schema."
                  "statistics WHERE table_schema = DATABASE() AND "
                  f"table_name = '{TABLE}' AND index_name <> 'PRIMARY';")
    for key in keys.split():
        client(f"ALTER TABLE {TABLE} DROP INDEX {key};")


def main():
    args = sys.argv[1:]
    pk_only = "--pk-only" in args
    args = [a for a in args if a != "--pk-only"]
    rows = int(args[0]) if len(args) > 0 else 100
    count = int(args[1]) if len(args) > 1 else 300
    with open(PIDFILE) as f:
        pid = int(f.read())
    client(f"DROP TABLE IF EXISTS {TABLE}; CREATE TABLE {TABLE} LIKE "
           "chime_fired;")
    if pk_only:
        drop_secondary_indexes()
    try:
        writes, idles = [], []
        for _ in range(3):
            writes.append(round_cpu(pid, batches(rows, count, True)))
            idles.append(round_cpu(pid, batches(rows, count, False)))
    finally:
        client(f"DROP TABLE IF EXISTS {TABLE};")
    fires = rows * count
    per_fire = sorted((w - i) * 1e6 / fires for w, i in zip(writes, idles))
    print(f"fired-row-cost rows_per_batch={rows} fires={fires} "
          f"indexes={'primary' if pk_only else 'all'} "
          f"row_us_per_fire={per_fire[1]:.1f} "
          f"(rounds {', '.join(f'{v:.1f}' for v in per_fire)})")


if __name__ == "__main__":
    main()
