"""triggers: Job, the four trigger kinds, and the value conversions they share.

A trigger object builds its C chime_trigger when it is made, so a bad cron
expression, zone or interval raises at once (ParseError, UnknownZone,
InvalidArgument); Scheduler.schedule() then names the job and copies it
into the store.  Common options of every kind: group, name (default: a
fresh unique name), start and end (epoch ms or an aware datetime),
priority, misfire (a Misfire or its name), calendar, description, data,
jitter_ms (every kind but Simple: fires move by the key's fixed offset in
[0, jitter_ms), chime_trigger_set_jitter_ms).
"""

from __future__ import annotations

import ctypes
import datetime
import enum
import json
import uuid
from typing import Any, Optional, Tuple

from . import _lib
from .enums import TriggerKind
from .errors import InvalidArgument, check, check_buf

_L = _lib.lib
DEFAULT_GROUP = "DEFAULT"
FOREVER = -1


class Misfire(enum.IntEnum):
    """chime_misfire: what a trigger does about a missed fire time."""
    SMART = 0
    IGNORE = 1
    FIRE_NOW = 2
    DO_NOTHING = 3
    RESCHEDULE_NOW_EXISTING_COUNT = 4
    RESCHEDULE_NOW_REMAINING_COUNT = 5
    RESCHEDULE_NEXT_REMAINING_COUNT = 6
    RESCHEDULE_NEXT_EXISTING_COUNT = 7


class Unit(enum.IntEnum):
    """chime_interval_unit."""
    MILLISECOND = 0
    SECOND = 1
    MINUTE = 2
    HOUR = 3
    DAY = 4
    WEEK = 5
    MONTH = 6
    YEAR = 7


class TriggerState(enum.IntEnum):
    """chime_trigger_status."""
    NONE = 0
    NORMAL = 1
    PAUSED = 2
    COMPLETE = 3
    ERROR = 4
    BLOCKED = 5


_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


def to_bytes(data: Any) -> Optional[bytes]:
    """Job or trigger data: bytes as they are, str as UTF-8, anything else
    as JSON.  None stays None."""
    if data is None or isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        return data.encode("utf-8")
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


