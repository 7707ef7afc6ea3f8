"""log: the library's log messages, through Python's logging module.

A Scheduler made without log= sends every message of the C library to the
logger named "chime" (logging.getLogger("chime")), at the matching level:
ERROR, WARNING, INFO, DEBUG.  The C library is told to produce messages
down to the logger's effective level when the scheduler is made, so
configure logging first (logging.basicConfig(level=logging.INFO)), or pass
log_level=.  log=callable(level, message) replaces the logger; log=False
turns logging off.

By default the structured log (chime_config_set_log_record) is used: each
record carries its fields as the LogRecord's extra attributes chime_event
("NODE_DEAD", "TRIGGER_MISFIRED", "RUN_FAILED", "LOG", ...),
chime_trigger and chime_job ("GROUP.NAME" or None), chime_fire_id (0: none),
chime_node (an instance id) and chime_error (a CHIME_E* code, 0: none), for
a formatter or a JSON log handler to use.
"""

import logging

from . import _lib
from .enums import LogLevel

logger = logging.getLogger("chime")

_TO_LOGGING = {
    LogLevel.ERROR: logging.ERROR,
    LogLevel.WARN: logging.WARNING,
    LogLevel.INFO: logging.INFO,
    LogLevel.DEBUG: logging.DEBUG,
}


def log_to_logging(level: int, message: str) -> None:
    """A log= callable that passes one message to the "chime" logger."""
    logger.log(_TO_LOGGING.get(level, logging.WARNING), "%s", message)


def c_level_for(log: "logging.Logger" = logger) -> LogLevel:
    """The C log level that produces what the logger would print."""
    effective = log.getEffectiveLevel()
    if effective <= logging.DEBUG:
        return LogLevel.DEBUG
    if effective <= logging.INFO:
        return LogLevel.INFO
    if effective <= logging.WARNING:
        return LogLevel.WARN
    return LogLevel.ERROR


def _key(group, name):
    group, name = _lib.dec(group), _lib.dec(name)
    return None if group is None else "%s.%s" % (group, name)


def record_extra(record_ptr) -> dict:
    """The fields of a C chime_log_record, as logging's extra= dict."""
    L = _lib.lib
    return {
        "chime_event": _lib.dec(L.chime_log_record_get_event(record_ptr)),
        "chime_trigger": _key(
            L.chime_log_record_get_trigger_group(record_ptr),
            L.chime_log_record_get_trigger_name(record_ptr)),
        "chime_job": _key(L.chime_log_record_get_job_group(record_ptr),
                          L.chime_log_record_get_job_name(record_ptr)),
        "chime_fire_id": L.chime_log_record_get_fire_id(record_ptr),
        "chime_node": _lib.dec(L.chime_log_record_get_node(record_ptr)),
        "chime_error": L.chime_log_record_get_error(record_ptr),
    }


def record_to_logging(record_ptr) -> None:
    """Passes one structured C record to the "chime" logger, its fields as
    extra attributes."""
    L = _lib.lib
    level = L.chime_log_record_get_level(record_ptr)
    logger.log(_TO_LOGGING.get(level, logging.WARNING), "%s",
               _lib.dec(L.chime_log_record_get_message(record_ptr)),
               extra=record_extra(record_ptr))
