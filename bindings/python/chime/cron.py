"""cron: checks and explains a cron expression without a scheduler.

    chime.cron_next("0 30 * * * ?", tz="America/New_York", count=3)
    chime.describe_cron("0 15 10 ? * MON-FRI")
    # -> "at 10:15:00, on Monday-Friday"
    chime.cron_next("30 2 * * 1-5", tz="Europe/Paris", unix=True, count=3)
    chime.cron_next("0 2 * * *", unix=True, jitter_ms=600000, key=("g", "n"))
"""

from __future__ import annotations

import ctypes
import time
from typing import Any

from . import _lib
from .errors import check, check_buf
from .triggers import to_ms

_L = _lib.lib


def _compile(expression, unix=False):
    errbuf = ctypes.create_string_buffer(512)
    col = ctypes.c_int()
    cron = ctypes.c_void_p()
    fn = _L.chime_cron_from_unix if unix else _L.chime_cron_from_string
    check_buf(fn(_lib.enc(expression), ctypes.byref(cron), ctypes.byref(col),
                 errbuf, len(errbuf)), errbuf)
    return cron


def rrule_next(text: str, after: Any = None, count: int = 1) -> Any:
    """The next count instances (epoch ms) strictly after after (epoch ms or
    datetime; default now) of an RFC 5545 recurrence ("DTSTART;TZID=Zone:
    YYYYMMDDTHHMMSS RRULE:..."; DTSTART is the first instance); fewer when
    it ends."""
    errbuf = ctypes.create_string_buffer(512)
    rule = ctypes.c_void_p()
    check_buf(_L.chime_rrule_from_string(_lib.enc(text), ctypes.byref(rule),
                                         errbuf, len(errbuf)), errbuf)
    t = to_ms(after) if after is not None else int(time.time() * 1000)
    out = []
    try:
        nxt = ctypes.c_int64()
        for _ in range(count):
            if _L.chime_rrule_next(rule, t, ctypes.byref(nxt)) != 0:
                break
            t = nxt.value
            out.append(t)
    finally:
        _L.chime_rrule_free(rule)
    return out


def jitter_offset_ms(group: str, name: str, jitter_ms: int) -> int:
    """The offset in [0, jitter_ms) a trigger with key (group, name) moves
    its fires by (chime_key_get_jitter_offset_ms)."""
    return _L.chime_key_get_jitter_offset_ms(_lib.enc(group), _lib.enc(name),
                                     int(jitter_ms))


def describe_cron(expression: str, unix: bool = False) -> str:
    """An English description of the expression (ParseError when bad);
    unix=True reads it as Unix cron."""
    cron = _compile(expression, unix)
    text = ctypes.c_void_p()
    try:
        check(_L.chime_cron_describe(cron, ctypes.byref(text)))
        try:
            return _lib.dec(ctypes.string_at(text))
        finally:
            _L.chime_free(text)
    finally:
        _L.chime_cron_free(cron)


def cron_next(expression: str, tz: Any = None, after: Any = None,
              count: int = 1, unix: bool = False, jitter_ms: int = 0,
              key: Any = None) -> Any:
    """The next count fire times (epoch ms) strictly after after (epoch ms
    or datetime; default now), read in zone tz (default: a Unix
    expression's CRON_TZ= zone, else UTC); fewer when the expression stops
    firing.  unix=True reads it as Unix cron.  jitter_ms with key (group,
    name): the times a trigger with that key and jitter fires at."""
    cron = _compile(expression, unix)
    try:
        prefix = _L.chime_cron_get_zone_name(cron)
        name = tz or (_lib.dec(prefix) if prefix else "UTC")
        zone = ctypes.c_void_p()
        check(_L.chime_zone_get(_lib.enc(name), ctypes.byref(zone)),
              "time zone %r" % (name,))
        d = jitter_offset_ms(key[0], key[1], jitter_ms) if key else 0
        t = (to_ms(after) if after is not None
             else int(time.time() * 1000)) - d
        out = []
        nxt = ctypes.c_int64()
        for _ in range(count):
            if _L.chime_cron_next(cron, zone, t, ctypes.byref(nxt)) == -7:
                break
            t = nxt.value
            out.append(t + d)
    finally:
        _L.chime_cron_free(cron)
    return out
