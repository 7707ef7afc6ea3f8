#!/usr/bin/env python3
"""fired-row-cost.py: what one fire's `fired` row costs the database server.

Usage (after `./dev db-up` and one chime-bench run, which creates the
tables):
  python3 bench/fired-row-cost.py [--pk-only | --trigger-row]
                                  [ROWS_PER_BATCH [BATCHES]]
  python3 bench/fired-row-cost.py --check-reservation

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

--trigger-row replays the alternative instead: a fire of a trigger whose
runs cannot overlap (a one-shot or a FORBID job's) kept in its trigger row.
Such a trigger's row is written anyway when the fire is claimed and when
it completes (its next fire, its block, its removal), so the alternative
costs what those writes add: run columns (the run's id, node, state and
times) on a scratch copy of chime_triggers with an index by node (which
recovery and the interrupt poll read), set by the claim's UPDATE and
cleared by the completion's, and the batch's fire ids, reserved without
a `fired` row: one INSERT into a scratch copy of chime_fired under
`SET STATEMENT auto_increment_increment = ROWS_PER_BATCH` (the counter
then skips the batch's ids: older nodes' AUTO_INCREMENT never hands them
out), one INSERT of the range's last id (the counter a restart reads back
is the largest id written), and a DELETE of both in the same transaction
(committed, so that a replica or another Galera member applying them
moves its counter too).  Its baseline runs the same UPDATEs without the
run columns.

--check-reservation checks that reservation on a scratch copy of
chime_fired: after it, a session at the default increment gets the id
past the range, and so does one after the server restarted (`./dev
db-restart`: it restarts the dev server).
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


TRIGGERS = "trigger_row_cost"
IDS = "trigger_row_ids"


def trigger_row_batches(rows, count, write):
    """The claim's and the completion's trigger writes of count batches of
    rows fires; with write, the run columns and the ids' reservation too."""
    out = []
    for b in range(count):
        names = ",".join(f"'t{(b * rows + k) % 2000:05d}'"
                         for k in range(rows))
        where = (f"WHERE sched_name = 'bench' AND trigger_group = 'bench' "
                 f"AND trigger_name IN ({names})")
        claim = ["BEGIN;",
                 f"SELECT trigger_name FROM {TRIGGERS} {where} FOR UPDATE;"]
        if write:
            claim.append(reserve_sql(IDS, rows))
            # Literal ids, as the claim writes them (from the reservation).
            runs = (f", run_fire_id = {BASE_ID + b * rows} + CAST(SUBSTRING("
                    f"trigger_name, 2) AS SIGNED) % {rows}, run_node = CONCAT("
                    "'node-', "
                    "CAST(SUBSTRING(trigger_name, 2) AS SIGNED) % 3, "
                    "'-0123456789abcdef'), run_state = 'EXECUTING', "
                    "run_acquired_ms = next_fire_ms")
        else:
            runs = ""
        claim += [f"UPDATE {TRIGGERS} SET next_fire_ms = next_fire_ms + 1"
                  f"{runs} {where};", "COMMIT;"]
        clear = (", run_fire_id = 0, run_node = NULL, run_state = NULL, "
                 "run_acquired_ms = NULL") if write else ""
        out += claim + [
            "BEGIN;",
            f"SELECT trigger_name FROM {TRIGGERS} {where} FOR UPDATE;",
            f"UPDATE {TRIGGERS} SET prev_fire_ms = prev_fire_ms + 1{clear} "
            f"{where};", "COMMIT;"]
    return "\n".join(out)


def trigger_row_tables():
    client(f"DROP TABLE IF EXISTS {TRIGGERS}, {IDS}; "
           f"CREATE TABLE {TRIGGERS} LIKE chime_triggers; "
           f"CREATE TABLE {IDS} LIKE chime_fired; "
           f"ALTER TABLE {TRIGGERS} ADD COLUMN run_fire_id BIGINT NOT NULL "
           "DEFAULT 0, ADD COLUMN run_node VARCHAR(190) NULL, ADD COLUMN "
           "run_state VARCHAR(16) NULL, ADD COLUMN run_acquired_ms BIGINT "
           f"NULL, ADD KEY {TRIGGERS}_run (sched_name, run_node);")
    values = ",".join(
        f"('bench','bench','t{i:05d}','bench','bench','bench',0,0,0,-1,0,5,"
        f"{1_700_000_000_000 + i},0,0,0,0,'WAITING')" for i in range(2000))
    client(f"INSERT INTO {TRIGGERS} (sched_name, trigger_group, trigger_name, "
           "job_group, job_name, job_type, kind, start_set, start_ms, end_ms, "
           "misfire, priority, next_fire_ms, prev_fire_ms, times_triggered, "
           "state_start_ms, state_repeat_count, state) VALUES " + values + ";")


