"""_lib: finds and loads libchime.so and declares the C prototypes.

The library is looked for, in order:
  1. the installed library: libchime.so.0 (the ABI this binding is written
     for) on the system's library path (as `meson install`, a package or
     LD_LIBRARY_PATH put it), or what ctypes.util.find_library("chime")
     finds;
  2. the file named by the environment variable CHIME_LIB;
  3. a libchime.so next to this package, then the meson build directory of
     the source tree the package sits in (build/ at the top).
Set CHIME_LIB_ONLY=1 to load CHIME_LIB and nothing else (the test suites
do, so that they test the build they belong to).  The library is loaded
with ctypes.CDLL, so every call releases the GIL: a worker thread running a
Python job can take it while the caller waits in chime_scheduler_shutdown.
"""

import ctypes
import ctypes.util
import os

_c = ctypes
_vp = _c.c_void_p
_cp = _c.c_char_p
_i = _c.c_int
_i32 = _c.c_int32
_i64 = _c.c_int64
_u = _c.c_uint
_sz = _c.c_size_t
_b = _c.c_bool
_pvp = _c.POINTER(_c.c_void_p)

# Callback types, as include/chime.h declares them.
JOB_FN = _c.CFUNCTYPE(None, _vp, _vp)
LOG_FN = _c.CFUNCTYPE(None, _vp, _i, _cp)
LOG_RECORD_FN = _c.CFUNCTYPE(None, _vp, _vp)
LISTENER_FN = _c.CFUNCTYPE(_b, _vp, _vp)

NO_FIRE_MS = -(2 ** 63)

# Enqueued runs (chime_scheduler_enqueue): the trigger group of every run,
# a buffer that holds any run's name, the return of an enqueue whose
# unique key's run existed.
QUEUE_GROUP = "CHIME_QUEUE"
RUN_NAME_LEN = 191
ENQUEUE_EXISTED = 1


SONAME = "libchime.so.0"


def _candidates():
    env = os.environ.get("CHIME_LIB")
    if env and os.environ.get("CHIME_LIB_ONLY") == "1":
        yield env
        return
    yield SONAME
    found = ctypes.util.find_library("chime")
    if found:
        yield found
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libchime.so")
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    yield os.path.join(root, "build", "libchime.so")


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(path + ": no such file")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as exc:
            errors.append(str(exc))
    raise ImportError("chime: cannot load libchime.so (set CHIME_LIB): "
                      + "; ".join(errors or ["not found"]))


lib = _load()

