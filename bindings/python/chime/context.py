"""context: JobContext, what a job function receives for one run.

It wraps the C chime_ctx, which lives only during the job function: after
the function returns every method raises StateError.
"""

from __future__ import annotations

import ctypes
import datetime
import json
from typing import Any, Optional, Tuple

from . import _lib
from . import queue as _queue
from .errors import InvalidArgument, StateError, Unsupported, check, error_for
from .triggers import ms_to_datetime, to_bytes

_L = _lib.lib


class JobContext:
    """One run of a job: keys, times, fire id, data; set_data, fail."""

    def __init__(self, ptr, scheduler):
        self._ptr = ptr
        self._scheduler = scheduler
        self.failed = None

    def _p(self):
        if not self._ptr:
            raise StateError(-9, "the job context is used after its run")
        return self._ptr

    def _s(self, fn):
        return _lib.dec(fn(self._p()))

    scheduler = property(lambda self: self._scheduler,
                         doc="The Scheduler running this job.")
    job_group = property(lambda self: self._s(_L.chime_ctx_get_job_group))
    job_name = property(lambda self: self._s(_L.chime_ctx_get_job_name))
    job_type = property(lambda self: self._s(_L.chime_ctx_get_job_type))
    trigger_group = property(
        lambda self: self._s(_L.chime_ctx_get_trigger_group))
    trigger_name = property(
        lambda self: self._s(_L.chime_ctx_get_trigger_name))
    job_key = property(lambda self: (self.job_group, self.job_name))
    trigger_key = property(lambda self: (self.trigger_group,
                                         self.trigger_name))

    @property
    def attempt(self) -> int:
        """Which attempt of its fire this run is: 1, or n for a retry."""
        return _L.chime_ctx_get_attempt(self._p())

    @property
    def shard(self) -> Optional[Tuple[int, int]]:
        """(index, total) of this run's shard of a sharded fire; None for
        a run that is no shard (docs/batch.md)."""
        index, total = ctypes.c_int(), ctypes.c_int()
        if check(_L.chime_ctx_get_shard(self._p(), ctypes.byref(index),
                                        ctypes.byref(total))) == 0:
            return None
        return (index.value, total.value)

    @property
    def shard_param(self) -> Optional[str]:
        """This shard's parameter ("0=Beijing" gives shard 0 "Beijing")."""
        p = _L.chime_ctx_get_shard_param(self._p())
        return _lib.dec(p) if p is not None else None

    @property
    def shard_fire_id(self) -> int:
        """The id of the sharded fire, shared by its shards (fire_id is the
        shard's own); a run that is no shard: its fire id."""
        return _L.chime_ctx_get_shard_fire_id(self._p())

    def checkpoint(self, data: Any) -> None:
        """Records durably how far this run got (bytes, str or JSON value);
        a run recovered after its node died starts with it.  Raises
        NotOwner once another node took the fire over."""
        raw = to_bytes(data) or b""
        check(_L.chime_ctx_checkpoint(self._p(), raw, len(raw)))

    def last_checkpoint(self) -> Optional[bytes]:
        """The last checkpoint of this run (or of the run it continues);
        None when there is none."""
        ptr, n = ctypes.c_void_p(), ctypes.c_size_t()
        if check(_L.chime_ctx_checkpoint_get(self._p(), ctypes.byref(ptr),
                                             ctypes.byref(n))) == 0:
            return None
        return _lib.read_bytes(ptr.value, n.value) if n.value else b""

    @property
    def scheduled_ms(self) -> int:
        """When the fire was scheduled for (a recovered fire or a retry:
        the original)."""
        return _L.chime_ctx_get_scheduled_ms(self._p())

    @property
    def scheduled_time(self) -> "datetime.datetime":
        return ms_to_datetime(self.scheduled_ms)

    @property
    def fire_ms(self) -> int:
        """When the run started."""
        return _L.chime_ctx_get_fire_ms(self._p())

    @property
    def fire_time(self) -> "datetime.datetime":
        return ms_to_datetime(self.fire_ms)

    @property
    def prev_fire_ms(self) -> Optional[int]:
        ms = _L.chime_ctx_get_prev_fire_ms(self._p())
        return None if ms == _lib.NO_FIRE_MS else ms

    @property
    def next_fire_ms(self) -> Optional[int]:
        ms = _L.chime_ctx_get_next_fire_ms(self._p())
        return None if ms == _lib.NO_FIRE_MS else ms

    @property
    def fire_id(self) -> str:
        return _L.chime_ctx_get_fire_id(self._p())

    @property
    def cancelled(self) -> bool:
        """True once the run was told to stop: interrupted
        (Scheduler.interrupt, chimectl cancel, from any node), its job's
        timeout passed, or the scheduler is shutting down with a deadline
        (Scheduler.shutdown with deadline_ms): the job should return early."""
        return bool(_L.chime_ctx_is_cancelled(self._p()))

    def wait_cancelled(self, timeout_ms: int) -> bool:
        """Sleeps until the run is told to stop or timeout_ms passed;
        True when told (chime_ctx_wait_cancelled)."""
        return check(_L.chime_ctx_wait_cancelled(self._p(),
                                                 int(timeout_ms))) == 1

    @property
    def backfill(self) -> bool:
        """Whether this fire is one of a backfill (its scheduled time is
        the original one)."""
        return bool(_L.chime_ctx_is_backfill(self._p()))

    @property
    def recovering(self) -> bool:
        """True when this run re-runs a fire whose node died."""
        return bool(_L.chime_ctx_is_recovering(self._p()))

    @property
    def times_triggered(self) -> int:
        return _L.chime_ctx_get_times_triggered(self._p())

    @property
    def data(self) -> bytes:
        """The run's data as bytes (trigger's, trigger_job's, or job's)."""
        n = ctypes.c_size_t()
        ptr = _L.chime_ctx_get_data(self._p(), ctypes.byref(n))
        return _lib.read_bytes(ptr, n.value)

    @property
    def job_data(self) -> bytes:
        """The job's own data as bytes."""
        n = ctypes.c_size_t()
        ptr = _L.chime_ctx_get_job_data(self._p(), ctypes.byref(n))
        return _lib.read_bytes(ptr, n.value)

    def text(self) -> str:
        return self.data.decode("utf-8")

    def json(self) -> Any:
        """The run's data parsed as JSON; None when there is none."""
        raw = self.data
        return json.loads(raw.decode("utf-8")) if raw else None

    def set_data(self, data: Any) -> None:
        """New job data (bytes, str or JSON value), saved after the run when
        the job has persist_data."""
        raw = to_bytes(data) or b""
        check(_L.chime_ctx_set_job_data(self._p(), raw, len(raw)))

    def still_owned(self) -> bool:
        """Whether the store confirms that this node still holds the fire.
        Conservative: False once another node took it over, and False too
        when the store cannot tell (database unreachable or busy).  Before
        an irreversible step use check_owned, which tells the two apart."""
        return bool(_L.chime_ctx_is_still_owned(self._p()))

    def check_owned(self) -> Optional[bool]:
        """Whether this node still holds the fire, answered within about one
        check-in interval: True (owned), False (taken over by another
        node), or None when the store cannot tell now (database
        unreachable or busy).  Ask before an irreversible step."""
        r = _L.chime_ctx_check_owned(self._p())
        if r == 1:
            return True
        if r == 0:
            return False
        if r in (-11, -21):  # CHIME_ECONNECT, CHIME_EBUSY
            return None
        check(r)
        return None

    def transaction(self) -> "Transaction":
        """A transaction that completes this fire together with the job's
        own statements (MySQL/MariaDB store only: the statements run on the
        scheduler's database).  Use it as a context manager:

            with ctx.transaction() as tx:
                tx.execute("UPDATE bills SET settled = 1 WHERE day = ?",
                           [day])

        Leaving the block commits the statements and the fire's completion
        in one COMMIT (NotOwner: the fire was taken over by another node and
        nothing was written); an exception in the block rolls back and
        propagates (the fire then completes as usual, failed).  Raises
        Unsupported on another store, NotOwner when the fire is not this
        node's any more."""
        return Transaction(self)

    def complete_with(self, sql, params=()):
        """Gives one statement, with params bound to its ? placeholders,
        to this fire's completion (chime_ctx_complete_with; MySQL/MariaDB
        store only): it runs after the job returns, in the transaction that
        completes the fire (with other fires' completions under load: one
        COMMIT for many), so its writes commit with the completion or not
        at all.  Several calls run in order.  Data changes only: nothing
        that ends the transaction or commits implicitly (DDL), nothing that
        changes the session.  A statement the server refuses writes none
        of the run's: the run is recorded failed.
        Raises Unsupported on another store, StateError after a
        transaction() of this run committed."""
        if not isinstance(sql, str):
            raise InvalidArgument(-1, "the statement must be a str")
        if not _lib.HAVE_MYSQL_TX:
            raise Unsupported(-16, "this libchime was built without the "
                              "MySQL store")
        raw = [_param(v) for v in params]
        arr = (ctypes.c_char_p * max(1, len(raw)))(*raw)
        check(_L.chime_ctx_complete_with(self._p(), _lib.enc(sql), arr,
                                           len(raw)))

    def fail(self, message: str) -> None:
        """Marks the run failed with message; the trigger goes on."""
        self.failed = str(message)
        check(_L.chime_ctx_fail(self._p(), _lib.enc(self.failed)))

    def __repr__(self):
        if not self._ptr:
            return "JobContext(<finished>)"
        return "JobContext(job=%r, trigger=%r, fire_id=%d)" % (
            self.job_key, self.trigger_key, self.fire_id)


