"""chime.history: the recorded runs of a cluster (chime_scheduler_history),
read through Scheduler.history(): one page, newest first, as HistoryRecord
objects copied out of the C page (which is freed at once)."""

from __future__ import annotations

import ctypes
from typing import Any, List, NamedTuple, Optional, Tuple

from . import _lib
from .enums import Outcome
from .errors import InvalidArgument
from .triggers import to_ms

_L = _lib.lib

# The most records one call returns (CHIME_HISTORY_MAX_LIMIT).
MAX_LIMIT = 1000


class HistoryRecord(NamedTuple):
    """One recorded run: id is the paging cursor (pass the last one as
    before_id for the next page), fire_id the fire's; times in epoch ms;
    error the chime error code (0 for none), message the failure's text;
    recovering whether it was a recovered fire's re-run; data the run's own
    data as bytes (its trigger's, e.g. trigger_job's: what a retry of the
    run uses), None when it read its job's data."""
    id: int
    fire_id: int
    job_key: Tuple[str, str]
    trigger_key: Tuple[str, str]
    node: Optional[str]
    outcome: Any  # Outcome, or the bare int of an outcome newer than this
    scheduled_ms: int
    started_ms: int
    finished_ms: int
    error: int
    message: Optional[str]
    recovering: bool
    data: Optional[bytes] = None

    @property
    def job_group(self) -> str:
        return self.job_key[0]

    @property
    def job_name(self) -> str:
        return self.job_key[1]

    @property
    def trigger_group(self) -> str:
        return self.trigger_key[0]

    @property
    def trigger_name(self) -> str:
        return self.trigger_key[1]


def _key(value: Any, what: str) -> Tuple[Optional[str], Optional[str]]:
    """(group, name) from None, "GROUP.NAME", a pair or an object with .key
    (a Job)."""
    if value is None:
        return None, None
    if isinstance(value, str):
        group, dot, name = value.partition(".")
        if not dot:
            raise InvalidArgument(-1, what + " wants GROUP.NAME, got %r" % value)
        return group, name
    if hasattr(value, "key"):
        value = value.key
    group, name = value
    return group, name


def _outcome(value: Any) -> int:
    if value is None:
        return -1
    if isinstance(value, str):
        try:
            return int(Outcome[value.upper()])
        except KeyError:
            raise InvalidArgument(-1, "unknown outcome %r" % value)
    return int(value)


def _data(page: Any, i: int) -> Optional[bytes]:
    n = ctypes.c_size_t()
    ptr = _L.chime_history_get_data(page, i, ctypes.byref(n))
    return _lib.read_bytes(ptr, n.value) if ptr else None


def _record(page: Any, i: int) -> HistoryRecord:
    outcome = _L.chime_history_get_outcome(page, i)
    try:
        outcome = Outcome(outcome)
    except ValueError:
        pass
    return HistoryRecord(
        id=_L.chime_history_get_id(page, i),
        fire_id=_L.chime_history_get_fire_id(page, i),
        job_key=(_lib.dec(_L.chime_history_get_job_group(page, i)),
                 _lib.dec(_L.chime_history_get_job_name(page, i))),
        trigger_key=(_lib.dec(_L.chime_history_get_trigger_group(page, i)),
                     _lib.dec(_L.chime_history_get_trigger_name(page, i))),
        node=_lib.dec(_L.chime_history_get_node(page, i)),
        outcome=outcome,
        scheduled_ms=_L.chime_history_get_scheduled_ms(page, i),
        started_ms=_L.chime_history_get_started_ms(page, i),
        finished_ms=_L.chime_history_get_finished_ms(page, i),
        error=_L.chime_history_get_error(page, i),
        message=_lib.dec(_L.chime_history_get_message(page, i)),
        recovering=bool(_L.chime_history_is_recovering(page, i)),
        data=_data(page, i))


def read(sched_ptr: Any, check: Any, job: Any = None, trigger: Any = None,
         outcome: Any = None, since: Any = None, until: Any = None,
         before_id: int = 0, limit: int = 100) -> List[HistoryRecord]:
    """One page of runs (see Scheduler.history); check raises for a
    negative chime code."""
    jg, jn = _key(job, "job")
    tg, tn = _key(trigger, "trigger")
    page = ctypes.c_void_p()
    check(_L.chime_scheduler_history(
        sched_ptr, _lib.enc(jg), _lib.enc(jn), _lib.enc(tg), _lib.enc(tn),
        _outcome(outcome), to_ms(since) if since is not None else 0,
        to_ms(until) if until is not None else 0, int(before_id), int(limit),
        ctypes.byref(page)))
    try:
        return [_record(page, i)
                for i in range(_L.chime_history_get_count(page))]
    finally:
        _L.chime_history_free(page)
