/*
 * test-metrics.c: the scheduler's metrics, alert events and structured log,
 * each produced by the situation it names: runs that succeed, fail and are
 * vetoed (runs_total by job and outcome, runs started, fires claimed, the
 * lateness, run-time and store-call histograms), a late start (a misfire:
 * its counter by policy, its event with trigger, job, lateness and policy,
 * its structured log line), the Prometheus text, outcome names, and NULL
 * handles.
 *
 * The same source builds two runners (tests/meson.build): engine/metrics on
 * the memory store and, with CHIME_TEST_MYSQL, engine/metrics-mysql on the
 * throwaway MariaDB (own table prefix chime_om_, emptied on open).
 *
 * Timing: every wait is on a condition variable with a wide deadline; the
 * late start keeps the scheduler in standby well past the misfire
 * threshold (the one sleep that must let time pass).
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 20000

static char store_url[2048] = "memory:";
/* The interval of the triggers schedule() makes. */
static int64_t interval_ms = 30;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

/* What the listener and the structured log saw. */
static struct {
  int done; /* JOB_WAS_EXECUTED + JOB_VETOED */
  int misfired;
  char mis_trigger[64], mis_job[64], mis_node[128];
  int64_t mis_lateness;
  int mis_policy;
  int log_misfires; /* structured TRIGGER_MISFIRED records */
  char log_trigger[64], log_job[64], log_node[128];
  int log_failed; /* structured RUN_FAILED records */
  int64_t log_fire_id;
  int log_error;
} seen;

static void nap_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Waits until *counter >= n (mu not held).  True when reached. */
static bool wait_for(const int *counter, int n) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&mu);
  while (*counter < n)
    if (pthread_cond_timedwait(&cond, &mu, &dl) == ETIMEDOUT)
      break;
  bool ok = *counter >= n;
  pthread_mutex_unlock(&mu);
  return ok;
}

static void ok_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
}

static void bad_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  chime_ctx_fail(ctx, "boom");
}

static bool listener(const chime_event *ev, void *user_data) {
  (void)user_data;
  chime_event_kind kind = chime_event_get_kind(ev);
  pthread_mutex_lock(&mu);
  if (kind == CHIME_EVENT_JOB_WAS_EXECUTED || kind == CHIME_EVENT_JOB_VETOED)
    seen.done++;
  if (kind == CHIME_EVENT_TRIGGER_MISFIRED) {
    seen.misfired++;
    snprintf(seen.mis_trigger, sizeof seen.mis_trigger, "%s.%s",
             chime_event_get_trigger_group(ev),
             chime_event_get_trigger_name(ev));
    snprintf(seen.mis_job, sizeof seen.mis_job, "%s.%s",
             chime_event_get_job_group(ev), chime_event_get_job_name(ev));
    snprintf(seen.mis_node, sizeof seen.mis_node, "%s",
             chime_event_get_node(ev));
    seen.mis_lateness = chime_event_get_lateness_ms(ev);
    seen.mis_policy = chime_event_get_misfire_policy(ev);
  }
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mu);
  /* Veto the fires of job g.veto. */
  const chime_ctx *ctx = chime_event_get_ctx(ev);
  return kind == CHIME_EVENT_TRIGGER_FIRED && ctx &&
         strcmp(chime_ctx_get_job_name(ctx), "veto") == 0;
}

static void log_record(void *user_data, const chime_log_record *rec) {
  (void)user_data;
  const char *event = chime_log_record_get_event(rec);
  pthread_mutex_lock(&mu);
  if (strcmp(event, "TRIGGER_MISFIRED") == 0) {
    seen.log_misfires++;
    snprintf(seen.log_trigger, sizeof seen.log_trigger, "%s.%s",
             chime_log_record_get_trigger_group(rec),
             chime_log_record_get_trigger_name(rec));
    snprintf(seen.log_job, sizeof seen.log_job, "%s.%s",
             chime_log_record_get_job_group(rec),
             chime_log_record_get_job_name(rec));
    snprintf(seen.log_node, sizeof seen.log_node, "%s",
             chime_log_record_get_node(rec));
  } else if (strcmp(event, "RUN_FAILED") == 0) {
    seen.log_failed++;
    seen.log_fire_id = chime_log_record_get_fire_id(rec);
    seen.log_error = chime_log_record_get_error(rec);
  }
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mu);
}

