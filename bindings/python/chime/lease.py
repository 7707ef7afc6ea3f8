"""lease: named leases (chime_lease_* in chime.h), ShedLock's lock with
the database's clock and fencing tokens.

    with sched.lease("nightly-report", at_most=60, at_least=5) as token:
        write_report(fence=token)        # chime.Busy when held elsewhere

    @sched.lease("nightly-report", at_most=60, at_least=5)
    def nightly():                       # runs only when acquired,
        ...                              # else returns None (skipped)

Durations are seconds (int or float) or datetime.timedelta; at_most_ms and
at_least_ms take milliseconds instead.  A lease needs no started scheduler.
"""

from __future__ import annotations

import ctypes
import datetime
import functools
from typing import Any, Callable, Optional

from . import _lib
from .errors import Busy, InvalidArgument, check_sched, error_for

_L = _lib.lib


def to_lease_ms(seconds: Any, ms: Optional[int], what: str) -> int:
    """Milliseconds from seconds (number or timedelta) or from ms."""
    if ms is not None:
        if seconds is not None:
            raise InvalidArgument(-1, "give %s or %s_ms, not both"
                                  % (what, what))
        return int(ms)
    if seconds is None:
        return 0
    if isinstance(seconds, datetime.timedelta):
        return int(round(seconds.total_seconds() * 1000))
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError("%s must be seconds or a timedelta" % what)
    return int(round(seconds * 1000))


class Lease:
    """One acquisition of a named lease (a chime_lease handle).  token is
    its fencing token; close() releases it if still held and frees it."""

    def __init__(self, sched, ptr):
        self._sched = sched
        self._ptr = ptr
        self.token = _L.chime_lease_get_token(ptr)
        self.name = _lib.dec(_L.chime_lease_get_name(ptr))
        sched._leases.add(self)

    def _p(self):
        if not self._ptr:
            raise error_for(-1, "the lease is closed")
        return self._ptr

    @property
    def expires_ms(self) -> int:
        """When it runs out unless extended (the store's clock)."""
        return _L.chime_lease_get_expires_ms(self._p())

    def extend(self, at_most: Any = None, *,
               at_most_ms: Optional[int] = None) -> None:
        """Runs out at_most from now; chime.NotOwner once lost."""
        check_sched(_L.chime_lease_extend(
            self._p(), to_lease_ms(at_most, at_most_ms, "at_most")),
            self._sched._p())

    def release(self) -> None:
        """Gives the lease up (kept until at_least); chime.NotOwner when it
        had run out or been taken over."""
        check_sched(_L.chime_lease_release(self._p()), self._sched._p())

    def still_held(self) -> bool:
        return bool(self._ptr) and _L.chime_lease_is_held(self._ptr)

    def keep_alive(self, on: bool = True) -> None:
        """Extends every third of at_most while this process lives."""
        check_sched(_L.chime_lease_set_keep_alive(self._p(), bool(on)),
                    self._sched._p())

    def close(self) -> None:
        """Releases the lease if still held and frees the handle (also
        done for every open lease when its scheduler closes)."""
        ptr, self._ptr = self._ptr, None
        if ptr:
            _L.chime_lease_free(ptr)

    def __del__(self):
        self.close()

    def __repr__(self):
        return "Lease(%r, token=%d)" % (self.name, self.token)


def acquire(sched, name: str, at_most: Any = None, at_least: Any = None,
            wait: Any = None, *, at_most_ms: Optional[int] = None,
            at_least_ms: Optional[int] = None,
            wait_ms: Optional[int] = None) -> Lease:
    """Acquires lease name (Scheduler.acquire_lease)."""
    most = to_lease_ms(at_most, at_most_ms, "at_most")
    least = to_lease_ms(at_least, at_least_ms, "at_least")
    wait_for = to_lease_ms(wait, wait_ms, "wait")
    ptr = ctypes.c_void_p()
    s = sched._p()
    check_sched(_L.chime_lease_acquire(s, _lib.enc(name), most, least,
                                              wait_for, ctypes.byref(ptr)), s)
    return Lease(sched, ptr.value)


class LeaseSection:
    """What Scheduler.lease returns: a context manager whose value is the
    token (chime.Busy when the lease is held), and a decorator that runs
    the function only when it gets the lease (else returns None)."""

    def __init__(self, sched, name, **kwargs):
        self._sched = sched
        self._name = name
        self._kwargs = kwargs
        self._keep_alive = kwargs.pop("keep_alive", False)
        self.lease: Optional[Lease] = None

    def __enter__(self) -> int:
        self.lease = acquire(self._sched, self._name, **self._kwargs)
        if self._keep_alive:
            self.lease.keep_alive(True)
        return self.lease.token

    def __exit__(self, exc_type, exc, tb):
        lease, self.lease = self.lease, None
        try:
            if exc_type is None:
                lease.release()  # chime.NotOwner: the section overran
        finally:
            lease.close()
        return False

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def run(*args, **kwargs):
            section = LeaseSection(self._sched, self._name,
                                   keep_alive=self._keep_alive,
                                   **self._kwargs)
            try:
                section.__enter__()
            except Busy:
                return None  # held elsewhere: skip, as ShedLock does
            with_exc = True
            try:
                result = fn(*args, **kwargs)
                with_exc = False
                return result
            finally:
                if with_exc:
                    section.__exit__(Exception, None, None)
                else:
                    section.__exit__(None, None, None)
        return run
