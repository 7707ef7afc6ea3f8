"""test_queue_mysql: test_queue's tests on the MariaDB store (meson suite
'mysql'; CHIME_TEST_MYSQL_URL, tables prefixed chime_pyq_), and a chain:
a run enqueued inside a job's transaction (Transaction.enqueue) is stored
with its commit, once, and not at all when it rolls back."""

import threading
import time
import unittest

import chime
from support import mysql_url

from test_queue import QueueTests


def url():
    return mysql_url("auto_create=1&clear=1&prefix=chime_pyq_")


class MysqlQueueTests(QueueTests):
    URL = url()

    def setUp(self):
        if not self.URL:
            self.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")


    def test_chain_in_transaction(self):
        seen = []
        cond = threading.Condition()
        with chime.Scheduler(url=self.URL, name="py-chain",
                             instance_id="py-chain-node", workers=2,
                             idle_wait_ms=100) as s:
            @s.job("py-first")
            def first(ctx):
                with ctx.transaction() as tx:
                    made = tx.enqueue("q", "second", data="then-" + ctx.text(),
                                      unique_key="after-" + ctx.text())
                    assert not made.existed
                    again = tx.enqueue("q", "second", data="dup",
                                       unique_key="after-" + ctx.text())
                    assert again.existed and again.name == made.name
                    if ctx.text() == "undo":
                        raise RuntimeError("rolled back")

            @s.job("py-second")
            def second(ctx):
                with cond:
                    seen.append(ctx.text())
                    cond.notify_all()

            s.add_job(chime.Job("q", "first", "py-first", durable=True))
            s.add_job(chime.Job("q", "second", "py-second", durable=True))
            s.enqueue("q", "first", data="a")
            s.enqueue("q", "first", data="undo")
            deadline = time.monotonic() + 30
            with cond:
                while not seen and time.monotonic() < deadline:
                    cond.wait(0.2)
            time.sleep(1.0)  # the rolled-back chain never comes
            self.assertEqual(seen, ["then-a"])


del QueueTests  # run by test_queue

if __name__ == "__main__":
    unittest.main()
