"""context: JobContext, what a job function receives for one run.

It wraps the C chime_ctx, which lives only during the job function: after
the function returns every method raises StateError.
"""

from __future__ import annotations

import ctypes
import datetime
import json
from typing import Any, Optional

from . import _lib
from .errors import StateError, check
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
    def scheduled_ms(self) -> int:
        """When the fire was scheduled for (a recovered fire: the original)."""
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
        """True once the scheduler is shutting down with a deadline: the job
        should return early (Scheduler.shutdown_within)."""
        return bool(_L.chime_ctx_is_cancelled(self._p()))

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
        """Whether this node still holds the fire: False only once another
        node took it over; True also when the store cannot tell (use
        check_owned to tell that apart)."""
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

    def fail(self, message: str) -> None:
        """Marks the run failed with message; the trigger goes on."""
        self.failed = str(message)
        check(_L.chime_ctx_fail(self._p(), _lib.enc(self.failed)))

    def __repr__(self):
        if not self._ptr:
            return "JobContext(<finished>)"
        return "JobContext(job=%r, trigger=%r, fire_id=%d)" % (
            self.job_key, self.trigger_key, self.fire_id)