static chime_scheduler *make(int64_t misfire_threshold_ms) {
  memset(&seen, 0, sizeof seen);
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_store_url(cfg, store_url), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_instance_id(cfg, "metrics-node"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_workers(cfg, 4), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 100), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_config_set_misfire_threshold_ms(cfg, misfire_threshold_ms), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_config_set_log_record(cfg, log_record, NULL, CHIME_LOG_INFO), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "ok", ok_job, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "bad", bad_job, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_ALL, listener, NULL, NULL),
      0);
  return s;
}

/* Schedules job g.NAME of type with a trigger t.NAME firing 1 + repeat
 * times every interval_ms from start_ms, with misfire instruction mis. */
static void schedule(chime_scheduler *s, const char *name, const char *type,
                     int repeat, int64_t start_ms, chime_misfire mis) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", name, type, &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("t", name, interval_ms, repeat, &t, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", name), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, start_ms), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_misfire(t, mis), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
}

static void test_metrics_count_runs_by_job_and_outcome(void) {
  chime_scheduler *s = make(60000);
  int64_t start = chime_test_wall_ms() + 100;
  schedule(s, "ok", "ok", 2, start, CHIME_MISFIRE_SMART);
  schedule(s, "bad", "bad", 2, start, CHIME_MISFIRE_SMART);
  schedule(s, "veto", "ok", 2, start, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&seen.done, 9));
  CU_ASSERT_TRUE(wait_for(&seen.log_failed, 3));
  /* The last completions are written before shutdown returns. */
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_metrics *m = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(s, &m), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_runs(m, "g", "ok", CHIME_OUTCOME_OK), 3);
  CU_ASSERT_EQUAL(chime_metrics_get_runs(m, "g", "ok", CHIME_OUTCOME_FAILED),
                  0);
  CU_ASSERT_EQUAL(chime_metrics_get_runs(m, "g", "bad", CHIME_OUTCOME_FAILED),
                  3);
  CU_ASSERT_EQUAL(chime_metrics_get_runs(m, "g", "veto", CHIME_OUTCOME_SKIPPED),
                  3);
  CU_ASSERT_EQUAL(chime_metrics_get_runs(m, NULL, NULL, CHIME_OUTCOME_OK), 3);
  CU_ASSERT_EQUAL(chime_metrics_get_runs(m, "g", "nope", CHIME_OUTCOME_OK), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, CHIME_METRIC_RUNS_STARTED), 6);
  CU_ASSERT(chime_metrics_get_counter(m, CHIME_METRIC_FIRES_CLAIMED) >= 9);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, CHIME_METRIC_MISFIRES), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, CHIME_METRIC_STORE_ERRORS), 0);
  uint64_t count = 0;
  double sum = -1;
  CU_ASSERT_EQUAL(chime_metrics_get_histogram(m, CHIME_HISTOGRAM_FIRE_LATENESS,
                                              &count, &sum),
                  0);
  CU_ASSERT_EQUAL(count, 6);
  CU_ASSERT(sum >= 0);
  CU_ASSERT_EQUAL(chime_metrics_get_histogram(m, CHIME_HISTOGRAM_RUN_DURATION,
                                              &count, NULL),
                  0);
  CU_ASSERT_EQUAL(count, 6);
  CU_ASSERT_EQUAL(chime_metrics_get_histogram(m, CHIME_HISTOGRAM_STORE_LATENCY,
                                              &count, NULL),
                  0);
  CU_ASSERT(count >= 3);
  CU_ASSERT_EQUAL(chime_metrics_get_gauge(m, CHIME_GAUGE_WORKERS), 4.0);
  CU_ASSERT_EQUAL(chime_metrics_get_gauge(m, CHIME_GAUGE_WORKERS_BUSY), 0.0);
  CU_ASSERT_EQUAL(chime_metrics_get_gauge(m, CHIME_GAUGE_STORE_DOWN), 0.0);
  char *text = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_metrics_to_prometheus(m, &text), 0);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, "chime_runs_total{scheduler=\"chime\",node=\"metrics-node\","
                   "job=\"g.bad\",outcome=\"FAILED\"} 3\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE chime_runs counter\n"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, "# TYPE chime_fire_lateness_seconds histogram\n"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, "chime_fire_lateness_seconds_count{scheduler=\"chime\","
                   "node=\"metrics-node\"} 6\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, ",le=\"+Inf\"} 6\n"));
  chime_free(text);
  chime_metrics_free(m);
  /* The failed runs were logged with their fire and error. */
  pthread_mutex_lock(&mu);
  CU_ASSERT(seen.log_fire_id > 0);
  CU_ASSERT_EQUAL(seen.log_error, CHIME_EJOBFAILED);
  pthread_mutex_unlock(&mu);
  chime_scheduler_free(s);
}