def _param(value):
    """One statement parameter as the text the server converts."""
    if value is None:
        return None
    if isinstance(value, bool):
        return b"1" if value else b"0"
    if isinstance(value, (int, float)):
        return str(value).encode("ascii")
    if isinstance(value, bytes):
        raw = value
    elif isinstance(value, str):
        raw = value.encode("utf-8")
    else:
        raise InvalidArgument(-1, "a statement parameter must be None, a "
                              "number, str or bytes, not %s"
                              % type(value).__name__)
    if b"\0" in raw:
        raise InvalidArgument(-1, "a statement parameter cannot hold a NUL "
                              "character")
    return raw


class Transaction:
    """A fire's completion transaction (JobContext.transaction())."""

    def __init__(self, ctx):
        self._ctx = ctx
        self._tx = ctypes.c_void_p()
        self._open = False

    def _msg(self):
        return _lib.dec(_L.chime_mysql_tx_errmsg(self._tx)) or None

    def begin(self):
        if not _lib.HAVE_MYSQL_TX:
            raise Unsupported(-16, "this libchime was built without the "
                              "MySQL store")
        r = _L.chime_mysql_tx_begin(self._ctx._p(), ctypes.byref(self._tx))
        if r < 0:
            raise error_for(r, self._msg() if self._tx else None)
        self._open = True
        return self

    def execute(self, sql, params=()):
        """Runs one statement with params bound to its ? placeholders;
        returns the affected rows (for a SELECT, the rows it returned).
        A failed statement raises, and the transaction then rolls back."""
        if not isinstance(sql, str):
            raise InvalidArgument(-1, "the statement must be a str")
        if not self._open:
            raise StateError(-9, "the transaction is not open")
        raw = [_param(v) for v in params]
        arr = (ctypes.c_char_p * max(1, len(raw)))(*raw)
        affected = ctypes.c_uint64(0)
        r = _L.chime_mysql_tx_execute(self._tx, _lib.enc(sql), arr, len(raw),
                                      ctypes.byref(affected))
        if r < 0:
            raise error_for(r, self._msg())
        return affected.value

    def enqueue(self, group, name=None, **options):
        """Hands in a run of the stored job inside this transaction
        (chime_mysql_tx_enqueue): stored with the commit, or not at all.
        options are Scheduler.enqueue's; returns an Enqueued."""
        if not self._open:
            raise StateError(-9, "the transaction is not open")
        if name is None:
            group, name = group.key if hasattr(group, "key") else group
        buf = _queue.run_buffer()
        with _queue.Options(**options) as o:
            r = _L.chime_mysql_tx_enqueue(self._tx, _lib.enc(group),
                                          _lib.enc(name), o.ptr, buf,
                                          _lib.RUN_NAME_LEN)
        if r < 0:
            raise error_for(r, self._msg())
        return _queue.run_at(buf, 0, r)

    def commit(self):
        if not self._open:
            raise StateError(-9, "the transaction is not open")
        self._open = False
        r = _L.chime_mysql_tx_commit(self._tx)
        if r < 0:
            raise error_for(r, self._msg())

    def rollback(self):
        if not self._open:
            raise StateError(-9, "the transaction is not open")
        self._open = False
        check(_L.chime_mysql_tx_rollback(self._tx))

    def __enter__(self):
        return self.begin()

    def __exit__(self, exc_type, exc, tb):
        if not self._open:
            return False
        if exc_type is not None:
            self.rollback()
            return False
        self.commit()
        return False
