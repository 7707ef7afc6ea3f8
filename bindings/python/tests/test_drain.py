"""test_drain: draining a node from Python on the memory store (meson suite
'unit'; docs/operations.md, "A maintenance window"): Scheduler.drain,
undrain and node_state.  Drained, the scheduler claims nothing more, its
running job finishes, then its state is DRAINED; undrained it claims
again.  The memory store's cluster is the scheduler itself: another id is
not found.

Every wait polls with a generous deadline, never a bare sleep to pass.
"""

import threading
import time
import unittest

import chime
from support import WAIT_S, wait_for



class Drain(unittest.TestCase):
    def setUp(self):
        self.sched = chime.Scheduler(url="memory:", workers=2,
                                     instance_id="solo",
                                     checkin_interval_ms=200)
        self.addCleanup(self.sched.close)
        self.ticks = 0
        self.release = threading.Event()
        self.long_started = threading.Event()
        self.long_done = threading.Event()

        @self.sched.job("tick")
        def tick(ctx):
            self.ticks += 1

        @self.sched.job("long")
        def long_run(ctx):
            self.long_started.set()
            self.release.wait(WAIT_S)
            self.long_done.set()

        self.sched.add_job(chime.Job("app", "long", "long", durable=True))
        self.sched.schedule(chime.Job("app", "tick", "tick"),
                            chime.Simple(100, chime.FOREVER, group="app",
                                         name="tick"))
        self.sched.start()
        self.sched.trigger_job("app", "long")
        self.assertTrue(self.long_started.wait(WAIT_S))
        self.assertTrue(wait_for(lambda: self.ticks > 0))

    def test_drain_finish_undrain(self):
        s = self.sched
        self.assertIs(s.node_state(), chime.NodeState.ACTIVE)
        self.assertFalse(s.undrain())  # not drained
        s.drain("solo")
        self.assertEqual(s.node_state("solo"), chime.NodeState.DRAINING)
        time.sleep(0.6)  # its check-in reads it; a claimed tick may run
        ticks = self.ticks
        time.sleep(0.6)
        self.assertEqual(self.ticks, ticks)  # claims nothing
        self.assertEqual(s.node_state(), chime.NodeState.DRAINING)
        self.release.set()  # its running job finishes
        self.assertTrue(self.long_done.wait(WAIT_S))
        self.assertTrue(wait_for(
            lambda: s.node_state() == chime.NodeState.DRAINED))
        self.assertTrue(s.undrain())
        self.assertIs(s.node_state(), chime.NodeState.ACTIVE)
        self.assertTrue(wait_for(lambda: self.ticks > ticks))

    def test_bad_input(self):
        with self.assertRaises(chime.NotFound):
            self.sched.drain("no-such-node")
        with self.assertRaises(chime.InvalidArgument):
            self.sched.drain(timeout_ms=-1)
        self.release.set()


if __name__ == "__main__":
    unittest.main()