def to_ms(when: Any) -> int:
    """An instant as epoch ms: an int, or a datetime (naive is read as UTC,
    unlike datetime.timestamp(), so a test's result does not depend on the
    machine's zone)."""
    if isinstance(when, datetime.datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        return int(round(when.timestamp() * 1000))
    return int(when)


def ms_to_datetime(ms: Optional[int]) -> Optional[datetime.datetime]:
    """Epoch ms to an aware UTC datetime; None for CHIME_NO_FIRE_MS."""
    if ms is None or ms == _lib.NO_FIRE_MS:
        return None
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return epoch + datetime.timedelta(milliseconds=ms)


def _enum(cls, value):
    if isinstance(value, str):
        try:
            return cls[value.upper()]
        except KeyError:
            raise InvalidArgument(-1, "unknown %s %r" % (cls.__name__, value))
    return cls(value)


def _sec_of_day(value):
    """'HH:MM[:SS]', a datetime.time or seconds after midnight."""
    if isinstance(value, datetime.time):
        return value.hour * 3600 + value.minute * 60 + value.second
    if isinstance(value, str):
        parts = value.split(":")
        if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
            raise InvalidArgument(-1, "time of day %r is not HH:MM[:SS]"
                                  % value)
        nums = [int(p) for p in parts] + [0]
        return nums[0] * 3600 + nums[1] * 60 + nums[2]
    return int(value)


def _days_mask(days):
    if days is None:
        return 0x7F
    if isinstance(days, int):
        return days
    mask = 0
    for day in days:
        if isinstance(day, str):
            key = day[:3].lower()
            if key not in _DAYS:
                raise InvalidArgument(-1, "unknown day %r" % day)
            mask |= 1 << _DAYS.index(key)
        else:
            mask |= 1 << int(day)
    return mask


class Retry:
    """A retry policy (chime_retry): a job's (Job(retry=...),
    chime_job_set_retry) or one enqueued run's (Scheduler.enqueue(...,
    retry=...), chime_enqueue_set_retry).  max_attempts counts every
    run, the first included (0 or 1: none); attempt n + 1 is due
    min(initial_delay_ms * multiplier ** (n - 1), max_delay_ms) plus a
    jitter in [0, jitter_ms) after attempt n failed (max_delay_ms 0: no
    cap)."""

    def __init__(self, max_attempts, initial_delay_ms=0, multiplier=1.0,
                 max_delay_ms=0, jitter_ms=0, timed_out=True):
        self.max_attempts = max_attempts
        # Whether a run that timed out is retried too
        # (chime_retry_set_timed_out).
        self.timed_out = timed_out
        self.initial_delay_ms = initial_delay_ms
        self.multiplier = multiplier
        self.max_delay_ms = max_delay_ms
        self.jitter_ms = jitter_ms

    def _apply_to(self, setter, target):
        """Builds the chime_retry and hands it to setter(target, policy)
        (chime_job_set_retry, chime_enqueue_set_retry: they copy it)."""
        p = ctypes.c_void_p()
        check(_L.chime_retry_new(ctypes.byref(p)))
        try:
            check(_L.chime_retry_set_max_attempts(p, int(self.max_attempts)))
            check(_L.chime_retry_set_initial_delay_ms(
                p, int(self.initial_delay_ms)))
            check(_L.chime_retry_set_multiplier(p, float(self.multiplier)))
            check(_L.chime_retry_set_max_delay_ms(p, int(self.max_delay_ms)))
            check(_L.chime_retry_set_jitter_ms(p, int(self.jitter_ms)))
            check(_L.chime_retry_set_timed_out(p, bool(self.timed_out)))
            check(setter(target, p))
        finally:
            _L.chime_retry_free(p)

    def _apply(self, job_ptr):
        self._apply_to(_L.chime_job_set_retry, job_ptr)

    def __eq__(self, other):
        return isinstance(other, Retry) and vars(self) == vars(other)

    def __repr__(self):
        return ("Retry(%r, initial_delay_ms=%r, multiplier=%r, "
                "max_delay_ms=%r, jitter_ms=%r)" % (
                    self.max_attempts, self.initial_delay_ms,
                    self.multiplier, self.max_delay_ms, self.jitter_ms))


# Job(shards=SHARDS_BROADCAST): one shard per live node that can run it.
SHARDS_BROADCAST = -1


class Job:
    """A job definition (chime_job): key, type and flags.  data: bytes,
    str, or any JSON-serialisable value."""

    def __init__(self, group, name, type, data=None, description=None,
                 durable=False, requests_recovery=False,
                 forbid_concurrency=False, persist_data=False,
                 timeout_ms=0, concurrency=None, starting_deadline_ms=0,
                 retry=None, queue_cap=0, shards=0, shard_params=None,
                 required_tags=(), history_level=0, shards_then=None):
        self.group, self.name, self.type = group, name, type
        self.data = to_bytes(data)
        self.description = description
        self.durable = durable
        self.requests_recovery = requests_recovery
        self.forbid_concurrency = forbid_concurrency
        # concurrency (a Concurrency) overrides forbid_concurrency.
        self.concurrency = concurrency
        self.persist_data = persist_data
        self.timeout_ms = timeout_ms
        self.starting_deadline_ms = starting_deadline_ms
        self.retry = retry  # a Retry, or None for no retries
        # FORBID_QUEUE: at most this many fires of a trigger wait (0: any).
        self.queue_cap = queue_cap
        # Sharding (docs/batch.md): a count, SHARDS_BROADCAST, or 0; the
        # parameters as "0=a,1=b" or a dict {index: text}.
        self.shards = shards
        self.shard_params = shard_params
        self.required_tags = tuple(required_tags)
        # Which runs the history records: a chime.HistoryLevel (ALL).
        self.history_level = history_level
        # chime_job_set_shards_then: (group, name) of the job a run of
        # which is enqueued once the last shard of a sharded fire ended.
        self.shards_then = tuple(shards_then) if shards_then else None
        self._build().free()  # Validates the key and type now.

    @property
    def key(self) -> Tuple[str, str]:
        return (self.group, self.name)

    def _build(self):
        """A new C chime_job; the caller frees it (_Owned.free)."""
        ptr = ctypes.c_void_p()
        errbuf = ctypes.create_string_buffer(256)
        code = _L.chime_job_new(_lib.enc(self.group), _lib.enc(self.name),
                                _lib.enc(self.type), ctypes.byref(ptr),
                                errbuf, len(errbuf))
        if code < 0:
            check(code, "job %r/%r of type %r: %s" % (
                self.group, self.name, self.type, _lib.dec(errbuf.value)))
        owned = _Owned(ptr.value, _L.chime_job_free)
        try:
            if self.description is not None:
                check(_L.chime_job_set_description(
                    ptr, _lib.enc(self.description)),
                    "description of job %r/%r: not valid UTF-8 text, or "
                    "longer than 4096 bytes" % (self.group, self.name))
            if self.data is not None:
                check(_L.chime_job_set_data(ptr, self.data, len(self.data)))
            check(_L.chime_job_set_durable(ptr, bool(self.durable)))
            check(_L.chime_job_set_requests_recovery(
                ptr, bool(self.requests_recovery)))
            conc = (int(self.concurrency) if self.concurrency is not None
                    else 1 if self.forbid_concurrency else 0)
            check(_L.chime_job_set_concurrency(ptr, conc))
            check(_L.chime_job_set_persist_data(ptr, bool(self.persist_data)))
            check(_L.chime_job_set_timeout_ms(ptr, int(self.timeout_ms)))
            check(_L.chime_job_set_starting_deadline_ms(
                ptr, int(self.starting_deadline_ms)))
            check(_L.chime_job_set_queue_cap(ptr, int(self.queue_cap)))
            check(_L.chime_job_set_history_level(
                ptr, int(self.history_level)),
                "history_level of job %r/%r: a chime.HistoryLevel (ALL, "
                "FAILURES, NONE)" % (self.group, self.name))
            if self.retry is not None:
                self.retry._apply(ptr)
            params = self.shard_params
            if isinstance(params, dict):
                params = ",".join("%d=%s" % (int(k), v)
                                  for k, v in sorted(params.items()))
            if self.shards or params:
                check(_L.chime_job_set_shards(
                    ptr, int(self.shards),
                    _lib.enc(params) if params else None),
                    "shards of job %r/%r: a count from -1 (broadcast) to "
                    "10000, parameters as '0=a,1=b'" % (self.group, self.name))
            if self.shards_then:
                check(_L.chime_job_set_shards_then(
                    ptr, _lib.enc(self.shards_then[0]),
                    _lib.enc(self.shards_then[1])),
                    "shards_then of job %r/%r: a job key (group, name)"
                    % (self.group, self.name))
            for tag in self.required_tags:
                check(_L.chime_job_add_required_tag(ptr, _lib.enc(tag)),
                      "tag %r of job %r/%r: 1 to 64 of [A-Za-z0-9_.:-], at "
                      "most 16" % (tag, self.group, self.name))
        except BaseException:
            owned.free()
            raise
        return owned

    def __repr__(self):
        return "Job(%r, %r, %r)" % (self.group, self.name, self.type)


class _Owned:
    """A C object pointer with the function that frees it."""

    def __init__(self, ptr, free_fn):
        self.ptr, self._free_fn = ptr, free_fn

    def free(self):
        if self.ptr:
            self._free_fn(self.ptr)
            self.ptr = None


class Trigger:
    """Base of the four kinds: holds the C trigger built by a subclass.
    kind: the subclass's TriggerKind."""

    kind: "TriggerKind"

    def _init_common(self, group, name):
        self.group = group or DEFAULT_GROUP
        self.name = name or "trigger-" + uuid.uuid4().hex[:16]
        self._errbuf = ctypes.create_string_buffer(512)
        self._ptr = ctypes.c_void_p()
        self._free_fn = _L.chime_trigger_free

    def _finish(self, code, start, end, priority, misfire, calendar,
                description, data, jitter_ms=None):
        check_buf(code, self._errbuf)
        p = self._ptr
        if start is not None:
            check(_L.chime_trigger_set_start_ms(p, to_ms(start)))
        if end is not None:
            check(_L.chime_trigger_set_end_ms(p, to_ms(end)))
        if priority is not None:
            check(_L.chime_trigger_set_priority(p, int(priority)))
        if misfire is not None:
            check(_L.chime_trigger_set_misfire(p, _enum(Misfire, misfire)),
                  "misfire instruction %r is not one this kind knows"
                  % (misfire,))
        if calendar is not None:
            check(_L.chime_trigger_set_calendar(p, _lib.enc(calendar)))
        if description is not None:
            check(_L.chime_trigger_set_description(p, _lib.enc(description)),
                  "trigger description: not valid UTF-8 text, or longer "
                  "than 4096 bytes")
        data = to_bytes(data)
        if data is not None:
            check(_L.chime_trigger_set_data(p, data, len(data)))
        if jitter_ms is not None:
            check(_L.chime_trigger_set_jitter_ms(p, int(jitter_ms)),
                  "jitter of %d ms: 0 up to one week, and not for a simple "
                  "trigger" % int(jitter_ms))

    @property
    def jitter_ms(self) -> int:
        """The jitter window (0: none)."""
        return _L.chime_trigger_get_jitter_ms(self._ptr)

    @property
    def key(self) -> Tuple[str, str]:
        return (self.group, self.name)

    def set_partition_key(self, key: Optional[str]) -> "Trigger":
        """The partition its runs count under in their job type's
        per-partition limit (chime_trigger_set_partition_key; None clears
        it; docs/queue.md, "Limits").  Returns self."""
        check(_L.chime_trigger_set_partition_key(
            self._ptr, None if key is None else _lib.enc(key)),
            "partition key %r: 1-190 bytes of UTF-8 text" % (key,))
        return self

    @property
    def partition_key(self) -> Optional[str]:
        """As set (None: none)."""
        v = _L.chime_trigger_get_partition_key(self._ptr)
        return None if v is None else _lib.dec(v)

    def set_timeout_ms(self, ms: int) -> "Trigger":
        """The timeout of the runs this trigger fires, overriding the
        job's (chime_trigger_set_timeout_ms); 0: the job's.  Returns self."""
        check(_L.chime_trigger_set_timeout_ms(self._ptr, int(ms)))
        return self

    @property
    def timeout_ms(self) -> int:
        return _L.chime_trigger_get_timeout_ms(self._ptr)

    def set_starting_deadline_ms(self, ms: int) -> "Trigger":
        """How late a fire of this trigger may start, overriding the job's
        (chime_trigger_set_starting_deadline_ms); 0: the job's.  A fire
        later than that is not run: MISSED.  Returns self."""
        check(_L.chime_trigger_set_starting_deadline_ms(self._ptr, int(ms)))
        return self

    @property
    def starting_deadline_ms(self) -> int:
        return _L.chime_trigger_get_starting_deadline_ms(self._ptr)

    def _for_job(self, group, name):
        """The C trigger, pointed at job (group, name)."""
        check(_L.chime_trigger_set_job(self._ptr, _lib.enc(group),
                                       _lib.enc(name)))
        return self._ptr

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr and ptr.value:
            self._free_fn(ptr)
            self._ptr = ctypes.c_void_p()

    def __repr__(self):
        return "%s(group=%r, name=%r)" % (type(self).__name__, self.group,
                                          self.name)


_COMMON = ("start", "end", "priority", "misfire", "calendar", "description",
           "data", "jitter_ms")


def _common(kw):
    unknown = set(kw) - set(_COMMON)
    if unknown:
        raise TypeError("unknown trigger option(s): %s"
                        % ", ".join(sorted(unknown)))
    return [kw.get(k) for k in _COMMON]


class Cron(Trigger):
    """Fires when a Quartz cron expression matches, read in zone tz."""

    kind = TriggerKind.CRON

    def __init__(self, expression, tz=None, group=None, name=None, **kw):
        common = _common(kw)
        self._init_common(group, name)
        self.expression, self.tz = expression, tz
        code = _L.chime_trigger_cron_new(
            _lib.enc(self.group), _lib.enc(self.name), _lib.enc(expression),
            _lib.enc(tz), ctypes.byref(self._ptr), self._errbuf,
            len(self._errbuf))
        self._finish(code, *common)


class UnixCron(Trigger):
    """Fires when a Unix (crontab) expression matches: five fields, the
    @hourly.. macros, an optional CRON_TZ=Zone prefix; read in zone tz
    (None: the prefix's zone, else UTC)."""

    kind = TriggerKind.CRON

    def __init__(self, expression, tz=None, group=None, name=None, **kw):
        common = _common(kw)
        self._init_common(group, name)
        self.expression, self.tz = expression, tz
        code = _L.chime_trigger_unix_cron_new(
            _lib.enc(self.group), _lib.enc(self.name), _lib.enc(expression),
            _lib.enc(tz), ctypes.byref(self._ptr), self._errbuf,
            len(self._errbuf))
        self._finish(code, *common)


class Recurrence(Trigger):
    """Fires at the instances of an RFC 5545 recurrence ("DTSTART;TZID=
    Zone:YYYYMMDDTHHMMSS RRULE:..."; EXDATE and RDATE lines too), in
    DTSTART's zone, from the trigger's start on."""

    kind = TriggerKind.RECURRENCE

    def __init__(self, recurrence, group=None, name=None, **kw):
        common = _common(kw)
        self._init_common(group, name)
        self.recurrence = recurrence
        code = _L.chime_trigger_recurrence_new(
            _lib.enc(self.group), _lib.enc(self.name), _lib.enc(recurrence),
            ctypes.byref(self._ptr), self._errbuf, len(self._errbuf))
        self._finish(code, *common)


class Simple(Trigger):
    """Fires at start, then every interval_ms, repeat more times
    (FOREVER, the default: indefinitely)."""

    kind = TriggerKind.SIMPLE

    def __init__(self, interval_ms=0, repeat=FOREVER, group=None, name=None,
                 **kw):
        common = _common(kw)
        self._init_common(group, name)
        self.interval_ms, self.repeat = interval_ms, repeat
        code = _L.chime_trigger_simple_new(
            _lib.enc(self.group), _lib.enc(self.name), int(interval_ms),
            int(repeat), ctypes.byref(self._ptr), self._errbuf,
            len(self._errbuf))
        self._finish(code, *common)


class CalendarInterval(Trigger):
    """Fires at start, then every interval units (a Unit or its name) of the
    calendar in zone tz."""

    kind = TriggerKind.CALENDAR_INTERVAL

    def __init__(self, interval=1, unit=Unit.DAY, tz=None, group=None,
                 name=None, preserve_hour_of_day=None,
                 skip_day_if_hour_missing=None, **kw):
        common = _common(kw)
        self._init_common(group, name)
        self.interval, self.unit, self.tz = interval, _enum(Unit, unit), tz
        code = _L.chime_trigger_calendar_interval_new(
            _lib.enc(self.group), _lib.enc(self.name), int(interval),
            self.unit, _lib.enc(tz), ctypes.byref(self._ptr), self._errbuf,
            len(self._errbuf))
        self._finish(code, *common)
        if preserve_hour_of_day is not None:
            check(_L.chime_trigger_set_preserve_hour_of_day(
                self._ptr, bool(preserve_hour_of_day)))
        if skip_day_if_hour_missing is not None:
            check(_L.chime_trigger_set_skip_day_if_hour_missing(
                self._ptr, bool(skip_day_if_hour_missing)))


class DailyTimeInterval(Trigger):
    """Fires every interval units (SECOND, MINUTE, HOUR) inside the daily
    window=(from, to) ('HH:MM[:SS]', datetime.time or seconds; inclusive)
    on days (names 'mon'..., numbers 0=Sunday, or a bit mask), in tz."""

    kind = TriggerKind.DAILY_TIME_INTERVAL

    def __init__(self, interval=1, unit=Unit.HOUR,
                 window=("00:00:00", "23:59:59"), days=None, repeat=FOREVER,
                 tz=None, group=None, name=None, **kw):
        common = _common(kw)
        self._init_common(group, name)
        self.interval, self.unit, self.tz = interval, _enum(Unit, unit), tz
        self.window = (_sec_of_day(window[0]), _sec_of_day(window[1]))
        self.days = _days_mask(days)
        code = _L.chime_trigger_daily_new(
            _lib.enc(self.group), _lib.enc(self.name), self.window[0],
            self.window[1], self.days, int(interval), self.unit, int(repeat),
            _lib.enc(tz), ctypes.byref(self._ptr), self._errbuf,
            len(self._errbuf))
        self._finish(code, *common)
