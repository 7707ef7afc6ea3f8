"""chime: Python binding of libchime, a persistent, clustered job scheduler.

    import chime

    with chime.Scheduler(url="memory:", workers=32) as sched:
        @sched.job("report")
        def report(ctx):
            print(ctx.job_key, ctx.scheduled_time, ctx.json())

        sched.schedule(chime.Job("reports", "nightly", "report",
                                 data={"to": "ops"}),
                       chime.Cron("0 0 2 * * ?", tz="Asia/Shanghai"))
        ...

Standard library only: the C library is reached with ctypes (see _lib for
where libchime.so is looked for).  The library's log goes to the logging
module's logger "chime" (see chime.log).  Enumerations are IntEnums:
TriggerKind, TriggerState, Misfire, Unit, SchedulerState, EventKind,
LogLevel, Outcome, NodeState.  Exceptions derive from chime.Error (see chime.errors).
"""

from . import _lib
from .context import JobContext
from .enums import (Concurrency, EventKind, HistoryLevel, LogLevel,
                    NodeState, Outcome, SchedulerState, TriggerKind)
from .errors import *  # noqa: F401,F403 (Error and one class per code)
from .errors import Error, error_for
from .history import HistoryRecord
from .lease import Lease, LeaseSection
from .queue import QUEUE_GROUP, Enqueued
from .scheduler import (LOG_DEBUG, LOG_ERROR, LOG_INFO, LOG_WARN, SHUTDOWN,
                        STANDBY, STARTED, Event, Scheduler)
from .scheduler import EVENT_JOB_CANCEL_IGNORED, EVENT_JOB_MISSED  # noqa
from .scheduler import EVENT_JOB_RETRIES_EXHAUSTED  # noqa
from .scheduler import EVENT_SHARDED_FIRE_DONE  # noqa
from .scheduler import (EVENT_ALL, EVENT_JOB_ADDED, EVENT_JOB_REMOVED,
                        EVENT_JOB_TO_BE_EXECUTED, EVENT_JOB_VETOED,
                        EVENT_JOB_WAS_EXECUTED, EVENT_SCHEDULER_ERROR,
                        EVENT_SCHEDULER_SHUTDOWN, EVENT_SCHEDULER_STANDBY,
                        EVENT_SCHEDULER_STARTED, EVENT_TRIGGER_COMPLETED,
                        EVENT_TRIGGER_FIRED, EVENT_TRIGGER_MISFIRED)
from .triggers import (DEFAULT_GROUP, FOREVER, CalendarInterval, Cron,
                       SHARDS_BROADCAST, DailyTimeInterval, Job, Misfire,
                       Recurrence, Retry,
                       Simple, Trigger, TriggerState, Unit, UnixCron, ms_to_datetime,
                       to_ms)

__version__ = _lib.dec(_lib.lib.chime_version())
BACKFILL_GROUP = "CHIME_BACKFILL"  # CHIME_BACKFILL_GROUP
from .cron import (cron_next, describe_cron, jitter_offset_ms,  # noqa: E402
                   rrule_next)
