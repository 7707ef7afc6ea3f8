"""scheduler: Scheduler, the Python face of chime_scheduler.

Job functions run on the library's worker threads.  ctypes takes the GIL
for each callback, and every library call releases it, so shutdown(wait=True)
from the main thread lets running Python jobs finish.  A job that raises is
recorded as a failed run (chime_ctx_fail with the exception's text); the
exception never reaches the worker.  The scheduler keeps every callback
object alive until it is freed.  Live schedulers are closed at interpreter
exit (atexit), before Python stops being able to run callbacks.
"""

from __future__ import annotations

import atexit
import ctypes
import threading
import traceback
import weakref
from typing import (Any, Callable, Dict, Iterable, List, Optional, Tuple,
                    Union)

from . import _lib
from .context import JobContext
from .enums import (EVENT_ALL, EventKind, LogLevel, NodeState, Outcome,
                    SchedulerState, TriggerKind)
from .log import c_level_for, log_to_logging, record_to_logging
from .errors import (InvalidArgument, StateError, TimedOut, check,
                     check_buf, check_sched, error_for)
from . import history as _history
from . import queue as _queue
from .history import HistoryRecord
from .lease import Lease, LeaseSection
from .lease import acquire as acquire_lease
from .triggers import Job, TriggerState, to_bytes, to_ms

_ENOTFOUND = -3  # CHIME_ENOTFOUND
_WAIT_FOREVER = -1  # CHIME_SHUTDOWN_WAIT_FOREVER
_NO_WAIT = -2  # CHIME_SHUTDOWN_NO_WAIT
_MAX_NAME_LEN = 190  # CHIME_MAX_NAME_LEN

_L = _lib.lib
_live = weakref.WeakSet()
# The callbacks of schedulers whose shutdown deadline passed with jobs still
# running: kept for the life of the process (those jobs may return late).
_abandoned_callbacks: List[list] = []
# Set while this thread runs a callback from the library (job, listener,
# log): such a thread must not wait for or free its own scheduler.
_in_worker = threading.local()

STANDBY, STARTED, SHUTDOWN = (SchedulerState.STANDBY, SchedulerState.STARTED,
                               SchedulerState.SHUTDOWN)
_MATCH = {"equals": 0, "starts_with": 1, "ends_with": 2, "contains": 3,
          "any": 4}
LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG = (LogLevel.ERROR, LogLevel.WARN,
                                            LogLevel.INFO, LogLevel.DEBUG)

# chime_event_kind (CHIME_EVENT_MAP in chime.h), as EventKind members.
EVENT_TRIGGER_FIRED = EventKind.TRIGGER_FIRED
EVENT_JOB_TO_BE_EXECUTED = EventKind.JOB_TO_BE_EXECUTED
EVENT_JOB_VETOED = EventKind.JOB_VETOED
EVENT_JOB_WAS_EXECUTED = EventKind.JOB_WAS_EXECUTED
EVENT_TRIGGER_COMPLETED = EventKind.TRIGGER_COMPLETED
EVENT_TRIGGER_MISFIRED = EventKind.TRIGGER_MISFIRED
EVENT_SCHEDULER_STARTED = EventKind.SCHEDULER_STARTED
EVENT_SCHEDULER_STANDBY = EventKind.SCHEDULER_STANDBY
EVENT_SCHEDULER_SHUTDOWN = EventKind.SCHEDULER_SHUTDOWN
EVENT_JOB_ADDED = EventKind.JOB_ADDED
EVENT_JOB_REMOVED = EventKind.JOB_REMOVED
EVENT_SCHEDULER_ERROR = EventKind.SCHEDULER_ERROR
EVENT_JOB_CANCEL_IGNORED = EventKind.JOB_CANCEL_IGNORED
EVENT_JOB_MISSED = EventKind.JOB_MISSED
EVENT_JOB_RETRIES_EXHAUSTED = EventKind.JOB_RETRIES_EXHAUSTED
EVENT_SHARDED_FIRE_DONE = EventKind.SHARDED_FIRE_DONE


class Event:
    """One listener event, copied out of the C event (ctx excepted: it is
    valid only during the listener call)."""

    def __init__(self, ptr, ctx):
        self.kind = _event_kind(_L.chime_event_get_kind(ptr))
        self.error = _L.chime_event_get_error(ptr)
        self.message = _lib.dec(_L.chime_event_get_message(ptr))
        group = _lib.dec(_L.chime_event_get_job_group(ptr))
        self.job_key = (group, _lib.dec(_L.chime_event_get_job_name(ptr))) \
            if group is not None else None
        self.ctx = ctx
        tgroup = _lib.dec(_L.chime_event_get_trigger_group(ptr))
        self.trigger_key = (tgroup,
                            _lib.dec(_L.chime_event_get_trigger_name(ptr))) \
            if tgroup is not None else None
        self.fire_id = _L.chime_event_get_fire_id(ptr)
        self.node = _lib.dec(_L.chime_event_get_node(ptr))
        self.lateness_ms = _L.chime_event_get_lateness_ms(ptr)
        policy = _L.chime_event_get_misfire_policy(ptr)
        self.misfire_policy = policy if policy >= 0 else None
        # Keys of the run, copied so they outlive the call.
        if self.trigger_key is None and ctx is not None:
            self.trigger_key = ctx.trigger_key
        if ctx is not None and self.job_key is None:
            self.job_key = ctx.job_key

    def __repr__(self):
        return "Event(kind=%s, job=%r, error=%d, message=%r)" % (
            getattr(self.kind, "name", self.kind), self.job_key, self.error,
            self.message)