# (name, restype, argtypes) for every function the binding calls.
_PROTOTYPES = [
    ("chime_version", _cp, []),
    ("chime_strerror", _cp, [_i]),
    ("chime_err_name", _cp, [_i]),
    ("chime_free", None, [_vp]),
    ("chime_zone_get", _i, [_cp, _pvp]),
    ("chime_cron_from_string", _i, [_cp, _pvp, _c.POINTER(_i), _cp, _sz]),
    ("chime_cron_next", _i, [_vp, _vp, _i64, _c.POINTER(_i64)]),
    ("chime_cron_describe", _i, [_vp, _c.POINTER(_vp)]),
    ("chime_cron_free", None, [_vp]),
    ("chime_cron_from_unix", _i, [_cp, _pvp, _c.POINTER(_i), _cp, _sz]),
    ("chime_cron_get_zone_name", _cp, [_vp]),
    ("chime_key_get_jitter_offset_ms", _i64, [_cp, _cp, _i64]),
    ("chime_rrule_from_string", _i, [_cp, _pvp, _cp, _sz]),
    ("chime_rrule_next", _i, [_vp, _i64, _c.POINTER(_i64)]),
    ("chime_rrule_free", None, [_vp]),
    ("chime_calendar_from_string", _i, [_cp, _pvp, _cp, _sz]),
    ("chime_calendar_free", None, [_vp]),
    ("chime_lease_acquire", _i, [_vp, _cp, _i64, _i64, _i64, _pvp]),
    ("chime_lease_get_token", _i64, [_vp]),
    ("chime_lease_get_name", _cp, [_vp]),
    ("chime_lease_get_expires_ms", _i64, [_vp]),
    ("chime_lease_extend", _i, [_vp, _i64]),
    ("chime_lease_release", _i, [_vp]),
    ("chime_lease_is_held", _b, [_vp]),
    ("chime_lease_set_keep_alive", _i, [_vp, _b]),
    ("chime_lease_free", None, [_vp]),
    ("chime_job_new", _i, [_cp, _cp, _cp, _pvp, _cp, _sz]),
    ("chime_job_free", None, [_vp]),
    ("chime_job_set_description", _i, [_vp, _cp]),
    ("chime_job_set_data", _i, [_vp, _cp, _sz]),
    ("chime_job_set_durable", _i, [_vp, _b]),
    ("chime_job_set_requests_recovery", _i, [_vp, _b]),
    ("chime_job_set_concurrency", _i, [_vp, _i]),
    ("chime_job_set_persist_data", _i, [_vp, _b]),
    ("chime_job_set_timeout_ms", _i, [_vp, _i64]),
    ("chime_job_get_timeout_ms", _i64, [_vp]),
    ("chime_job_set_starting_deadline_ms", _i, [_vp, _i64]),
    ("chime_job_get_starting_deadline_ms", _i64, [_vp]),
    ("chime_job_set_queue_cap", _i, [_vp, _i64]),
    ("chime_job_get_queue_cap", _i64, [_vp]),
    ("chime_job_set_history_level", _i, [_vp, _i]),
    ("chime_job_get_history_level", _i, [_vp]),
    ("chime_retry_new", _i, [_pvp]),
    ("chime_retry_free", None, [_vp]),
    ("chime_retry_set_max_attempts", _i, [_vp, _i]),
    ("chime_retry_set_initial_delay_ms", _i, [_vp, _i64]),
    ("chime_retry_set_multiplier", _i, [_vp, _c.c_double]),
    ("chime_retry_set_max_delay_ms", _i, [_vp, _i64]),
    ("chime_retry_set_jitter_ms", _i, [_vp, _i64]),
    ("chime_retry_set_timed_out", _i, [_vp, _b]),
    ("chime_retry_get_max_attempts", _i, [_vp]),
    ("chime_retry_get_initial_delay_ms", _i64, [_vp]),
    ("chime_retry_get_multiplier", _c.c_double, [_vp]),
    ("chime_retry_get_max_delay_ms", _i64, [_vp]),
    ("chime_retry_get_jitter_ms", _i64, [_vp]),
    ("chime_retry_get_timed_out", _b, [_vp]),
    ("chime_job_set_retry", _i, [_vp, _vp]),
    ("chime_job_get_retry", _vp, [_vp]),
    ("chime_job_set_shards", _i, [_vp, _i, _cp]),
    ("chime_job_get_shard_count", _i, [_vp]),
    ("chime_job_get_shard_params", _cp, [_vp]),
    ("chime_job_add_required_tag", _i, [_vp, _cp]),
    ("chime_job_get_required_tags", _cp, [_vp]),
    ("chime_job_get_data", _vp, [_vp, _c.POINTER(_sz)]),
    ("chime_trigger_simple_new", _i,
     [_cp, _cp, _i64, _i32, _pvp, _cp, _sz]),
    ("chime_trigger_cron_new", _i, [_cp, _cp, _cp, _cp, _pvp, _cp, _sz]),
    ("chime_trigger_unix_cron_new", _i,
     [_cp, _cp, _cp, _cp, _pvp, _cp, _sz]),
    ("chime_trigger_set_jitter_ms", _i, [_vp, _i64]),
    ("chime_trigger_recurrence_new", _i, [_cp, _cp, _cp, _pvp, _cp, _sz]),
    ("chime_trigger_get_jitter_ms", _i64, [_vp]),
    ("chime_trigger_calendar_interval_new", _i,
     [_cp, _cp, _i32, _i, _cp, _pvp, _cp, _sz]),
    ("chime_trigger_daily_new", _i,
     [_cp, _cp, _i32, _i32, _u, _i32, _i, _i32, _cp, _pvp, _cp, _sz]),
    ("chime_trigger_free", None, [_vp]),
    ("chime_trigger_set_job", _i, [_vp, _cp, _cp]),
    ("chime_trigger_set_start_ms", _i, [_vp, _i64]),
    ("chime_trigger_set_end_ms", _i, [_vp, _i64]),
    ("chime_trigger_set_priority", _i, [_vp, _i]),
    ("chime_trigger_set_timeout_ms", _i, [_vp, _i64]),
    ("chime_trigger_get_timeout_ms", _i64, [_vp]),
    ("chime_trigger_set_starting_deadline_ms", _i, [_vp, _i64]),
    ("chime_trigger_get_starting_deadline_ms", _i64, [_vp]),
    ("chime_trigger_set_misfire", _i, [_vp, _i]),
    ("chime_trigger_set_calendar", _i, [_vp, _cp]),
    ("chime_trigger_set_description", _i, [_vp, _cp]),
    ("chime_trigger_set_partition_key", _i, [_vp, _cp]),
    ("chime_trigger_get_partition_key", _cp, [_vp]),
    ("chime_trigger_set_data", _i, [_vp, _cp, _sz]),
    ("chime_trigger_set_preserve_hour_of_day", _i, [_vp, _b]),
    ("chime_trigger_set_skip_day_if_hour_missing", _i, [_vp, _b]),
    ("chime_trigger_get_next_fire_ms", _i64, [_vp]),
    ("chime_trigger_get_prev_fire_ms", _i64, [_vp]),
    ("chime_trigger_get_times_triggered", _i64, [_vp]),
    ("chime_trigger_get_status", _i, [_vp]),
    ("chime_trigger_get_kind", _i, [_vp]),
    ("chime_config_new", _i, [_pvp]),
    ("chime_config_free", None, [_vp]),
    ("chime_config_set_store_url", _i, [_vp, _cp]),
    ("chime_config_set_scheduler_name", _i, [_vp, _cp]),
    ("chime_config_set_instance_id", _i, [_vp, _cp]),
    ("chime_config_set_workers", _i, [_vp, _u]),
    ("chime_config_set_idle_wait_ms", _i, [_vp, _i64]),
    ("chime_config_set_batch_size", _i, [_vp, _u]),
    ("chime_config_set_local_queue", _i, [_vp, _u]),
    ("chime_config_set_batch_window_ms", _i, [_vp, _i64]),
    ("chime_config_set_claim_ahead_ms", _i, [_vp, _i64]),
    ("chime_config_set_misfire_threshold_ms", _i, [_vp, _i64]),
    ("chime_config_set_checkin_interval_ms", _i, [_vp, _i64]),
    ("chime_config_set_cancel_grace_ms", _i, [_vp, _i64]),
    ("chime_config_add_tag", _i, [_vp, _cp]),
    ("chime_config_set_log", _i, [_vp, LOG_FN, _vp, _i]),
    ("chime_scheduler_new", _i, [_vp, _pvp, _cp, _sz]),
    ("chime_scheduler_register_job_type", _i, [_vp, _cp, JOB_FN, _vp, _vp]),
    ("chime_scheduler_start", _i, [_vp]),
    ("chime_scheduler_standby", _i, [_vp]),
    ("chime_scheduler_shutdown", _i, [_vp, _i64]),
    ("chime_scheduler_free", None, [_vp]),
    ("chime_scheduler_get_state", _i, [_vp]),
    ("chime_scheduler_get_name", _cp, [_vp]),
    ("chime_scheduler_get_instance_id", _cp, [_vp]),
    ("chime_scheduler_get_running_jobs", _u, [_vp]),
    ("chime_scheduler_add_job", _i, [_vp, _vp, _b]),
    ("chime_scheduler_remove_job", _i, [_vp, _cp, _cp]),
    ("chime_scheduler_get_job", _i, [_vp, _cp, _cp, _pvp]),
    ("chime_scheduler_run_job", _i, [_vp, _cp, _cp, _cp, _sz, _cp]),
    ("chime_job_set_shards_then", _i, [_vp, _cp, _cp]),
    ("chime_enqueue_new", _i, [_pvp]),
    ("chime_enqueue_free", None, [_vp]),
    ("chime_enqueue_set_data", _i, [_vp, _cp, _sz]),
    ("chime_enqueue_set_run_at_ms", _i, [_vp, _i64]),
    ("chime_enqueue_set_priority", _i, [_vp, _i]),
    ("chime_enqueue_set_timeout_ms", _i, [_vp, _i64]),
    ("chime_enqueue_set_unique_key", _i, [_vp, _cp]),
    ("chime_enqueue_set_partition_key", _i, [_vp, _cp]),
    ("chime_enqueue_set_unique_for_ms", _i, [_vp, _i64]),
    ("chime_enqueue_set_retry", _i, [_vp, _vp]),
    ("chime_scheduler_enqueue", _i, [_vp, _cp, _cp, _vp, _cp, _sz]),
    ("chime_scheduler_enqueue_many", _i,
     [_vp, _cp, _cp, _pvp, _sz, _c.POINTER(_i), _cp, _sz]),
    ("chime_scheduler_interrupt", _i, [_vp, _cp, _cp, _c.POINTER(_sz)]),
    ("chime_scheduler_interrupt_fire", _i, [_vp, _i64]),
    ("chime_scheduler_set_limit", _i, [_vp, _cp, _i, _i, _i, _i64]),
    ("chime_scheduler_get_limit", _i, [_vp, _cp, _c.POINTER(_i),
                                       _c.POINTER(_i), _c.POINTER(_i),
                                       _c.POINTER(_i64)]),
    ("chime_scheduler_set_partition_limit", _i, [_vp, _cp, _cp, _i, _i,
                                                 _i64]),
    ("chime_scheduler_get_partition_limit", _i, [_vp, _cp, _cp, _sz,
                                                 _c.POINTER(_i),
                                                 _c.POINTER(_i),
                                                 _c.POINTER(_i64)]),
    ("chime_scheduler_clear_limit", _i, [_vp, _cp]),
    ("chime_scheduler_drain", _i, [_vp, _cp, _i64]),
    ("chime_scheduler_undrain", _i, [_vp, _cp]),
    ("chime_scheduler_node_state", _i, [_vp, _cp, _c.POINTER(_i)]),
    ("chime_scheduler_schedule", _i,
     [_vp, _vp, _vp, _u, _c.POINTER(_i64)]),
    ("chime_scheduler_unschedule", _i, [_vp, _cp, _cp]),
    ("chime_scheduler_reschedule", _i,
     [_vp, _cp, _cp, _vp, _c.POINTER(_i64)]),
    ("chime_scheduler_get_trigger", _i, [_vp, _cp, _cp, _pvp]),
    ("chime_scheduler_get_trigger_status", _i,
     [_vp, _cp, _cp, _c.POINTER(_i)]),
    ("chime_scheduler_errmsg", _cp, [_vp]),
    ("chime_scheduler_list_jobs", _i, [_vp, _i, _cp, _pvp, _c.POINTER(_sz)]),
    ("chime_scheduler_list_triggers", _i,
     [_vp, _i, _cp, _pvp, _c.POINTER(_sz)]),
    ("chime_key_free_array", None, [_vp, _sz]),
    ("chime_scheduler_pause_trigger", _i, [_vp, _cp, _cp]),
    ("chime_scheduler_resume_trigger", _i, [_vp, _cp, _cp]),
    ("chime_scheduler_pause_job", _i, [_vp, _cp, _cp]),
    ("chime_scheduler_resume_job", _i, [_vp, _cp, _cp]),
    ("chime_scheduler_pause_triggers", _i, [_vp, _i, _cp]),
    ("chime_scheduler_resume_triggers", _i, [_vp, _i, _cp]),
    ("chime_scheduler_pause_all", _i, [_vp]),
    ("chime_scheduler_resume_all", _i, [_vp]),
    ("chime_scheduler_reload_zones", _i, [_vp]),
    ("chime_scheduler_add_calendar", _i, [_vp, _cp, _vp, _b, _b]),
    ("chime_scheduler_remove_calendar", _i, [_vp, _cp]),
    ("chime_scheduler_add_listener", _i, [_vp, _u, LISTENER_FN, _vp, _vp]),
    ("chime_event_get_kind", _i, [_vp]),
    ("chime_event_get_ctx", _vp, [_vp]),
    ("chime_event_get_job_group", _cp, [_vp]),
    ("chime_event_get_job_name", _cp, [_vp]),
    ("chime_event_get_error", _i, [_vp]),
    ("chime_event_get_message", _cp, [_vp]),
    ("chime_event_get_trigger_group", _cp, [_vp]),
    ("chime_event_get_trigger_name", _cp, [_vp]),
    ("chime_event_get_fire_id", _i64, [_vp]),
    ("chime_event_get_node", _cp, [_vp]),
    ("chime_event_get_lateness_ms", _i64, [_vp]),
    ("chime_event_get_misfire_policy", _i, [_vp]),
    ("chime_config_set_log_record", _i, [_vp, LOG_RECORD_FN, _vp, _i]),
    ("chime_log_record_get_level", _i, [_vp]),
    ("chime_log_record_get_message", _cp, [_vp]),
    ("chime_log_record_get_event", _cp, [_vp]),
    ("chime_log_record_get_trigger_group", _cp, [_vp]),
    ("chime_log_record_get_trigger_name", _cp, [_vp]),
    ("chime_log_record_get_job_group", _cp, [_vp]),
    ("chime_log_record_get_job_name", _cp, [_vp]),
    ("chime_log_record_get_fire_id", _i64, [_vp]),
    ("chime_log_record_get_node", _cp, [_vp]),
    ("chime_log_record_get_error", _i, [_vp]),
    ("chime_scheduler_metrics", _i, [_vp, _pvp]),
    ("chime_metrics_free", None, [_vp]),
    ("chime_metrics_get_counter", _c.c_uint64, [_vp, _i]),
    ("chime_metrics_get_gauge", _c.c_double, [_vp, _i]),
    ("chime_metrics_get_runs", _c.c_uint64, [_vp, _cp, _cp, _i]),
    ("chime_metrics_to_prometheus", _i, [_vp, _c.POINTER(_c.c_void_p)]),
    ("chime_scheduler_history", _i,
     [_vp, _cp, _cp, _cp, _cp, _i, _i64, _i64, _i64, _sz, _pvp]),
    ("chime_history_get_count", _sz, [_vp]),
    ("chime_history_get_id", _i64, [_vp, _sz]),
    ("chime_history_get_fire_id", _i64, [_vp, _sz]),
    ("chime_history_get_job_group", _cp, [_vp, _sz]),
    ("chime_history_get_job_name", _cp, [_vp, _sz]),
    ("chime_history_get_trigger_group", _cp, [_vp, _sz]),
    ("chime_history_get_trigger_name", _cp, [_vp, _sz]),
    ("chime_history_get_node", _cp, [_vp, _sz]),
    ("chime_history_get_outcome", _i, [_vp, _sz]),
    ("chime_history_get_scheduled_ms", _i64, [_vp, _sz]),
    ("chime_history_get_started_ms", _i64, [_vp, _sz]),
    ("chime_history_get_finished_ms", _i64, [_vp, _sz]),
    ("chime_history_get_error", _i, [_vp, _sz]),
    ("chime_history_get_message", _cp, [_vp, _sz]),
    ("chime_history_is_recovering", _b, [_vp, _sz]),
    ("chime_history_get_data", _vp, [_vp, _sz, _c.POINTER(_sz)]),
    ("chime_history_free", None, [_vp]),
    ("chime_trigger_get_job_group", _cp, [_vp]),
    ("chime_trigger_get_job_name", _cp, [_vp]),
    ("chime_ctx_get_job_group", _cp, [_vp]),
    ("chime_ctx_get_job_name", _cp, [_vp]),
    ("chime_ctx_get_job_type", _cp, [_vp]),
    ("chime_ctx_get_trigger_group", _cp, [_vp]),
    ("chime_ctx_get_trigger_name", _cp, [_vp]),
    ("chime_ctx_get_scheduled_ms", _i64, [_vp]),
    ("chime_ctx_get_attempt", _i, [_vp]),
    ("chime_ctx_get_shard", _i, [_vp, _c.POINTER(_i), _c.POINTER(_i)]),
    ("chime_ctx_get_shard_param", _cp, [_vp]),
    ("chime_ctx_get_shard_fire_id", _i64, [_vp]),
    ("chime_ctx_checkpoint", _i, [_vp, _cp, _sz]),
    ("chime_ctx_checkpoint_get", _i, [_vp, _c.POINTER(_vp),
                                      _c.POINTER(_sz)]),
    ("chime_ctx_get_fire_ms", _i64, [_vp]),
    ("chime_ctx_get_prev_fire_ms", _i64, [_vp]),
    ("chime_ctx_get_next_fire_ms", _i64, [_vp]),
    ("chime_ctx_get_fire_id", _i64, [_vp]),
    ("chime_ctx_is_recovering", _b, [_vp]),
    ("chime_ctx_is_backfill", _b, [_vp]),
    ("chime_scheduler_backfill", _i,
     [_vp, _cp, _cp, _i64, _i64, _sz, _i64, _c.POINTER(_sz)]),
    ("chime_scheduler_backfill_cancel", _i,
     [_vp, _cp, _cp, _c.POINTER(_sz)]),
    ("chime_ctx_get_times_triggered", _i64, [_vp]),
    ("chime_ctx_get_data", _vp, [_vp, _c.POINTER(_sz)]),
    ("chime_ctx_get_job_data", _vp, [_vp, _c.POINTER(_sz)]),
    ("chime_ctx_set_job_data", _i, [_vp, _cp, _sz]),
    ("chime_ctx_is_still_owned", _b, [_vp]),
    ("chime_ctx_check_owned", _i, [_vp]),
    ("chime_ctx_is_cancelled", _b, [_vp]),
    ("chime_ctx_wait_cancelled", _i, [_vp, _i64]),
    ("chime_ctx_fail", _i, [_vp, _cp]),
]

