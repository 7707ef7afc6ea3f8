"""log: the library's log messages, through Python's logging module.

A Scheduler made without log= sends every message of the C library to the
logger named "chime" (logging.getLogger("chime")), at the matching level:
ERROR, WARNING, INFO, DEBUG.  The C library is told to produce messages
down to the logger's effective level when the scheduler is made, so
configure logging first (logging.basicConfig(level=logging.INFO)), or pass
log_level=.  log=callable(level, message) replaces the logger; log=False
turns logging off.
"""

import logging

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