/* A late start: the trigger's only fire time passes while the scheduler is
 * in standby, well past the misfire threshold. */
static void test_metrics_misfire_on_late_start(void) {
  chime_scheduler *s = make(200);
  int64_t start = chime_test_wall_ms() + 50;
  schedule(s, "late", "ok", 0, start,
           CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT);
  nap_ms(800);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&seen.misfired, 1));
  CU_ASSERT_TRUE(wait_for(&seen.log_misfires, 1));
  chime_metrics *m = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(s, &m), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, CHIME_METRIC_MISFIRES), 1);
  CU_ASSERT_EQUAL(chime_metrics_get_misfires(
                      m, CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT),
                  1);
  CU_ASSERT_EQUAL(chime_metrics_get_misfires(m, CHIME_MISFIRE_SMART), 0);
  char *text = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_metrics_to_prometheus(m, &text), 0);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(text, ",policy=\"RESCHEDULE_NEXT_REMAINING_COUNT\"} 1\n"));
  chime_free(text);
  chime_metrics_free(m);
  pthread_mutex_lock(&mu);
  CU_ASSERT_STRING_EQUAL(seen.mis_trigger, "t.late");
  CU_ASSERT_STRING_EQUAL(seen.mis_job, "g.late");
  CU_ASSERT_STRING_EQUAL(seen.mis_node, "metrics-node");
  CU_ASSERT_EQUAL(seen.mis_policy,
                  CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT);
  /* Missed by the standby's length at least (800 ms less the 50). */
  CU_ASSERT(seen.mis_lateness >= 700);
  CU_ASSERT_STRING_EQUAL(seen.log_trigger, "t.late");
  CU_ASSERT_STRING_EQUAL(seen.log_job, "g.late");
  CU_ASSERT_STRING_EQUAL(seen.log_node, "metrics-node");
  pthread_mutex_unlock(&mu);
  chime_scheduler_free(s);
}

static void test_metrics_outcome_names(void) {
  for (int o = 0; o < CHIME_OUTCOME_COUNT; o++) {
    const char *name = chime_outcome_to_string((chime_outcome)o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(name);
    chime_outcome back = CHIME_OUTCOME_OK;
    CU_ASSERT_EQUAL(chime_outcome_from_string(name, &back), 0);
    CU_ASSERT_EQUAL(back, o);
  }
  CU_ASSERT_STRING_EQUAL(chime_outcome_to_string(CHIME_OUTCOME_TIMED_OUT),
                         "TIMED_OUT");
  CU_ASSERT_PTR_NULL(chime_outcome_to_string((chime_outcome)99));
  chime_outcome o;
  CU_ASSERT_EQUAL(chime_outcome_from_string("ok", &o), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_outcome_from_string(NULL, &o), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_outcome_from_string("OK", NULL), CHIME_EINVAL);
}

static void test_metrics_null_handles(void) {
  chime_metrics *m = NULL;
  CU_ASSERT_EQUAL(chime_scheduler_metrics(NULL, &m), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(m);
  chime_metrics_free(NULL);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(NULL, CHIME_METRIC_RUNS_STARTED),
                  0);
  CU_ASSERT_EQUAL(chime_metrics_get_gauge(NULL, CHIME_GAUGE_WORKERS), 0.0);
  CU_ASSERT_EQUAL(chime_metrics_get_runs(NULL, NULL, NULL, CHIME_OUTCOME_OK),
                  0);
  CU_ASSERT_EQUAL(chime_metrics_get_misfires(NULL, CHIME_MISFIRE_SMART), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_histogram(
                      NULL, CHIME_HISTOGRAM_RUN_DURATION, NULL, NULL),
                  CHIME_EINVAL);
  char *text = NULL;
  CU_ASSERT_EQUAL(chime_metrics_to_prometheus(NULL, &text), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(chime_log_record_get_event(NULL));
  CU_ASSERT_EQUAL(chime_log_record_get_fire_id(NULL), 0);
  CU_ASSERT_PTR_NULL(chime_event_get_node(NULL));
  CU_ASSERT_EQUAL(chime_event_get_misfire_policy(NULL), -1);
  CU_ASSERT_EQUAL(
      chime_config_set_log_record(NULL, log_record, NULL, CHIME_LOG_INFO),
      CHIME_EINVAL);
  /* A fresh scheduler: everything zero, no check-in yet. */
  chime_scheduler *s = make(60000);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(s, &m), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, CHIME_METRIC_FIRES_CLAIMED), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, (chime_metric)99), 0);
  CU_ASSERT_EQUAL(
      chime_metrics_get_histogram(m, (chime_histogram)99, NULL, NULL),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_metrics_get_gauge(m, CHIME_GAUGE_LAST_CHECKIN_AGE),
                  -1.0);
  chime_metrics_free(m);
  chime_scheduler_free(s);
}

