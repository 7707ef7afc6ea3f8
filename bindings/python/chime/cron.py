"""cron: checks and explains a cron expression without a scheduler.

    chime.cron_next("0 30 * * * ?", tz="America/New_York", count=3)
    chime.describe_cron("0 15 10 ? * MON-FRI")
    # -> "at 10:15:00, on Monday-Friday"
"""

from __future__ import annotations

import ctypes
import time
from typing import Any

from . import _lib
from .errors import check, check_buf
from .triggers import to_ms

_L = _lib.lib


def _compile(expression):
    errbuf = ctypes.create_string_buffer(512)
    col = ctypes.c_int()
    cron = ctypes.c_void_p()
    check_buf(_L.chime_cron_from_string(_lib.enc(expression),
                                        ctypes.byref(cron), ctypes.byref(col),
                                        errbuf, len(errbuf)), errbuf)
    return cron


def describe_cron(expression: str) -> str:
    """An English description of the expression (ParseError when bad)."""
    cron = _compile(expression)
    text = ctypes.c_void_p()
    try:
        check(_L.chime_cron_describe(cron, ctypes.byref(text)))
        try:
            return _lib.dec(ctypes.string_at(text))
        finally:
            _L.chime_free(text)
    finally:
        _L.chime_cron_free(cron)


def cron_next(expression: str, tz: str = "UTC", after: Any = None,
              count: int = 1) -> Any:
    """The next count fire times (epoch ms) strictly after after (epoch ms
    or datetime; default now), read in zone tz; fewer when the expression
    stops firing."""
    zone = ctypes.c_void_p()
    check(_L.chime_zone_get(_lib.enc(tz), ctypes.byref(zone)),
          "time zone %r" % (tz,))
    cron = _compile(expression)
    t = to_ms(after) if after is not None else int(time.time() * 1000)
    out = []
    try:
        nxt = ctypes.c_int64()
        for _ in range(count):
            if _L.chime_cron_next(cron, zone, t, ctypes.byref(nxt)) == -7:
                break
            t = nxt.value
            out.append(t)
    finally:
        _L.chime_cron_free(cron)
    return out
