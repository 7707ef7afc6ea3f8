"""queue: runs handed in by the application (docs/queue.md).

Scheduler.enqueue(job, data=..., run_at=..., priority=..., timeout_ms=...,
unique_key=..., unique_for_ms=..., retry=chime.Retry(...)) hands in one
run of a stored job; Scheduler.enqueue_many many at once (one
transaction, one multi-row INSERT per 1000 runs with MySQL); Transaction.enqueue one inside a job's own completion transaction.
Each returns an Enqueued: the run's name in QUEUE_GROUP (its trigger key,
to look it up or unschedule it) and whether a run with its unique key
existed already (then nothing was stored).
"""

from __future__ import annotations

import ctypes
from typing import Any, NamedTuple, Optional

from . import _lib
from .errors import check
from .triggers import to_bytes, to_ms

_L = _lib.lib

QUEUE_GROUP = _lib.QUEUE_GROUP


class Enqueued(NamedTuple):
    """One enqueued run: its trigger name in QUEUE_GROUP, and whether a
    run with its unique key existed (nothing was stored then)."""
    name: str
    existed: bool

    @property
    def key(self):
        """The run's trigger key (QUEUE_GROUP, name)."""
        return (QUEUE_GROUP, self.name)


class Options:
    """A chime_enqueue built from keyword arguments; freed on close."""

    def __init__(self, data: Any = None, run_at: Any = None,
                 priority: Optional[int] = None,
                 timeout_ms: Optional[int] = None,
                 unique_key: Optional[str] = None,
                 partition_key: Optional[str] = None,
                 unique_for_ms: Optional[int] = None,
                 retry: Any = None):
        self.ptr = ctypes.c_void_p()
        check(_L.chime_enqueue_new(ctypes.byref(self.ptr)))
        try:
            raw = to_bytes(data)
            if raw:
                check(_L.chime_enqueue_set_data(self.ptr, raw, len(raw)))
            if run_at is not None:
                check(_L.chime_enqueue_set_run_at_ms(self.ptr, to_ms(run_at)))
            if priority is not None:
                check(_L.chime_enqueue_set_priority(self.ptr, int(priority)))
            if timeout_ms is not None:
                check(_L.chime_enqueue_set_timeout_ms(self.ptr,
                                                      int(timeout_ms)))
            if unique_key is not None:
                check(_L.chime_enqueue_set_unique_key(
                    self.ptr, _lib.enc(unique_key)))
            if partition_key is not None:
                check(_L.chime_enqueue_set_partition_key(
                    self.ptr, _lib.enc(partition_key)))
            if unique_for_ms is not None:
                check(_L.chime_enqueue_set_unique_for_ms(
                    self.ptr, int(unique_for_ms)))
            if retry is not None:  # a chime.Retry: this run's own policy
                retry._apply_to(_L.chime_enqueue_set_retry, self.ptr)
        except BaseException:
            self.close()
            raise

    def close(self):
        if self.ptr:
            _L.chime_enqueue_free(self.ptr)
            self.ptr = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def run_buffer(count: int = 1):
    """A buffer for count run names."""
    return ctypes.create_string_buffer(_lib.RUN_NAME_LEN * max(1, count))


def run_at(buf, i: int, result: int) -> Enqueued:
    """Run i of a buffer filled by an enqueue that returned result."""
    raw = buf.raw[i * _lib.RUN_NAME_LEN:(i + 1) * _lib.RUN_NAME_LEN]
    name = raw.split(b"\0", 1)[0].decode("utf-8")
    return Enqueued(name, result == _lib.ENQUEUE_EXISTED)
