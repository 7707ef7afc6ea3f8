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


class Concurrency(enum.IntEnum):
    """chime_concurrency: whether runs of a job may overlap, cluster-wide
    (docs/policies.md)."""
    ALLOW = 0
    FORBID_QUEUE = 1  # FORBID: a fire due meanwhile runs after
    FORBID_SKIP = 2   # a fire due meanwhile is dropped, recorded SKIPPED
    REPLACE = 3       # a fire due meanwhile cancels the run, then runs
    FORBID = 1


class HistoryLevel(enum.IntEnum):
    """chime_history_level: which runs of a job the store records in its
    history (Job(history_level=...); docs/schema.md, "Bounded tables")."""
    ALL = 0       # every run (the default)
    FAILURES = 1  # the runs whose outcome is not OK
    NONE = 2      # none (a fire another node ended is still recorded)


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
    JOB_CANCEL_IGNORED = 1 << 12
    JOB_MISSED = 1 << 13
    JOB_RETRIES_EXHAUSTED = 1 << 14
    FIRE_NODE_DIED = 1 << 16
    NODE_DEAD = 1 << 17
    NODE_FENCED = 1 << 18
    STORE_OUTAGE_BEGAN = 1 << 19
    STORE_OUTAGE_ENDED = 1 << 20
    COMPLETION_REFUSED = 1 << 21
    SHARDED_FIRE_DONE = 1 << 22


class NodeState(enum.IntEnum):
    """chime_node_state: a node's drain state (Scheduler.node_state;
    docs/operations.md, "A maintenance window")."""
    ACTIVE = 0    # claims fires
    DRAINING = 1  # claims nothing; runs still going
    DRAINED = 2   # claims nothing and runs nothing


class Outcome(enum.IntEnum):
    """chime_outcome: how a run ended (the history's text is the name)."""
    OK = 0
    FAILED = 1
    TIMED_OUT = 2
    CANCELLED = 3
    SKIPPED = 4
    MISSED = 5
    RECOVERED = 6
    REQUEUED = 7
    RETRIED = 8


EVENT_ALL = 0
for _kind in EventKind:
    EVENT_ALL |= int(_kind)
del _kind