/* The history of 3 good and 3 failed runs: filters, paging, errors. */
static void test_metrics_history_filters_and_pages(void) {
  chime_scheduler *s = make(60000);
  int64_t start = chime_test_wall_ms() + 100;
  schedule(s, "ok", "ok", 2, start, CHIME_MISFIRE_SMART);
  schedule(s, "bad", "bad", 2, start, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&seen.done, 6));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_history *h = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1, 0, 0, 0, 100, &h),
      0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 6);
  for (size_t i = 1; i < chime_history_get_count(h); i++)
    CU_ASSERT(chime_history_get_id(h, i) < chime_history_get_id(h, i - 1));
  CU_ASSERT_STRING_EQUAL(chime_history_get_node(h, 0), "metrics-node");
  CU_ASSERT(chime_history_get_fire_id(h, 0) > 0);
  CU_ASSERT(chime_history_get_started_ms(h, 0) >=
            chime_history_get_scheduled_ms(h, 0));
  CU_ASSERT(chime_history_get_finished_ms(h, 0) >=
            chime_history_get_started_ms(h, 0));
  CU_ASSERT_PTR_NULL(chime_history_get_job_group(h, 6));
  chime_history_free(h);
  /* By job: its failures, with the message. */
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_history(s, "g", "bad", NULL, NULL, -1, 0, 0, 0, 100, &h),
      0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 3);
  for (size_t i = 0; i < chime_history_get_count(h); i++) {
    CU_ASSERT_EQUAL(chime_history_get_outcome(h, i), CHIME_OUTCOME_FAILED);
    CU_ASSERT_STRING_EQUAL(chime_history_get_message(h, i), "boom");
    CU_ASSERT_EQUAL(chime_history_get_error(h, i), CHIME_EJOBFAILED);
    CU_ASSERT_STRING_EQUAL(chime_history_get_trigger_name(h, i), "bad");
  }
  chime_history_free(h);
  /* By outcome and trigger. */
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, NULL, NULL, "t", "ok",
                                                CHIME_OUTCOME_OK, 0, 0, 0, 100,
                                                &h),
                        0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 3);
  CU_ASSERT_STRING_EQUAL(chime_history_get_job_name(h, 0), "ok");
  CU_ASSERT_PTR_NULL(chime_history_get_message(h, 0));
  chime_history_free(h);
  /* By time: nothing started before the first fire time. */
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1,
                                                0, start - 1000, 0, 100, &h),
                        0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 0);
  chime_history_free(h);
  /* Paged: 4, then the 2 older ones, then none. */
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1, 0, 0, 0, 4, &h),
      0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 4);
  int64_t cursor = chime_history_get_id(h, 3);
  chime_history_free(h);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1,
                                                0, 0, cursor, 4, &h),
                        0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 2);
  CU_ASSERT(chime_history_get_id(h, 0) < cursor);
  cursor = chime_history_get_id(h, 1);
  chime_history_free(h);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1,
                                                0, 0, cursor, 4, &h),
                        0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 0);
  chime_history_free(h);
  /* Bad arguments. */
  h = NULL;
  CU_ASSERT_EQUAL(
      chime_scheduler_history(s, "g", NULL, NULL, NULL, -1, 0, 0, 0, 10, &h),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_history(s, NULL, NULL, NULL, NULL, 99, 0, 0, 0, 10, &h),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1, 0, 0, 0, 0, &h),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1, 0, 0,
                                          0, CHIME_HISTORY_MAX_LIMIT + 1, &h),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_history(NULL, NULL, NULL, NULL, NULL, -1, 0,
                                          0, 0, 10, &h),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(h);
  CU_ASSERT_EQUAL(chime_history_get_count(NULL), 0);
  chime_history_free(NULL);
  chime_scheduler_free(s);
}

