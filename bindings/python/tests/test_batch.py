"""test_batch: sharded fires, node tags and checkpoints from Python on the
memory store (meson suite 'unit'; docs/batch.md): Job(shards=...,
shard_params=..., required_tags=...), Scheduler(tags=...),
JobContext.shard, shard_param, shard_fire_id, checkpoint,
last_checkpoint, and EVENT_SHARDED_FIRE_DONE.

Every wait is on a threading.Event with a generous deadline.
"""

import threading
import unittest

import chime

WAIT_S = 20.0


class Batch(unittest.TestCase):
    def setUp(self):
        self.sched = chime.Scheduler(url="memory:", workers=4,
                                     tags=["db", "eu"])
        self.addCleanup(self.sched.close)
        self.runs = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.heard = []

        @self.sched.job("part")
        def part(ctx):
            before = ctx.last_checkpoint()
            ctx.checkpoint({"rows": 1000})
            after = ctx.last_checkpoint()
            with self.lock:
                self.runs.append((ctx.shard, ctx.shard_param,
                                  ctx.shard_fire_id, ctx.fire_id, before,
                                  after))

        def heard(ev):
            self.heard.append(ev)
            self.done.set()

        self.sched.add_listener(heard, chime.EVENT_SHARDED_FIRE_DONE)
        self.sched.start()

    def test_sharded_fire(self):
        job = chime.Job("g", "s", "part", durable=True, shards=3,
                        shard_params={0: "Beijing", 2: "Shanghai"},
                        required_tags=["db"])
        self.sched.add_job(job)
        self.sched.trigger_job("g", "s")
        self.assertTrue(self.done.wait(WAIT_S))
        self.assertEqual(sorted(r[0] for r in self.runs),
                         [(0, 3), (1, 3), (2, 3)])
        params = {r[0][0]: r[1] for r in self.runs}
        self.assertEqual(params, {0: "Beijing", 1: None, 2: "Shanghai"})
        whole = {r[2] for r in self.runs}
        self.assertEqual(len(whole), 1)
        self.assertEqual(self.heard[0].fire_id, whole.pop())
        self.assertNotIn(self.heard[0].fire_id, {r[3] for r in self.runs})
        self.assertEqual(self.heard[0].error, 0)
        for run in self.runs:
            self.assertIsNone(run[4])
            self.assertEqual(run[5], b'{"rows":1000}')

    def test_shards_then(self):
        """Job(shards_then=...): one run of the then-job after the last
        shard, its data the sharded fire's message."""
        after = []
        then_done = threading.Event()

        @self.sched.job("after")
        def run_after(ctx):
            after.append(ctx.text())
            then_done.set()

        self.sched.add_job(chime.Job("g", "after", "after", durable=True))
        self.sched.add_job(chime.Job("g", "s", "part", durable=True,
                                     shards=2, shards_then=("g", "after")))
        self.sched.trigger_job("g", "s")
        self.assertTrue(then_done.wait(WAIT_S))
        self.assertTrue(self.done.is_set())
        self.assertEqual(after, ["2 shard(s) completed"])
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "x", "part", shards=2, shards_then=("g", ""))

    def test_bad_arguments(self):
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "x", "part", shards=-2)
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "x", "part", shards=2, shard_params="5=far")
        with self.assertRaises(chime.InvalidArgument):
            chime.Job("g", "x", "part", required_tags=["no spaces"])
        with self.assertRaises(chime.InvalidArgument):
            chime.Scheduler(url="memory:", tags=[""])
        self.assertEqual(chime.SHARDS_BROADCAST, -1)


if __name__ == "__main__":
    unittest.main()