for _name, _res, _args in _PROTOTYPES:
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

# Transactional completion (include/chime-mysql.h): only in a library built
# with the MySQL store.  HAVE_MYSQL_TX says whether it is there.
_MYSQL_PROTOTYPES = [
    ("chime_mysql_tx_begin", _i, [_vp, _pvp]),
    ("chime_mysql_tx_execute", _i,
     [_vp, _cp, _c.POINTER(_cp), _sz, _c.POINTER(_c.c_uint64)]),
    ("chime_mysql_tx_commit", _i, [_vp]),
    ("chime_mysql_tx_rollback", _i, [_vp]),
    ("chime_mysql_tx_errmsg", _cp, [_vp]),
    ("chime_mysql_tx_enqueue", _i, [_vp, _cp, _cp, _vp, _cp, _sz]),
    ("chime_ctx_complete_with", _i, [_vp, _cp, _c.POINTER(_cp), _sz]),
]
HAVE_MYSQL_TX = hasattr(lib, "chime_mysql_tx_begin")
if HAVE_MYSQL_TX:
    for _name, _res, _args in _MYSQL_PROTOTYPES:
        _fn = getattr(lib, _name)
        _fn.restype = _res
        _fn.argtypes = _args


# The range of each C integer type an argument may have: ctypes would
# silently keep only the low bits (2**32 + 4 workers would be 4).
def _int_range(ctype):
    bits = ctypes.sizeof(ctype) * 8
    if ctype(-1).value < 0:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


