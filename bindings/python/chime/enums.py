"""enums: the C library's enumerations as IntEnums.

Each member is an int (it compares equal to, and may be passed wherever the
binding takes, the C value), and prints by name.  Misfire, Unit and
TriggerState live in chime.triggers; all are exported by the package.
"""

import enum


class TriggerKind(enum.IntEnum):
    """chime_trigger_kind: the four kinds of trigger."""
    SIMPLE = 1
    CRON = 2
    CALENDAR_INTERVAL = 3
    DAILY_TIME_INTERVAL = 4
    RECURRENCE = 5


class SchedulerState(enum.IntEnum):
    """chime_scheduler_state."""
    STANDBY = 0
    STARTED = 1
    SHUTDOWN = 2


class LogLevel(enum.IntEnum):
    """chime_log_level (more verbose levels are larger)."""
    ERROR = 0
    WARN = 1
    INFO = 2
    DEBUG = 3


class EventKind(enum.IntEnum):
    """chime_event_kind: one bit per kind (CHIME_EVENT_MAP in chime.h).  A
    listener's mask is an OR of kinds (an int); EVENT_ALL is every kind."""
    TRIGGER_FIRED = 1 << 0
    JOB_TO_BE_EXECUTED = 1 << 1
    JOB_VETOED = 1 << 2
    JOB_WAS_EXECUTED = 1 << 3
    TRIGGER_COMPLETED = 1 << 4
    TRIGGER_MISFIRED = 1 << 5
    SCHEDULER_STARTED = 1 << 6
    SCHEDULER_STANDBY = 1 << 7
    SCHEDULER_SHUTDOWN = 1 << 8
    JOB_ADDED = 1 << 9
    JOB_REMOVED = 1 << 10
    SCHEDULER_ERROR = 1 << 11


EVENT_ALL = 0
for _kind in EventKind:
    EVENT_ALL |= int(_kind)
del _kind