/* A run's own data (a fire-now's, binary) is in its history row; a run
 * that read its job's data has none there (issue 35). */
static void test_metrics_history_run_data(void) {
  chime_scheduler *s = make(60000);
  schedule(s, "plain", "bad", 0, chime_test_wall_ms() + 50,
           CHIME_MISFIRE_SMART);
  static const char own[] = {'r', 0, (char)0xff, '"'};
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_run_job(s, "g", "plain", own, sizeof own, NULL), 0);
  CU_ASSERT_TRUE(wait_for(&seen.done, 2));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_history *h = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_history(s, "g", "plain", NULL, NULL, -1, 0, 0, 0, 10, &h),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_history_get_count(h), 2);
  int with = 0;
  for (size_t i = 0; i < 2; i++) {
    size_t len = 99;
    const void *d = chime_history_get_data(h, i, &len);
    bool fire_now = strcmp(chime_history_get_trigger_group(h, i), "t") != 0;
    CU_ASSERT_EQUAL(d != NULL, fire_now);
    CU_ASSERT_EQUAL(len, fire_now ? sizeof own : 0);
    if (d && len == sizeof own)
      with += memcmp(d, own, sizeof own) == 0;
  }
  CU_ASSERT_EQUAL(with, 1);
  CU_ASSERT_PTR_NULL(chime_history_get_data(h, 2, NULL));
  size_t len = 7;
  CU_ASSERT_PTR_NULL(chime_history_get_data(NULL, 0, &len));
  CU_ASSERT_EQUAL(len, 0);
  chime_history_free(h);
  chime_scheduler_free(s);
}

#ifndef CHIME_TEST_MYSQL
/* The memory store keeps the newest 1,000 runs (its retention). */
static void test_metrics_history_memory_ring(void) {
  chime_scheduler *s = make(60000);
  interval_ms = 1;
  schedule(s, "many", "ok", 1099, chime_test_wall_ms() + 50,
           CHIME_MISFIRE_SMART);
  interval_ms = 30;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&seen.done, 1100));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  int64_t total = 0, oldest = 0;
  int64_t cursor = 0;
  for (;;) {
    chime_history *h = NULL;
    CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, NULL, NULL, NULL, NULL, -1,
                                                  0, 0, cursor, 300, &h),
                          0);
    size_t n = chime_history_get_count(h);
    total += (int64_t)n;
    if (n > 0)
      oldest = cursor = chime_history_get_id(h, n - 1);
    chime_history_free(h);
    if (n == 0)
      break;
  }
  CU_ASSERT_EQUAL(total, 1000);
  CU_ASSERT_EQUAL(oldest, 101); /* the first 100 runs were dropped */
  chime_scheduler_free(s);
}
#endif

static CU_TestInfo tests[] = {
    {"runs are counted by job and outcome",
     test_metrics_count_runs_by_job_and_outcome},
    {"a late start is a misfire: counted, raised, logged",
     test_metrics_misfire_on_late_start},
    {"history: filters, pages, bad arguments",
     test_metrics_history_filters_and_pages},
    {"history: a run's own data, none for its job's",
     test_metrics_history_run_data},
#ifndef CHIME_TEST_MYSQL
    {"history: the memory store keeps the newest 1,000 runs",
     test_metrics_history_memory_ring},
#endif
    {"outcome names", test_metrics_outcome_names},
    {"NULL handles", test_metrics_null_handles},
    CU_TEST_INFO_NULL,
};

#ifdef CHIME_TEST_MYSQL
static int init_url(void) {
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_om_");
}

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/metrics-mysql", .pInitFunc = init_url, .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
#else
int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/metrics", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
#endif