_INT_TYPES = (_i, _i32, _i64, _u, _sz)


def _checked(fn, name, argtypes):
    ranges = [_int_range(t) if t in _INT_TYPES else None for t in argtypes]
    if not any(ranges):
        return fn

    def call(*args):
        for pos, (arg, rng) in enumerate(zip(args, ranges)):
            if rng is None or isinstance(arg, bool) or \
                    not isinstance(arg, int):
                continue
            if not rng[0] <= arg <= rng[1]:
                raise OverflowError(
                    "%s: argument %d is %d, outside %d..%d"
                    % (name, pos + 1, arg, rng[0], rng[1]))
        return fn(*args)
    call.__name__ = name
    return call


for _name, _res, _args in _PROTOTYPES:
    setattr(lib, _name, _checked(getattr(lib, _name), _name, _args))


class ChimeKey(ctypes.Structure):
    """struct chime_key: one (group, name) pair in a list."""
    _fields_ = [("group", _cp), ("name", _cp)]


def enc(text):
    """Encodes an optional str (or bytes) for a const char * argument.
    Anything else is a TypeError, and a NUL character a ValueError: C would
    read the text only up to it ("a\\x00evil" would be stored as "a")."""
    if text is None:
        return None
    if isinstance(text, str):
        raw = text.encode("utf-8")
    elif isinstance(text, bytes):
        raw = text
    else:
        raise TypeError("expected a str, got %s" % type(text).__name__)
    if b"\x00" in raw:
        raise ValueError("text contains a NUL character: %r" % (text,))
    return raw


def dec(raw):
    """Decodes a borrowed C string (bytes or None) to str."""
    return None if raw is None else raw.decode("utf-8", "replace")


def read_bytes(ptr, length):
    """Copies length bytes at ptr (a void * result) into a bytes object."""
    if not ptr or not length:
        return b""
    return ctypes.string_at(ptr, length)