def _event_kind(value):
    try:
        return EventKind(value)
    except ValueError:  # a kind newer than this binding: the bare int
        return value


def _close_all():
    for sched in list(_live):
        sched.close()


atexit.register(_close_all)


def _match(match):
    if isinstance(match, int):
        return match
    try:
        return _MATCH[match]
    except KeyError:
        raise InvalidArgument(-1, "match must be one of %s"
                              % ", ".join(_MATCH))


def _job_key(job, name=None):
    """(group, name) from a Job, a (group, name) pair, or group and name."""
    if isinstance(job, Job):
        return job.key
    if name is not None:
        return (job, name)
    group, name = job
    return (group, name)


class Scheduler:
    """A chime scheduler.  As a context manager it starts on enter and, on
    exit, shuts down (waiting for running jobs) and frees itself.

    url: "memory:" or "mysql://USER:PASSWORD@HOST:PORT/DB[?options]".
    log: a callable(level, message) called from any thread; by default the
    library's messages go to the logging module's logger "chime" (see
    chime.log); False: no log at all.
    log_level: the most verbose LogLevel passed on (default: what the
    "chime" logger lets through, or WARN with a log callable).
    """

    def __init__(self, url: str = "memory:", workers: int = 32,
                 name: Optional[str] = None,
                 instance_id: Optional[str] = None,
                 idle_wait_ms: Optional[int] = None,
                 batch_size: Optional[int] = None,
                 local_queue: Optional[int] = None,
                 batch_window_ms: Optional[int] = None,
                 claim_ahead_ms: Optional[int] = None,
                 misfire_threshold_ms: Optional[int] = None,
                 checkin_interval_ms: Optional[int] = None,
                 cancel_grace_ms: Optional[int] = None,
                 tags: Iterable[str] = (),
                 log: Union[Callable[[int, str], Any], bool, None] = None,
                 log_level: Optional[int] = None) -> None:
        self._ptr = None
        self._callbacks = []  # Every CFUNCTYPE object handed to C.
        self._functions = {}
        self._leases = weakref.WeakSet()  # Lease objects not closed yet
        self._lock = threading.Lock()
        cfg = ctypes.c_void_p()
        check(_L.chime_config_new(ctypes.byref(cfg)))
        try:
            check(_L.chime_config_set_store_url(cfg, _lib.enc(url)))
            check(_L.chime_config_set_workers(cfg, int(workers)))
            if name is not None:
                check(_L.chime_config_set_scheduler_name(cfg, _lib.enc(name)))
            if instance_id is not None:
                check(_L.chime_config_set_instance_id(cfg,
                                                      _lib.enc(instance_id)))
            for value, setter in (
                    (idle_wait_ms, _L.chime_config_set_idle_wait_ms),
                    (batch_size, _L.chime_config_set_batch_size),
                    (local_queue, _L.chime_config_set_local_queue),
                    (batch_window_ms, _L.chime_config_set_batch_window_ms),
                    (claim_ahead_ms, _L.chime_config_set_claim_ahead_ms),
                    (misfire_threshold_ms,
                     _L.chime_config_set_misfire_threshold_ms),
                    (checkin_interval_ms,
                     _L.chime_config_set_checkin_interval_ms),
                    (cancel_grace_ms,
                     _L.chime_config_set_cancel_grace_ms)):
                if value is not None:
                    check(setter(cfg, int(value)))
            for tag in tags:
                check(_L.chime_config_add_tag(cfg, _lib.enc(tag)),
                      "node tag %r: 1 to 64 of [A-Za-z0-9_.:-], at most 16"
                      % (tag,))
            structured = log is None
            if log is None:
                log = log_to_logging
                if log_level is None:
                    log_level = c_level_for()
            if log_level is None:
                log_level = LOG_WARN
            if structured:
                rcb = _lib.LOG_RECORD_FN(self._record_trampoline())
                self._callbacks.append(rcb)
                check(_L.chime_config_set_log_record(cfg, rcb, None,
                                                     int(log_level)))
            elif log is not False:
                cb = _lib.LOG_FN(self._log_trampoline(log))
                self._callbacks.append(cb)
                check(_L.chime_config_set_log(cfg, cb, None, int(log_level)))
            errbuf = ctypes.create_string_buffer(1024)
            ptr = ctypes.c_void_p()
            check_buf(_L.chime_scheduler_new(cfg, ctypes.byref(ptr), errbuf,
                                             len(errbuf)), errbuf)
            self._ptr = ptr.value
        finally:
            _L.chime_config_free(cfg)
        _live.add(self)

    @staticmethod
    def _record_trampoline():
        def trampoline(user_data, record_ptr):
            outer = getattr(_in_worker, "active", False)
            _in_worker.active = True
            try:
                record_to_logging(record_ptr)
            except BaseException:  # A logger must never break a C thread.
                pass
            finally:
                _in_worker.active = outer
        return trampoline

    @staticmethod
    def _log_trampoline(log):
        def trampoline(user_data, level, message):
            outer = getattr(_in_worker, "active", False)
            _in_worker.active = True
            try:
                log(LogLevel(level) if 0 <= level <= 3 else level,
                    _lib.dec(message))
            except BaseException:  # A logger must never break a C thread.
                pass
            finally:
                _in_worker.active = outer
        return trampoline

    # ---------------------------------------------------------- lifecycle

    def _p(self):
        if not self._ptr:
            raise error_for(-19, "the scheduler is closed")
        return self._ptr

    def _check(self, code):
        """Raises for a failed call on this scheduler, with its detail."""
        return check_sched(code, self._ptr)

    def start(self) -> "Scheduler":
        self._check(_L.chime_scheduler_start(self._p()))
        return self

    def standby(self) -> None:
        self._check(_L.chime_scheduler_standby(self._p()))

    def shutdown(self, wait: bool = True,
                 deadline_ms: Optional[int] = None) -> None:
        """Stops claiming for good.  wait: return after running jobs
        return (the node keeps checking in until they did, so no other
        node runs their fires again); wait=False returns at once.

        With deadline_ms, tells running jobs to stop (ctx.cancelled) and
        waits at most deadline_ms for them while the node keeps checking
        in; a job that returns because it was told is cut short (run again
        on another node when it requests recovery, else recorded
        CANCELLED).  Raises TimedOut when they did not return in time: the
        node then handed their fires to the cluster, and close() returns
        without waiting for them (their threads end with the process)."""
        in_worker = getattr(_in_worker, "active", False)
        if deadline_ms is not None:
            if in_worker:
                raise StateError(-9, "a job cannot wait for its own scheduler")
            try:
                self._check(_L.chime_scheduler_shutdown(self._p(),
                                                        int(deadline_ms)))
            except TimedOut:
                # Jobs still running use the callbacks after close(): they
                # must outlive this object (chime_scheduler_free's contract).
                _abandoned_callbacks.append(self._callbacks)
                raise
            return
        if self._ptr:
            if wait and in_worker:
                raise StateError(-9, "a job cannot shut down its "
                                      "scheduler with wait=True")
            self._check(_L.chime_scheduler_shutdown(
                self._ptr, _WAIT_FOREVER if wait else _NO_WAIT))

    def close(self) -> None:
        """Shuts down (waiting for running jobs) and frees the scheduler."""
        with self._lock:
            ptr, self._ptr = self._ptr, None
        if ptr:
            if getattr(_in_worker, "active", False):
                # A worker cannot free its own scheduler: leak instead.
                _L.chime_scheduler_shutdown(ptr, _NO_WAIT)
                return
            _L.chime_scheduler_shutdown(ptr, _WAIT_FOREVER)
            for lease in list(self._leases):  # freed before the scheduler
                lease.close()
            _L.chime_scheduler_free(ptr)
        _live.discard(self)

    def __enter__(self):
        if self.state == STANDBY:
            self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def closed(self) -> bool:
        return not self._ptr

    @property
    def state(self) -> SchedulerState:
        """STANDBY (0), STARTED (1) or SHUTDOWN (2; also once closed)."""
        if not self._ptr:
            return SHUTDOWN
        return SchedulerState(_L.chime_scheduler_get_state(self._ptr))

    @property
    def name(self) -> str:
        return _lib.dec(_L.chime_scheduler_get_name(self._p()))

    @property
    def instance_id(self) -> str:
        return _lib.dec(_L.chime_scheduler_get_instance_id(self._p()))

    @property
    def running_jobs(self) -> int:
        return _L.chime_scheduler_get_running_jobs(self._p())

    # --------------------------------------------------------- job types

    def register(self, type_name: str,
                 fn: Callable[[JobContext], Any]) -> Callable[[JobContext], Any]:
        """Runs fn(ctx) for every fire of jobs of type type_name on this node;
        registering a type again replaces its function.  Returns fn."""
        if not callable(fn):
            raise InvalidArgument(-1, "a job function must be callable")
        me = weakref.ref(self)

        def trampoline(ctx_ptr, user_data):
            outer = getattr(_in_worker, "active", False)
            _in_worker.active = True
            ctx = JobContext(ctx_ptr, me())
            try:
                fn(ctx)
            except BaseException as exc:  # Recorded, never propagated.
                text = "".join(traceback.format_exception_only(
                    type(exc), exc)).strip()
                try:
                    _L.chime_ctx_fail(ctx_ptr, _lib.enc(text))
                except BaseException:
                    pass
            finally:
                ctx._ptr = None
                _in_worker.active = outer

        cb = _lib.JOB_FN(trampoline)
        with self._lock:
            self._callbacks.append(cb)
        self._check(_L.chime_scheduler_register_job_type(
            self._p(), _lib.enc(type_name), cb, None, None))
        self._functions[type_name] = fn
        return fn

    def job(self, type_name: str) -> Callable[[Callable], Callable]:
        """Decorator: @sched.job("type") registers the function."""
        def decorate(fn):
            return self.register(type_name, fn)
        return decorate

    def add_listener(self, fn: Callable[["Event"], Any],
                     events: int = EVENT_ALL) -> None:
        """Calls fn(event) for the events in the mask (an OR of EVENT_*),
        on the thread the event names; an Event has .kind, .error,
        .message, .job_key and .ctx (a JobContext, or None).  A true return
        from TRIGGER_FIRED vetoes the run.  May be called at any time,
        before or after start(): the listener hears the events that happen
        after it was added.  An exception in fn is swallowed (and vetoes
        nothing)."""
        me = weakref.ref(self)

        def trampoline(event_ptr, user_data):
            outer = getattr(_in_worker, "active", False)
            _in_worker.active = True
            ctx_ptr = _L.chime_event_get_ctx(event_ptr)
            ctx = JobContext(ctx_ptr, me()) if ctx_ptr else None
            try:
                return bool(fn(Event(event_ptr, ctx)))
            except BaseException:
                return False
            finally:
                if ctx is not None:
                    ctx._ptr = None
                _in_worker.active = outer

        cb = _lib.LISTENER_FN(trampoline)
        with self._lock:
            self._callbacks.append(cb)
        self._check(_L.chime_scheduler_add_listener(self._p(), int(events),
                                                    cb, None, None))

    # ----------------------------------------------------- observability

    def metrics_text(self) -> str:
        """This node's metrics in the Prometheus text exposition format
        (chime_metrics_to_prometheus)."""
        snap = ctypes.c_void_p()
        self._check(_L.chime_scheduler_metrics(self._p(), ctypes.byref(snap)))
        try:
            text = ctypes.c_void_p()
            self._check(_L.chime_metrics_to_prometheus(snap,
                                                       ctypes.byref(text)))
            try:
                return ctypes.string_at(text.value).decode("utf-8")
            finally:
                _L.chime_free(text)
        finally:
            _L.chime_metrics_free(snap)

    def runs(self, group: Any, name: Optional[str] = None,
             outcome: int = Outcome.OK) -> int:
        """How many runs of job (group, name) ended with outcome, counted by
        this node (chime_metrics_get_runs)."""
        group, name = _job_key(group, name)
        snap = ctypes.c_void_p()
        self._check(_L.chime_scheduler_metrics(self._p(), ctypes.byref(snap)))
        try:
            return _L.chime_metrics_get_runs(snap, _lib.enc(group),
                                             _lib.enc(name), int(outcome))
        finally:
            _L.chime_metrics_free(snap)

    def history(self, job: Any = None, trigger: Any = None,
                outcome: Any = None, since: Any = None, until: Any = None,
                before_id: int = 0, limit: int = 100) -> List[HistoryRecord]:
        """One page of the cluster's recorded runs, newest first
        (chime_scheduler_history): the MySQL store's history table, the
        memory store's last 1,000 runs.  job, trigger: "GROUP.NAME", a
        (group, name) pair or a Job; outcome: a chime.Outcome or its name;
        since, until: started in [since, until) (epoch ms or datetime);
        before_id: 0 for the newest page, then the last record's id;
        limit: 1 to 1000.  Raises InvalidArgument for bad filters,
        chime.Error for the store's errors."""
        return _history.read(self._p(), self._check, job, trigger, outcome,
                             since, until, before_id, limit)

    # -------------------------------------------------------------- jobs

    def add_job(self, job: Job, replace: bool = False) -> None:
        owned = job._build()
        try:
            self._check(_L.chime_scheduler_add_job(self._p(), owned.ptr,
                                                   bool(replace)))
        finally:
            owned.free()

    def remove_job(self, group: Any, name: Optional[str] = None) -> None:
        group, name = _job_key(group, name)
        self._check(_L.chime_scheduler_remove_job(
            self._p(), _lib.enc(group), _lib.enc(name)))

    def has_job(self, group: Any, name: Optional[str] = None) -> bool:
        group, name = _job_key(group, name)
        ptr = ctypes.c_void_p()
        code = _L.chime_scheduler_get_job(self._p(), _lib.enc(group),
                                          _lib.enc(name), ctypes.byref(ptr))
        if code == -3:
            return False
        self._check(code)
        _L.chime_job_free(ptr)
        return True

    def job_data(self, group: Any, name: Optional[str] = None) -> bytes:
        """The stored job's data as bytes (NotFound when absent)."""
        group, name = _job_key(group, name)
        ptr = ctypes.c_void_p()
        self._check(_L.chime_scheduler_get_job(
            self._p(), _lib.enc(group), _lib.enc(name), ctypes.byref(ptr)))
        try:
            n = ctypes.c_size_t()
            data = _L.chime_job_get_data(ptr, ctypes.byref(n))
            return _lib.read_bytes(data, n.value)
        finally:
            _L.chime_job_free(ptr)

    def trigger_job(self, group: Any, name: Optional[str] = None,
                    data: Any = None,
                    request_key: Optional[str] = None) -> bool:
        """Fires the job once now; data (bytes, str, JSON value) overrides
        the job's data for that run.  Without request_key not idempotent:
        each call stores a one-off trigger under a random name, so retrying
        a call whose effect is unknown (a lost connection) may run the job
        twice.  With request_key (chime_scheduler_run_job's), a retried
        call whose run waits or runs stores nothing.  Returns True when a
        run was stored, False when the request key's run existed."""
        group, name = _job_key(group, name)
        raw = to_bytes(data)
        key = None if request_key is None else _lib.enc(request_key)
        r = self._check(_L.chime_scheduler_run_job(
            self._p(), _lib.enc(group), _lib.enc(name), raw,
            len(raw) if raw else 0, key))
        return r != _lib.ENQUEUE_EXISTED

    def enqueue(self, group: Any, name: Optional[str] = None, *,
                data: Any = None, run_at: Any = None,
                priority: Optional[int] = None,
                timeout_ms: Optional[int] = None,
                unique_key: Optional[str] = None,
                partition_key: Optional[str] = None,
                unique_for_ms: Optional[int] = None,
                retry: Any = None) -> _queue.Enqueued:
        """Hands in one run of the stored job (chime_scheduler_enqueue):
        data for the run (else the job's), run_at (epoch ms or datetime;
        None: now), priority, timeout_ms (None: the job's), unique_key
        (while a run with the key waits, runs or waits for a retry,
        nothing is stored and the existing run is returned,
        existed=True), unique_for_ms (the key stays taken that long after
        the run's final outcome; needs unique_key), retry (a Retry: this
        run's own policy instead of its job's) and partition_key (the key
        its job type's per-partition limit counts it under).
        docs/queue.md."""
        group, name = _job_key(group, name)
        buf = _queue.run_buffer()
        with _queue.Options(data, run_at, priority, timeout_ms,
                            unique_key, partition_key, unique_for_ms,
                            retry) as o:
            r = self._check(_L.chime_scheduler_enqueue(
                self._p(), _lib.enc(group), _lib.enc(name), o.ptr, buf,
                _lib.RUN_NAME_LEN))
        return _queue.run_at(buf, 0, r)

    def enqueue_many(self, group: Any, name: Optional[str] = None,
                     runs: Iterable[Dict[str, Any]] = ()
                     ) -> List[_queue.Enqueued]:
        """Hands in many runs of the stored job at once
        (chime_scheduler_enqueue_many: one transaction and one multi-row
        INSERT per 1000 runs with MySQL); each run is a dict of enqueue's
        keyword arguments.  Returns one Enqueued per run, in order."""
        group, name = _job_key(group, name)
        opts = []
        try:
            for kw in runs:
                opts.append(_queue.Options(**kw))
            n = len(opts)
            arr = (ctypes.c_void_p * max(1, n))(*[o.ptr for o in opts])
            results = (ctypes.c_int * max(1, n))()
            buf = _queue.run_buffer(n)
            self._check(_L.chime_scheduler_enqueue_many(
                self._p(), _lib.enc(group), _lib.enc(name), arr, n, results,
                buf, _lib.RUN_NAME_LEN))
            return [_queue.run_at(buf, i, results[i]) for i in range(n)]
        finally:
            for o in opts:
                o.close()

    def interrupt(self, group: Any, name: Optional[str] = None) -> int:
        """Asks every running fire of the job to stop, on whichever node
        of the cluster runs it (chime_scheduler_interrupt); returns how
        many running fires were asked."""
        group, name = _job_key(group, name)
        n = ctypes.c_size_t()
        self._check(_L.chime_scheduler_interrupt(
            self._p(), _lib.enc(group), _lib.enc(name), ctypes.byref(n)))
        return n.value

    def interrupt_fire(self, fire_id: int) -> None:
        """Asks the one running fire fire_id to stop, wherever it runs
        (chime_scheduler_interrupt_fire); NotFound when none runs."""
        self._check(_L.chime_scheduler_interrupt_fire(self._p(),
                                                      int(fire_id)))

    # ---------------------------------------------------------- triggers

    def schedule(self, job, trigger, replace_existing=False,
                 if_absent=False):
        """Adds trigger for job: a Job (added in the same step) or the key
        of a job already stored.  Returns the first fire time in epoch ms.

        replace_existing: a stored job and trigger of the same keys are
        replaced in one step (APScheduler's replace_existing, Quartz's
        replace).  if_absent: what is stored is kept and only what is
        missing is added (every node of a replicated server may schedule
        the same jobs at start-up); the return is then the stored
        trigger's next fire time.  Without either, an existing key raises
        AlreadyExists."""
        if replace_existing and if_absent:
            raise ValueError("replace_existing and if_absent exclude each "
                             "other")
        flags = (1 if replace_existing else 0) | (2 if if_absent else 0)
        group, name = _job_key(job)
        owned = job._build() if isinstance(job, Job) else None
        first = ctypes.c_int64()
        try:
            tptr = trigger._for_job(group, name)
            self._check(_L.chime_scheduler_schedule(
                self._p(), owned.ptr if owned else None, tptr, flags,
                ctypes.byref(first)))
        finally:
            if owned:
                owned.free()
        return first.value

    def reschedule(self, group, name, trigger):
        """Replaces trigger (group, name) with a new definition for the same
        job; returns the first fire time."""
        info = ctypes.c_void_p()
        self._check(_L.chime_scheduler_get_trigger(
            self._p(), _lib.enc(group), _lib.enc(name), ctypes.byref(info)))
        try:
            job_group = _lib.dec(_trigger_job_group(info))
            job_name = _lib.dec(_trigger_job_name(info))
        finally:
            _L.chime_trigger_free(info)
        first = ctypes.c_int64()
        self._check(_L.chime_scheduler_reschedule(
            self._p(), _lib.enc(group), _lib.enc(name),
            trigger._for_job(job_group, job_name), ctypes.byref(first)))
        return first.value

    def backfill(self, group: str, name: str, start: Any, end: Any,
                 max_fires: int = 100000, pace_ms: int = 0) -> int:
        """Runs the fires of trigger (group, name) in [start, end] (epoch
        ms or datetimes) again, each once in the cluster with its original
        scheduled time (ctx.backfill is true); returns how many.  With
        pace_ms, the k-th fire is released k * pace_ms from now (at most
        one per pace_ms starts in the cluster; backfill_cancel stops the
        rest)."""
        n = ctypes.c_size_t()
        self._check(_L.chime_scheduler_backfill(
            self._p(), _lib.enc(group), _lib.enc(name), to_ms(start),
            to_ms(end), int(max_fires), int(pace_ms), ctypes.byref(n)))
        return n.value

    def backfill_cancel(self, group: str, name: str) -> int:
        """Removes the backfill fires of (group, name) not yet run;
        returns how many."""
        n = ctypes.c_size_t()
        self._check(_L.chime_scheduler_backfill_cancel(
            self._p(), _lib.enc(group), _lib.enc(name), ctypes.byref(n)))
        return n.value

    def set_limit(self, job_type: str, max_running: int = 0,
                  max_per_partition: int = 0,
                  rate: Optional[Tuple[int, int]] = None,
                  partition_rate: Optional[Tuple[int, int]] = None,
                  partition_field: Optional[str] = None) -> None:
        """Limits the runs of job_type across the cluster
        (chime_scheduler_set_limit and chime_scheduler_set_partition_limit;
        docs/queue.md, "Limits"): at most max_running at a time,
        max_per_partition of them per partition key, rate=(count,
        period_ms) starts, smoothed, partition_rate=(count, period_ms)
        starts of each partition key, smoothed; 0 / None: no such limit.
        partition_field: the top-level member of a run's JSON data its
        partition key is taken from when it is stored without one.  The
        whole limit is replaced.  A fire over a limit waits (late, never
        misfired)."""
        count, period = rate if rate is not None else (0, 0)
        kcount, kperiod = (partition_rate if partition_rate is not None
                           else (0, 0))
        partition = partition_rate is not None or partition_field is not None
        if max_running or max_per_partition or rate is not None \
                or not partition:
            self._check(_L.chime_scheduler_set_limit(
                self._p(), _lib.enc(job_type), int(max_running),
                int(max_per_partition), int(count), int(period)))
        elif self.get_limit(job_type) is not None:
            self.clear_limit(job_type)  # the type's own figures: none
        self._check(_L.chime_scheduler_set_partition_limit(
            self._p(), _lib.enc(job_type),
            _lib.enc(partition_field) if partition_field is not None
            else None, int(max_per_partition), int(kcount), int(kperiod)))

    def get_limit(self, job_type: str) -> Optional[Dict[str, Any]]:
        """The limit of job_type as set: a dict of max_running,
        max_per_partition, rate and partition_rate ((count, period_ms) or
        None) and partition_field (or None); None when the type has
        none."""
        mx, per, cnt = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        period = ctypes.c_int64()
        r = _L.chime_scheduler_get_limit(
            self._p(), _lib.enc(job_type), ctypes.byref(mx),
            ctypes.byref(per), ctypes.byref(cnt), ctypes.byref(period))
        if r == _ENOTFOUND:
            return None
        self._check(r)
        field = ctypes.create_string_buffer(_MAX_NAME_LEN + 1)
        kcnt, kperiod = ctypes.c_int(), ctypes.c_int64()
        r = _L.chime_scheduler_get_partition_limit(
            self._p(), _lib.enc(job_type), field, len(field), None,
            ctypes.byref(kcnt), ctypes.byref(kperiod))
        if r == _ENOTFOUND:
            return None
        self._check(r)
        return {"max_running": mx.value, "max_per_partition": per.value,
                "rate": (cnt.value, period.value) if cnt.value else None,
                "partition_rate": ((kcnt.value, kperiod.value)
                                   if kcnt.value else None),
                "partition_field": field.value.decode() or None}

    def clear_limit(self, job_type: str) -> bool:
        """Removes the limit of job_type; False when it had none."""
        r = _L.chime_scheduler_clear_limit(self._p(), _lib.enc(job_type))
        if r == _ENOTFOUND:
            return False
        self._check(r)
        return True

    def drain(self, instance_id: Optional[str] = None,
              timeout_ms: int = 0) -> None:
        """Asks node instance_id (None: this scheduler's own) to drain
        (chime_scheduler_drain; docs/operations.md, "A maintenance
        window"): from its next check-in it claims nothing, its runs
        finish, then its state is NodeState.DRAINED.  timeout_ms (0: none)
        is how long its runs may go on before they are handed over.
        Raises NotFound for a node not in the cluster."""
        self._check(_L.chime_scheduler_drain(
            self._p(), _lib.enc(instance_id), int(timeout_ms)))

    def undrain(self, instance_id: Optional[str] = None) -> bool:
        """Ends the drain of node instance_id (None: this scheduler's
        own): it claims again from its next check-in.  False when it was
        not drained."""
        r = _L.chime_scheduler_undrain(self._p(), _lib.enc(instance_id))
        if r == _ENOTFOUND:
            return False
        self._check(r)
        return True

    def node_state(self, instance_id: Optional[str] = None) -> NodeState:
        """The drain state of node instance_id (None: this scheduler's
        own) as the store has it (chime_scheduler_node_state)."""
        state = ctypes.c_int()
        self._check(_L.chime_scheduler_node_state(
            self._p(), _lib.enc(instance_id), ctypes.byref(state)))
        return NodeState(state.value)

    def unschedule(self, group: Any, name: Optional[str] = None) -> None:
        group, name = _job_key(group, name)
        self._check(_L.chime_scheduler_unschedule(
            self._p(), _lib.enc(group), _lib.enc(name)))

    def trigger_state(self, group: Any,
                      name: Optional[str] = None) -> TriggerState:
        """The trigger's TriggerState (NONE when absent)."""
        group, name = _job_key(group, name)
        state = ctypes.c_int()
        self._check(_L.chime_scheduler_get_trigger_status(
            self._p(), _lib.enc(group), _lib.enc(name), ctypes.byref(state)))
        return TriggerState(state.value)

    def trigger_info(self, group: Any,
                     name: Optional[str] = None) -> Dict[str, Any]:
        """A dict of the stored trigger's state, next and previous fire (ms,
        None when none) and times triggered."""
        group, name = _job_key(group, name)
        ptr = ctypes.c_void_p()
        self._check(_L.chime_scheduler_get_trigger(
            self._p(), _lib.enc(group), _lib.enc(name), ctypes.byref(ptr)))
        try:
            nxt = _L.chime_trigger_get_next_fire_ms(ptr)
            prev = _L.chime_trigger_get_prev_fire_ms(ptr)
            return {
                "state": TriggerState(_L.chime_trigger_get_status(ptr)),
                "kind": TriggerKind(_L.chime_trigger_get_kind(ptr)),
                "next_fire_ms": None if nxt == _lib.NO_FIRE_MS else nxt,
                "prev_fire_ms": None if prev == _lib.NO_FIRE_MS else prev,
                "times_triggered": _L.chime_trigger_get_times_triggered(ptr),
                "job": (_lib.dec(_trigger_job_group(ptr)),
                        _lib.dec(_trigger_job_name(ptr))),
            }
        finally:
            _L.chime_trigger_free(ptr)

    def _list(self, fn, group, match):
        keys = ctypes.c_void_p()
        count = ctypes.c_size_t()
        if group is None:
            match = "any"
        self._check(fn(self._p(), _match(match), _lib.enc(group or ""),
                       ctypes.byref(keys), ctypes.byref(count)))
        try:
            arr = ctypes.cast(keys, ctypes.POINTER(_lib.ChimeKey))
            return [(_lib.dec(arr[i].group), _lib.dec(arr[i].name))
                    for i in range(count.value)]
        finally:
            _L.chime_key_free_array(keys, count)

    def list_jobs(self, group: Optional[str] = None,
                  match: Union[str, int] = "equals") -> List[Tuple[str, str]]:
        """Job keys whose group matches (all when group is None)."""
        return self._list(_L.chime_scheduler_list_jobs, group, match)

    def list_triggers(self, group: Optional[str] = None,
                      match: Union[str, int] = "equals"
                      ) -> List[Tuple[str, str]]:
        return self._list(_L.chime_scheduler_list_triggers, group, match)

    # ------------------------------------------------------------- pause

    def pause_trigger(self, group: Any, name: Optional[str] = None) -> None:
        group, name = _job_key(group, name)
        self._check(_L.chime_scheduler_pause_trigger(
            self._p(), _lib.enc(group), _lib.enc(name)))

    def resume_trigger(self, group: Any,
                       name: Optional[str] = None) -> None:
        group, name = _job_key(group, name)
        self._check(_L.chime_scheduler_resume_trigger(
            self._p(), _lib.enc(group), _lib.enc(name)))

    def pause_job(self, group: Any, name: Optional[str] = None) -> None:
        group, name = _job_key(group, name)
        self._check(_L.chime_scheduler_pause_job(
            self._p(), _lib.enc(group), _lib.enc(name)))

    def resume_job(self, group: Any, name: Optional[str] = None) -> None:
        group, name = _job_key(group, name)
        self._check(_L.chime_scheduler_resume_job(
            self._p(), _lib.enc(group), _lib.enc(name)))

    def pause_group(self, pattern: str,
                    match: Union[str, int] = "equals") -> None:
        """Pauses the trigger groups matching pattern (and matching groups
        added later, until resumed)."""
        self._check(_L.chime_scheduler_pause_triggers(
            self._p(), _match(match), _lib.enc(pattern)))

    def resume_group(self, pattern: str,
                     match: Union[str, int] = "equals") -> None:
        self._check(_L.chime_scheduler_resume_triggers(
            self._p(), _match(match), _lib.enc(pattern)))

    def pause_all(self) -> None:
        self._check(_L.chime_scheduler_pause_all(self._p()))

    def resume_all(self) -> None:
        self._check(_L.chime_scheduler_resume_all(self._p()))

    def reload_zones(self) -> int:
        """Reads every loaded zone's zoneinfo file again and recomputes the
        next fires of this scheduler's triggers in the zones whose rules
        changed (a tzdata update; a running scheduler also notices at its
        check-ins).  Returns how many zones changed (0: none)."""
        return self._check(_L.chime_scheduler_reload_zones(self._p()))

    # --------------------------------------------------------- calendars

    # -------------------------------------------------------------- leases

    def lease(self, name: str, at_most: Any = None, at_least: Any = None,
              wait: Any = None, keep_alive: bool = False,
              **ms: Optional[int]) -> LeaseSection:
        """A named lease as a context manager (`with sched.lease("n",
        at_most=60, at_least=5) as token:`; chime.Busy when held) or a
        decorator (the function runs only when acquired, else returns
        None).  Durations in seconds or timedelta (at_most_ms, at_least_ms,
        wait_ms: milliseconds).  The scheduler need not be started."""
        return LeaseSection(self, name, at_most=at_most, at_least=at_least,
                            wait=wait, keep_alive=keep_alive, **ms)

    def with_lease(self, name: str, at_most: Any = None,
                   at_least: Any = None, **ms: Optional[int]) -> LeaseSection:
        """The decorator form of lease(): the function runs only when the
        lease is acquired (ShedLock's @SchedulerLock), else returns None."""
        return self.lease(name, at_most=at_most, at_least=at_least, **ms)

    def acquire_lease(self, name: str, at_most: Any = None,
                      at_least: Any = None, wait: Any = None,
                      **ms: Optional[int]) -> Lease:
        """Acquires lease name and returns the Lease (token, extend,
        release, still_held, keep_alive, close); chime.Busy when held."""
        return acquire_lease(self, name, at_most=at_most, at_least=at_least,
                             wait=wait, **ms)

    def add_calendar(self, name: str, text: str, replace: bool = False,
                     update_triggers: bool = False) -> None:
        """Adds a calendar from its text form ("chime-calendar 1\\n...")."""
        errbuf = ctypes.create_string_buffer(512)
        cal = ctypes.c_void_p()
        check_buf(_L.chime_calendar_from_string(
            _lib.enc(text), ctypes.byref(cal), errbuf, len(errbuf)), errbuf)
        try:
            self._check(_L.chime_scheduler_add_calendar(
                self._p(), _lib.enc(name), cal, bool(replace),
                bool(update_triggers)))
        finally:
            _L.chime_calendar_free(cal)

    def remove_calendar(self, name: str) -> None:
        self._check(_L.chime_scheduler_remove_calendar(self._p(),
                                                       _lib.enc(name)))


_trigger_job_group = _L.chime_trigger_get_job_group
_trigger_job_name = _L.chime_trigger_get_job_name
