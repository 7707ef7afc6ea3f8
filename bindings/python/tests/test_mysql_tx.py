"""test_mysql_tx: transactional completion from Python (ctx.transaction(),
include/chime-mysql.h) on the MariaDB store (meson suite 'mysql').

Uses CHIME_TEST_MYSQL_URL with prefix chime_pytx_ and the job's own table
py_tx_effects, read and set up with the mariadb client (the URL's
credentials).  A commit writes the job's row and the fire's completion
together; an exception in the block rolls back (no row; the fire completes
as failed); a fire taken over while the job works (its session ended and
its fired row given to another node, as a recovery does) fails at commit
with NotOwner and writes nothing; the memory store raises Unsupported.
ctx.complete_with() gives statements to the completion: written with it, in
order; a refused one fails the run and writes none.
"""

import os
import subprocess
import threading
import unittest
import urllib.parse

import chime

PREFIX = "chime_pytx_"


def url(extra=""):
    base = os.environ.get("CHIME_TEST_MYSQL_URL")
    if not base:
        return None
    sep = "&" if "?" in base else "?"
    return base + sep + "auto_create=1&clear=1&prefix=" + PREFIX + extra


def sql(query):
    """Runs query with the mariadb client; its output rows (tab-split)."""
    u = urllib.parse.urlsplit(os.environ["CHIME_TEST_MYSQL_URL"])
    args = ["mariadb", "-h", u.hostname, "-P", str(u.port or 3306),
            "-u", urllib.parse.unquote(u.username or ""),
            "-p" + urllib.parse.unquote(u.password or ""),
            "--protocol=tcp", "-N", "-B", u.path.lstrip("/"), "-e", query]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return [line.split("\t") for line in out.stdout.splitlines()]


def count(query):
    return int(sql(query)[0][0])


def effects(fid):
    """The job's rows of fire fid."""
    return count("SELECT COUNT(*) FROM py_tx_effects WHERE fire_id = %d"
                 % fid)


def runs(fid, outcome):
    """The history rows of fire fid with outcome."""
    return count("SELECT COUNT(*) FROM %shistory WHERE fire_id = %d AND "
                 "outcome = '%s'" % (PREFIX, fid, outcome))


