"""test_packaging: what issue 20 asks of the Python package as users see it:
IntEnums that stay ints, exceptions that do not shadow built-ins, the
library's log through the logging module's "chime" logger, type hints."""

import builtins
import enum
import logging
import os
import threading
import unittest

import chime


class TestEnums(unittest.TestCase):

    def test_enums_are_int_enums(self):
        for cls in (chime.TriggerKind, chime.TriggerState, chime.Misfire,
                    chime.Unit, chime.SchedulerState, chime.EventKind,
                    chime.LogLevel):
            self.assertTrue(issubclass(cls, enum.IntEnum), cls)

    def test_values_match_the_c_header(self):
        self.assertEqual(chime.TriggerKind.SIMPLE, 1)
        self.assertEqual(chime.TriggerKind.DAILY_TIME_INTERVAL, 4)
        self.assertEqual(chime.SchedulerState.SHUTDOWN, 2)
        self.assertEqual(chime.EventKind.SCHEDULER_ERROR, 1 << 11)
        self.assertEqual(chime.Misfire.RESCHEDULE_NEXT_EXISTING_COUNT, 7)
        self.assertEqual(chime.LogLevel.DEBUG, 3)

    def test_old_int_constants_still_work(self):
        self.assertIs(chime.STARTED, chime.SchedulerState.STARTED)
        self.assertEqual(chime.STARTED, 1)
        self.assertIs(chime.EVENT_JOB_ADDED, chime.EventKind.JOB_ADDED)
        self.assertEqual(chime.EVENT_ALL, (1 << len(chime.EventKind)) - 1)
        self.assertEqual(chime.EVENT_JOB_ADDED | chime.EVENT_JOB_REMOVED,
                         0x600)
        self.assertEqual(chime.LOG_WARN, chime.LogLevel.WARN)

    def test_trigger_kinds(self):
        self.assertEqual(chime.Cron("* * * * * ?").kind,
                         chime.TriggerKind.CRON)
        self.assertEqual(chime.Simple(1000).kind, chime.TriggerKind.SIMPLE)

    def test_state_and_event_kind_and_trigger_kind_are_enums(self):
        seen = []
        with chime.Scheduler(url="memory:", log=False) as s:
            self.assertIsInstance(s.state, chime.SchedulerState)
            s.add_listener(lambda ev: seen.append(ev.kind),
                           chime.EVENT_JOB_ADDED)
            s.register("noop", lambda ctx: None)
            s.schedule(chime.Job("g", "j", "noop"),
                       chime.Cron("0 0 0 1 1 ?", name="t", group="g"))
            info = s.trigger_info("g", "t")
            self.assertIs(info["kind"], chime.TriggerKind.CRON)
            self.assertIsInstance(info["state"], chime.TriggerState)
        self.assertEqual(seen, [chime.EventKind.JOB_ADDED])
        self.assertIsInstance(seen[0], chime.EventKind)


class TestExceptions(unittest.TestCase):

    def test_no_exception_shadows_a_builtin(self):
        for name in dir(chime):
            obj = getattr(chime, name)
            if isinstance(obj, type) and issubclass(obj, BaseException):
                self.assertFalse(hasattr(builtins, name),
                                 "chime.%s shadows a built-in" % name)

    def test_store_connection_error(self):
        self.assertTrue(issubclass(chime.StoreConnectionError, chime.Error))
        self.assertTrue(issubclass(chime.StoreConnectionError,
                                   builtins.ConnectionError))
        self.assertTrue(issubclass(chime.AuthError,
                                   chime.StoreConnectionError))
        self.assertIs(chime.error_for(-11).__class__,
                      chime.StoreConnectionError)
        self.assertFalse(hasattr(chime, "ConnectionError"))

    def test_invalid_argument_is_a_value_error(self):
        with self.assertRaises(ValueError):
            chime.Simple(-5)
        with self.assertRaises(chime.InvalidArgument):
            chime.Simple(-5)

    def test_a_refused_connection_is_caught_as_the_builtin(self):
        # Port 1 on loopback: nothing listens there.
        try:
            chime.Scheduler(url="mysql://u:p@127.0.0.1:1/db", log=False)
        except ConnectionError as exc:
            self.assertIsInstance(exc, chime.StoreConnectionError)
            self.assertEqual(exc.code, -11)
        else:
            self.fail("connecting to port 1 succeeded")


class TestLogging(unittest.TestCase):

    def test_library_log_goes_to_the_chime_logger(self):
        with self.assertLogs("chime", level="INFO") as cm:
            with chime.Scheduler(url="memory:"):
                pass
        self.assertTrue(any("started" in line for line in cm.output),
                        cm.output)
        self.assertTrue(all(r.name == "chime" for r in cm.records))

    def test_debug_when_the_logger_asks_for_it(self):
        # A handler that wakes the test on the first DEBUG record; the loop
        # logs one ("nothing due ...: sleeping") whenever it goes idle.
        got = threading.Event()
        records = []

        class Handler(logging.Handler):
            def emit(self, record):
                records.append(record)
                if record.levelno == logging.DEBUG:
                    got.set()

        logger = logging.getLogger("chime")
        handler = Handler(level=logging.DEBUG)
        old_level = logger.level
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        try:
            with chime.Scheduler(url="memory:") as s:
                s.register("x", lambda ctx: None)
                s.schedule(chime.Job("g", "x", "x"),
                           chime.Cron("0 0 0 1 1 ? 2099"))
                self.assertTrue(got.wait(30), [r.getMessage() for r in records])
        finally:
            logger.removeHandler(handler)
            logger.setLevel(old_level)
        self.assertTrue(all(r.name == "chime" for r in records))

    def test_a_log_callable_replaces_the_logger(self):
        got = []
        with chime.Scheduler(url="memory:",
                             log=lambda level, msg: got.append((level, msg)),
                             log_level=chime.LogLevel.INFO):
            pass
        self.assertTrue(got)
        self.assertIsInstance(got[0][0], chime.LogLevel)


class TestTyping(unittest.TestCase):

    def test_py_typed_marker(self):
        self.assertTrue(os.path.isfile(
            os.path.join(os.path.dirname(chime.__file__), "py.typed")))

    def test_public_api_is_annotated(self):
        import inspect
        for fn in (chime.Scheduler.__init__, chime.Scheduler.register,
                   chime.Scheduler.add_listener, chime.Scheduler.trigger_info,
                   chime.cron_next):
            hints = inspect.signature(fn)
            annotated = [p for p in hints.parameters.values()
                         if p.annotation is not inspect.Parameter.empty]
            self.assertTrue(annotated or hints.return_annotation
                            is not inspect.Signature.empty, fn)

    def test_every_annotation_resolves(self):
        import inspect
        import typing
        from chime import context, cron, scheduler, triggers
        for mod in (scheduler, context, cron, triggers):
            for obj in vars(mod).values():
                fns = [obj] if inspect.isfunction(obj) else []
                if inspect.isclass(obj) and obj.__module__ == mod.__name__:
                    fns = [v.fget if isinstance(v, property) else v
                           for v in vars(obj).values()]
                for fn in fns:
                    if inspect.isfunction(fn):
                        typing.get_type_hints(fn)  # raises on a bad name


if __name__ == "__main__":
    unittest.main()