# A marker row of a copy of chime_fired (state 'IDS'): its columns, its
# values.
MARKER_COLS = ("sched_name, trigger_group, trigger_name, job_group, "
               "job_name, scheduled_ms, acquired_ms, node, state")
MARKER = "'', '', '', '', '', 0, 0, '', 'IDS'"


def reserve_sql(table, n):
    """Reserves n ids in table's counter: one INSERT at increment n, one of
    the range's last id, both deleted."""
    return (f"SET STATEMENT auto_increment_increment = {n} FOR "
            f"INSERT INTO {table} ({MARKER_COLS}) VALUES ({MARKER});\n"
            "SET @first = LAST_INSERT_ID();\n"
            f"INSERT INTO {table} (fire_id, {MARKER_COLS}) "
            f"VALUES (@first + {n} - 1, {MARKER});\n"
            f"DELETE FROM {table} WHERE fire_id IN "
            f"(@first, @first + {n} - 1);")


def next_id(table):
    """The id a new session's plain INSERT gets (its row then deleted)."""
    return int(client(
        f"INSERT INTO {table} ({MARKER_COLS}) VALUES ({MARKER}); "
        f"SELECT LAST_INSERT_ID(); DELETE FROM {table} WHERE state = 'IDS';"
    ).split()[-1])


def reserve(table, n):
    """Reserves n ids in a transaction of its own; returns the first."""
    return int(client(f"BEGIN;\n{reserve_sql(table, n)}\nCOMMIT;\n"
                      "SELECT @first;").split()[-1])


def check_reservation():
    n = 100
    client(f"DROP TABLE IF EXISTS {IDS}; CREATE TABLE {IDS} LIKE chime_fired;")
    try:
        before = next_id(IDS)
        first = reserve(IDS, n)
        after = next_id(IDS)
        # Again, then straight to a restart: no row past the range written.
        first2 = reserve(IDS, n)
        subprocess.run([os.path.join(ROOT, "dev"), "db-restart"], check=True,
                       capture_output=True)
        restarted = next_id(IDS)
    finally:
        client(f"DROP TABLE IF EXISTS {IDS};")
    ok = (before < first and after == first + n and
          restarted >= first2 + n)
    print(f"fired-row-cost check-reservation n={n} first={first} "
          f"next={after} first_again={first2} next_after_restart={restarted} "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


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
    if args == ["--check-reservation"]:
        return check_reservation()
    pk_only = "--pk-only" in args
    trigger_row = "--trigger-row" in args
    args = [a for a in args if a not in ("--pk-only", "--trigger-row")]
    if pk_only and trigger_row:
        sys.exit("fired-row-cost: --pk-only and --trigger-row exclude each "
                 "other")
    rows = int(args[0]) if len(args) > 0 else 100
    count = int(args[1]) if len(args) > 1 else 300
    with open(PIDFILE) as f:
        pid = int(f.read())
    if trigger_row:
        trigger_row_tables()
        replay = trigger_row_batches
    else:
        client(f"DROP TABLE IF EXISTS {TABLE}; CREATE TABLE {TABLE} LIKE "
               "chime_fired;")
        replay = batches
    if pk_only:
        drop_secondary_indexes()
    try:
        writes, idles = [], []
        for _ in range(3):
            writes.append(round_cpu(pid, replay(rows, count, True)))
            idles.append(round_cpu(pid, replay(rows, count, False)))
    finally:
        client(f"DROP TABLE IF EXISTS {TABLE}, {TRIGGERS}, {IDS};")
    fires = rows * count
    per_fire = sorted((w - i) * 1e6 / fires for w, i in zip(writes, idles))
    kind = ("trigger-row" if trigger_row else
            "fired-pk-only" if pk_only else "fired")
    print(f"fired-row-cost rows_per_batch={rows} fires={fires} "
          f"replay={kind} "
          f"row_us_per_fire={per_fire[1]:.1f} "
          f"(rounds {', '.join(f'{v:.1f}' for v in per_fire)})")


if __name__ == "__main__":
    sys.exit(main())