class MysqlTransaction(unittest.TestCase):
    def setUp(self):
        if not url():
            self.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")
        sql("CREATE TABLE IF NOT EXISTS py_tx_effects (fire_id BIGINT NOT "
            "NULL, how VARCHAR(32) NOT NULL) ENGINE=InnoDB")
        sql("DELETE FROM py_tx_effects")

    def run_one(self, how, job_fn, on_ready=None):
        """Fires a job of type py-tx once with data how; job_fn(ctx, how,
        result) runs it.  Returns result (a dict) after shutdown."""
        result = {}
        done = threading.Event()
        with chime.Scheduler(url=url(), name="py-tx", instance_id="py-tx-node",
                             workers=2, idle_wait_ms=200) as s:
            @s.job("py-tx")
            def run(ctx):
                result["fire_id"] = ctx.fire_id
                try:
                    job_fn(ctx, ctx.text(), result)
                finally:
                    done.set()

            s.add_job(chime.Job("tx", "j", "py-tx", durable=True))
            s.trigger_job("tx", "j", data=how)
            if on_ready:
                on_ready(result)
            self.assertTrue(done.wait(30))
        return result

    def test_commit_writes_both(self):
        def job(ctx, how, result):
            with ctx.transaction() as tx:
                result["affected"] = tx.execute(
                    "INSERT INTO py_tx_effects (fire_id, how) VALUES (?, ?)",
                    [ctx.fire_id, how])
            result["committed"] = True

        r = self.run_one("commit", job)
        self.assertTrue(r.get("committed"))
        self.assertEqual(r["affected"], 1)
        fid = r["fire_id"]
        self.assertEqual(count("SELECT COUNT(*) FROM py_tx_effects WHERE "
                               "fire_id = %d" % fid), 1)
        self.assertEqual(count("SELECT COUNT(*) FROM %shistory WHERE "
                               "fire_id = %d AND outcome = 'OK'"
                               % (PREFIX, fid)), 1)
        self.assertEqual(count("SELECT COUNT(*) FROM %sfired WHERE "
                               "fire_id = %d" % (PREFIX, fid)), 0)

    def test_exception_rolls_back_both(self):
        def job(ctx, how, result):
            try:
                with ctx.transaction() as tx:
                    tx.execute("INSERT INTO py_tx_effects (fire_id, how) "
                               "VALUES (?, ?)", [ctx.fire_id, how])
                    raise RuntimeError("changed my mind")
            except RuntimeError:
                result["raised"] = True
                raise

        r = self.run_one("rollback", job)
        self.assertTrue(r.get("raised"))
        fid = r["fire_id"]
        self.assertEqual(count("SELECT COUNT(*) FROM py_tx_effects WHERE "
                               "fire_id = %d" % fid), 0)
        # The fire completes once, as the failed run it was.
        self.assertEqual(count("SELECT COUNT(*) FROM %shistory WHERE "
                               "fire_id = %d AND outcome = 'FAILED'"
                               % (PREFIX, fid)), 1)

    def test_fenced_commit_writes_nothing(self):
        ready = threading.Event()
        go = threading.Event()

        def job(ctx, how, result):
            try:
                with ctx.transaction() as tx:
                    tx.execute("INSERT INTO py_tx_effects (fire_id, how) "
                               "VALUES (?, ?)", [ctx.fire_id, how])
                    # The session's id: as many rows as CONNECTION_ID().
                    result["conn"] = tx.execute(
                        "SELECT seq FROM seq_1_to_100000000 WHERE seq <= "
                        "CONNECTION_ID()")
                    ready.set()
                    go.wait(30)
            except chime.NotOwner as exc:
                result["refused"] = str(exc)

        def take_over(result):
            self.assertTrue(ready.wait(30))
            # What a survivor's recovery does: end the session, take the
            # fire.
            sql("KILL CONNECTION %d" % result["conn"])
            sql("UPDATE %sfired SET node = 'thief' WHERE fire_id = %d"
                % (PREFIX, result["fire_id"]))
            # A one-shot's run may be kept in its trigger row instead.
            sql("UPDATE %striggers SET owner = 'thief' WHERE state = "
                "'EXECUTING' AND claim_fire_id = %d"
                % (PREFIX, result["fire_id"]))
            go.set()

        r = self.run_one("fenced", job, take_over)
        self.assertIn("refused", r)
        fid = r["fire_id"]
        self.assertEqual(count("SELECT COUNT(*) FROM py_tx_effects WHERE "
                               "fire_id = %d" % fid), 0)
        self.assertEqual(count("SELECT COUNT(*) FROM %shistory WHERE "
                               "fire_id = %d" % (PREFIX, fid)), 0)

    def test_bad_parameters(self):
        def job(ctx, how, result):
            with ctx.transaction() as tx:
                for bad in ([object()], ["a\x00b"]):
                    try:
                        tx.execute("SELECT ?", bad)
                    except chime.InvalidArgument:
                        result.setdefault("refused", 0)
                        result["refused"] += 1
                try:
                    tx.execute("SELECT ?, ?", ["only one"])
                except chime.InvalidArgument as exc:
                    result["count"] = str(exc)
                # That failure dooms the transaction: leaving the block
                # rolls back and says so.
            result["committed"] = True

        r = self.run_one("bad", job)
        self.assertEqual(r.get("refused"), 2)
        self.assertIn("placeholder", r.get("count", ""))
        self.assertNotIn("committed", r)

    def test_complete_with_writes_with_completion(self):
        def job(ctx, how, result):
            ctx.complete_with("INSERT INTO py_tx_effects (fire_id, how) "
                              "VALUES (?, ?)", [ctx.fire_id, how])
            ctx.complete_with("INSERT INTO py_tx_effects (fire_id, how) "
                              "VALUES (?, 'second')", [ctx.fire_id])

        fid = self.run_one("with", job)["fire_id"]
        self.assertEqual(effects(fid), 2)
        self.assertEqual(runs(fid, "OK"), 1)

    def test_complete_with_refused_fails_run(self):
        def job(ctx, how, result):
            ctx.complete_with("INSERT INTO py_tx_effects (fire_id, how) "
                              "VALUES (?, ?)", [ctx.fire_id, how])
            ctx.complete_with("INSERT INTO py_no_such_table VALUES (?)",
                              [ctx.fire_id])

        fid = self.run_one("with-bad", job)["fire_id"]
        self.assertEqual(effects(fid), 0)
        self.assertEqual(runs(fid, "FAILED"), 1)

    def test_memory_store_is_unsupported(self):
        result = {}
        done = threading.Event()
        with chime.Scheduler(url="memory:", workers=1,
                             idle_wait_ms=200) as s:
            @s.job("py-tx")
            def run(ctx):
                try:
                    with ctx.transaction():
                        pass
                except chime.Unsupported:
                    result["unsupported"] = True
                try:
                    ctx.complete_with("SELECT 1")
                except chime.Unsupported:
                    result["with"] = True
                done.set()

            s.add_job(chime.Job("tx", "j", "py-tx", durable=True))
            s.trigger_job("tx", "j")
            self.assertTrue(done.wait(30))
        self.assertTrue(result.get("unsupported"))
        self.assertTrue(result.get("with"))


if __name__ == "__main__":
    unittest.main()
