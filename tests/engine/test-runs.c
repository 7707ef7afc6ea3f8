/*
 * test-runs.c: cancellation and timeouts of runs (engine/runs.c,
 * engine/interrupt.c), in real time: chime_scheduler_interrupt by job key
 * and by fire id, a job's timeout, chime_ctx_wait_cancelled, the outcome
 * the listeners see (CHIME_ECANCELLED, CHIME_ETIMEDOUT), and a run that
 * ignores its cancellation (CHIME_EVENT_JOB_CANCEL_IGNORED, its worker kept).
 *
 * The same source builds two runners (tests/meson.build): engine/runs on
 * the memory store and, with CHIME_TEST_MYSQL, engine/runs-mysql on the
 * throwaway MariaDB (tables prefixed chime_er_), which adds an interrupt
 * issued on one node reaching a run on another and the history rows.
 *
 * Timing: every wait is on a condition variable with a wide deadline
 * (WAIT_MS); no assertion is on speed except "well before the job's own
 * 30 s wait would have ended".
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CHIME_TEST_MYSQL
#include <mysql.h>
#endif

#define WAIT_MS 20000
/* How long the test jobs wait when nobody tells them to stop. */
#define LONG_WAIT_MS 30000

/* What the jobs and the listener saw. */
typedef struct seen {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int started;
  int returned;
  int told;        /* chime_ctx_wait_cancelled returned 1 */
  int64_t fire_id; /* the last run's */
  int was_executed;
  int last_error; /* JOB_WAS_EXECUTED's */
  char last_message[256];
  int ignored; /* JOB_CANCEL_IGNORED */
  int ignored_error;
  bool release; /* the stubborn job may return */
  int busy_runs, busy_active, busy_max_active;
  int missed; /* JOB_MISSED */
  int missed_error;
  int64_t busy_lag[8]; /* fire_ms - scheduled_ms of the first busy runs */
  int failing_runs;    /* runs of the failing job, and what they saw: */
  int attempts[4];
  int64_t failing_scheduled[4], failing_fire_ms[4], failing_ids[4];
  int exhausted; /* JOB_RETRIES_EXHAUSTED */
  int hung_runs; /* runs of the hung job; the first ignores cancellation */
  int64_t hung_lag[64]; /* fire_ms - scheduled_ms of its runs */
} seen;

static seen S;

static void seen_reset(void) {
  pthread_mutex_lock(&S.mu);
  S.started = S.returned = S.told = S.was_executed = S.ignored = 0;
  S.last_error = S.ignored_error = 0;
  S.fire_id = 0;
  S.last_message[0] = '\0';
  S.release = false;
  S.busy_runs = S.busy_active = S.busy_max_active = 0;
  S.missed = S.missed_error = 0;
  S.failing_runs = S.exhausted = 0;
  S.hung_runs = 0;
  pthread_mutex_unlock(&S.mu);
}

/* Waits until *counter >= n (WAIT_MS at most); true when reached. */
static bool wait_for(const int *counter, int n) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&S.mu);
  while (*counter < n)
    if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) == ETIMEDOUT)
      break;
  bool ok = *counter >= n;
  pthread_mutex_unlock(&S.mu);
  return ok;
}

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void bump(int *counter) {
  pthread_mutex_lock(&S.mu);
  (*counter)++;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
}

/* Waits to be told to stop (at most LONG_WAIT_MS), as a polite job does. */
static void polite_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  S.fire_id = chime_ctx_get_fire_id(ctx);
  pthread_mutex_unlock(&S.mu);
  bump(&S.started);
  int r = chime_ctx_wait_cancelled(ctx, LONG_WAIT_MS);
  if (r == 1 && chime_ctx_is_cancelled(ctx))
    bump(&S.told);
  bump(&S.returned);
}

/* Ignores cancellation: returns only when the test releases it. */
static void stubborn_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  bump(&S.started);
  pthread_mutex_lock(&S.mu);
  while (!S.release)
    pthread_cond_wait(&S.cv, &S.mu);
  pthread_mutex_unlock(&S.mu);
  bump(&S.returned);
}

/* Its first run ignores cancellation until the test releases it; the
 * others return at once.  Every run records its lag. */
static void hung_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  int nth = S.hung_runs;
  if (nth < 64)
    S.hung_lag[nth] =
        chime_ctx_get_fire_ms(ctx) - chime_ctx_get_scheduled_ms(ctx);
  S.hung_runs++;
  pthread_cond_broadcast(&S.cv);
  while (nth == 0 && !S.release)
    pthread_cond_wait(&S.cv, &S.mu);
  pthread_mutex_unlock(&S.mu);
}

/* Takes about a second, like the FORBID job, and records its lag. */
static void busy_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  if (S.busy_runs < 8)
    S.busy_lag[S.busy_runs] =
        chime_ctx_get_fire_ms(ctx) - chime_ctx_get_scheduled_ms(ctx);
  if (++S.busy_active > S.busy_max_active)
    S.busy_max_active = S.busy_active;
  pthread_mutex_unlock(&S.mu);
  chime_ctx_wait_cancelled(ctx, 1000);
  pthread_mutex_lock(&S.mu);
  S.busy_active--;
  S.busy_runs++;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
}

/* Fails every time, recording each attempt. */
static void failing_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  if (S.failing_runs < 4) {
    S.attempts[S.failing_runs] = chime_ctx_get_attempt(ctx);
    S.failing_scheduled[S.failing_runs] = chime_ctx_get_scheduled_ms(ctx);
    S.failing_fire_ms[S.failing_runs] = chime_ctx_get_fire_ms(ctx);
    S.failing_ids[S.failing_runs] = chime_ctx_get_fire_id(ctx);
  }
  pthread_mutex_unlock(&S.mu);
  chime_ctx_fail(ctx, "failing on purpose");
  bump(&S.failing_runs);
}

static bool listener(const chime_event *ev, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  switch (chime_event_get_kind(ev)) {
  case CHIME_EVENT_JOB_WAS_EXECUTED: {
    const char *m = chime_event_get_message(ev);
    S.last_error = chime_event_get_error(ev);
    snprintf(S.last_message, sizeof S.last_message, "%s", m ? m : "");
    S.was_executed++;
    break;
  }
  case CHIME_EVENT_JOB_RETRIES_EXHAUSTED:
    S.exhausted++;
    break;
  case CHIME_EVENT_JOB_MISSED:
    S.missed_error = chime_event_get_error(ev);
    S.missed++;
    break;
  case CHIME_EVENT_JOB_CANCEL_IGNORED:
    S.ignored_error = chime_event_get_error(ev);
    S.ignored++;
    break;
  default:
    break;
  }
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
  return false;
}

static char store_url[2048] = "memory:";
/* The grace of the next node(): wide, so that no polite run is reported. */
static int64_t grace_ms = 60000;
/* The check-in interval of the next node(). */
static int64_t checkin_ms = 200;

/* A started scheduler on url with both job types and the listener. */
static chime_scheduler *node(const char *url, const char *id, unsigned workers,
                             bool run_jobs) {
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, url), 0);
  CU_ASSERT_EQUAL(chime_config_set_workers(cfg, workers), 0);
  CU_ASSERT_EQUAL(chime_config_set_checkin_interval_ms(cfg, checkin_ms), 0);
  CU_ASSERT_EQUAL(chime_config_set_cancel_grace_ms(cfg, grace_ms), 0);
  CU_ASSERT_EQUAL(chime_config_set_cancel_grace_ms(cfg, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_cancel_grace_ms(NULL, 0), CHIME_EINVAL);
  if (id)
    CU_ASSERT_EQUAL(chime_config_set_instance_id(cfg, id), 0);
  chime_scheduler *s = NULL;
  char err[256] = "";
  int rc = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (rc != 0)
    fprintf(stderr, "chime_scheduler_new: %s\n", err);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  if (run_jobs) {
    CU_ASSERT_EQUAL(
        chime_scheduler_register_job_type(s, "polite", polite_job, NULL, NULL),
        0);
    CU_ASSERT_EQUAL(chime_scheduler_register_job_type(s, "stubborn",
                                                      stubborn_job, NULL, NULL),
                    0);
    CU_ASSERT_EQUAL(
        chime_scheduler_register_job_type(s, "busy", busy_job, NULL, NULL), 0);
    CU_ASSERT_EQUAL(
        chime_scheduler_register_job_type(s, "hung", hung_job, NULL, NULL), 0);
    CU_ASSERT_EQUAL(chime_scheduler_register_job_type(s, "failing", failing_job,
                                                      NULL, NULL),
                    0);
  }
  CU_ASSERT_EQUAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_ALL, listener, NULL, NULL),
      0);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  return s;
}

/* Adds the durable failing job g.f of max_attempts, delay_ms apart at
 * first, doubling. */
static void add_failing_job(chime_scheduler *s, int max_attempts,
                            int64_t delay_ms) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "f", "failing", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, max_attempts, delay_ms, 2.0, 0, 0),
                  0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, job, false), 0);
  chime_job_free(job);
}

/* Adds the durable job g.name of type with timeout_ms (0: none). */
static void add_job(chime_scheduler *s, const char *name, const char *type,
                    int64_t timeout_ms) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", name, type, &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_timeout_ms(job, timeout_ms), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, job, false), 0);
  chime_job_free(job);
}

static void test_runs_job_timeout_setter(void) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_get_timeout_ms(job), 0);
  CU_ASSERT_EQUAL(chime_job_set_timeout_ms(job, 1500), 0);
  CU_ASSERT_EQUAL(chime_job_get_timeout_ms(job), 1500);
  CU_ASSERT_EQUAL(chime_job_set_timeout_ms(job, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_timeout_ms(job, CHIME_MAX_TIMEOUT_MS + 1),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_get_timeout_ms(job), 1500);
  CU_ASSERT_EQUAL(chime_job_set_timeout_ms(NULL, 1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_get_timeout_ms(NULL), 0);
  /* The store keeps it. */
  chime_scheduler *s = node(store_url, NULL, 1, false);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, job, false), 0);
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_get_job(s, "g", "j", &back), 0);
  CU_ASSERT_EQUAL(chime_job_get_timeout_ms(back), 1500);
  chime_job_free(back);
  chime_job_free(job);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

static void test_runs_interrupt_arguments(void) {
  size_t n = 99;
  CU_ASSERT_EQUAL(chime_scheduler_interrupt(NULL, "g", "j", &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt_fire(NULL, 1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_ctx_wait_cancelled(NULL, 10), CHIME_EINVAL);
  chime_scheduler *s = node(store_url, NULL, 1, false);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt(s, NULL, "j", &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt(s, "g", "", &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt_fire(s, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt_fire(s, -5), CHIME_EINVAL);
  /* Nothing runs: nothing to interrupt, which is not an error by key. */
  CU_ASSERT_EQUAL(chime_scheduler_interrupt(s, "g", "nothing", &n), 0);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt_fire(s, INT64_C(987654321)),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt(s, "g", "j", NULL),
                  CHIME_ESHUTDOWN);
  chime_scheduler_free(s);
}

/* Starts a run of job g.name now and waits until it runs. */
static void run_now(chime_scheduler *s, const char *name, int nth) {
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "g", name, NULL, 0, NULL), 0);
  CU_ASSERT_TRUE_FATAL(wait_for(&S.started, nth));
}

/* Interrupts the running polite job g.p through s and waits until its run
 * returned CANCELLED, well before its own wait would have ended. */
static void interrupt_polite(chime_scheduler *s) {
  int64_t t0 = mono_ms();
  size_t n = 0;
  CU_ASSERT_EQUAL(chime_scheduler_interrupt(s, "g", "p", &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_TRUE(wait_for(&S.was_executed, 1));
  CU_ASSERT(mono_ms() - t0 < LONG_WAIT_MS / 2);
  CU_ASSERT_EQUAL(S.told, 1);
  CU_ASSERT_EQUAL(S.last_error, CHIME_ECANCELLED);
}

static void test_runs_interrupt_by_key(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 2, true);
  add_job(s, "p", "polite", 0);
  run_now(s, "p", 1);
  interrupt_polite(s);
  CU_ASSERT_STRING_EQUAL(S.last_message, "cancelled");
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

static void test_runs_interrupt_by_fire_id(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 2, true);
  add_job(s, "p", "polite", 0);
  run_now(s, "p", 1);
  pthread_mutex_lock(&S.mu);
  int64_t id = S.fire_id;
  pthread_mutex_unlock(&S.mu);
  CU_ASSERT(id > 0);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt_fire(s, id + 1000),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_scheduler_interrupt_fire(s, id), 0);
  CU_ASSERT_TRUE(wait_for(&S.was_executed, 1));
  CU_ASSERT_EQUAL(S.told, 1);
  CU_ASSERT_EQUAL(S.last_error, CHIME_ECANCELLED);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

static void test_runs_timeout(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 2, true);
  add_job(s, "t", "polite", 300);
  int64_t t0 = mono_ms();
  run_now(s, "t", 1);
  CU_ASSERT_TRUE(wait_for(&S.was_executed, 1));
  int64_t took = mono_ms() - t0;
  CU_ASSERT(took >= 300);
  CU_ASSERT(took < LONG_WAIT_MS / 2);
  CU_ASSERT_EQUAL(S.told, 1);
  CU_ASSERT_EQUAL(S.last_error, CHIME_ETIMEDOUT);
  CU_ASSERT_STRING_EQUAL(S.last_message, "timed out after 300 ms");
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

/* A trigger's timeout overrides its job's (none here). */
static void test_runs_trigger_timeout(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 2, true);
  add_job(s, "tt", "polite", 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("g", "once", 1000, 0, &t, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_trigger_get_timeout_ms(t), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_timeout_ms(t, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_set_timeout_ms(NULL, 1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_set_starting_deadline_ms(t, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_set_starting_deadline_ms(NULL, 1),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_get_starting_deadline_ms(NULL), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_timeout_ms(t, 250), 0);
  CU_ASSERT_EQUAL(chime_trigger_get_timeout_ms(t), 250);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "tt"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, NULL, t, 0, NULL), 0);
  chime_trigger_free(t);
  CU_ASSERT_TRUE(wait_for(&S.was_executed, 1));
  CU_ASSERT_EQUAL(S.told, 1);
  CU_ASSERT_EQUAL(S.last_error, CHIME_ETIMEDOUT);
  CU_ASSERT_STRING_EQUAL(S.last_message, "timed out after 250 ms");
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

/* A run that ignores its timeout is reported and keeps its worker: with
 * one worker, nothing else starts until it returns. */
static void test_runs_cancel_ignored(void) {
  seen_reset();
  grace_ms = 0;
  chime_scheduler *s = node(store_url, NULL, 1, true);
  grace_ms = 60000;
  add_job(s, "st", "stubborn", 100);
  add_job(s, "p", "polite", 0);
  run_now(s, "st", 1);
  CU_ASSERT_TRUE(wait_for(&S.ignored, 1));
  CU_ASSERT_EQUAL(S.ignored_error, CHIME_ECANCELLED);
  /* The worker is still taken: the next run waits for it. */
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "g", "p", NULL, 0, NULL), 0);
  CU_ASSERT_EQUAL(S.started, 1);
  CU_ASSERT_EQUAL(S.returned, 0);
  pthread_mutex_lock(&S.mu);
  S.release = true;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
  CU_ASSERT_TRUE(wait_for(&S.was_executed, 1));
  CU_ASSERT_EQUAL(S.last_error, CHIME_ETIMEDOUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(S.last_message, "ignored the cancellation"));
  /* Then the queued run starts on the freed worker. */
  CU_ASSERT_TRUE(wait_for(&S.started, 2));
  CU_ASSERT_EQUAL(chime_scheduler_interrupt(s, "g", "p", NULL), 0);
  CU_ASSERT_TRUE(wait_for(&S.was_executed, 2));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

/* Shutdown with a deadline wakes a waiting job too. */
static void test_runs_shutdown_wakes_waiters(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 1, true);
  add_job(s, "p", "polite", 0);
  run_now(s, "p", 1);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, WAIT_MS), 0);
  CU_ASSERT_EQUAL(S.told, 1);
  chime_scheduler_free(s);
}

#ifdef CHIME_TEST_MYSQL
static long skipped_rows(const char *job_name);
static long missed_rows(const char *job_name);
#endif

/* A fire that can start only after its starting deadline is not run:
 * MISSED.  The trigger started 5 s ago, so its first fire is 5 s late (well
 * inside the misfire threshold, whose meaning is unchanged); a job with a
 * deadline of a minute runs the same fire, unless its trigger's deadline
 * (1 s) overrides the job's. */
static void test_runs_starting_deadline(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 2, true);
  const struct {
    const char *name;
    int64_t deadline_ms, trigger_deadline_ms;
  } jobs[] = {{"tight", 1000, 0}, {"loose", 60000, 0}, {"trig", 60000, 1000}};
  /* The store's clock is this host's (memory) or its database's, on this
   * host too: 5 s is far more than their difference. */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  for (int i = 0; i < 3; i++) {
    chime_job *job = NULL;
    CU_ASSERT_EQUAL_FATAL(
        chime_job_new("g", jobs[i].name, "busy", &job, NULL, 0), 0);
    CU_ASSERT_EQUAL(
        chime_job_set_starting_deadline_ms(job, jobs[i].deadline_ms), 0);
    CU_ASSERT_EQUAL(chime_job_get_starting_deadline_ms(job),
                    jobs[i].deadline_ms);
    chime_trigger *t = NULL;
    CU_ASSERT_EQUAL_FATAL(
        chime_trigger_simple_new("g", jobs[i].name, 1000, 0, &t, NULL, 0), 0);
    CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", jobs[i].name), 0);
    CU_ASSERT_EQUAL(chime_trigger_set_start_ms(t, now - 5000), 0);
    CU_ASSERT_EQUAL(
        chime_trigger_set_starting_deadline_ms(t, jobs[i].trigger_deadline_ms),
        0);
    CU_ASSERT_EQUAL(chime_trigger_get_starting_deadline_ms(t),
                    jobs[i].trigger_deadline_ms);
    CU_ASSERT_EQUAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
    chime_trigger_free(t);
    chime_job_free(job);
  }
  CU_ASSERT_TRUE(wait_for(&S.missed, 2));
  CU_ASSERT_TRUE(wait_for(&S.busy_runs, 1));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  CU_ASSERT_EQUAL(S.missed, 2);
  CU_ASSERT_EQUAL(S.missed_error, CHIME_EMISSED);
  CU_ASSERT_EQUAL(S.busy_runs, 1);
#ifdef CHIME_TEST_MYSQL
  CU_ASSERT_EQUAL(missed_rows("tight"), 1);
  CU_ASSERT_EQUAL(missed_rows("loose"), 0);
  CU_ASSERT_EQUAL(missed_rows("trig"), 1);
#endif
  chime_scheduler_free(s);
}

/* REPLACE: the next fire cancels the running one (a polite job that would
 * wait 30 s), then runs; runs never overlap.  On the node running it the
 * cancellation is at once: with a check-in of 20 s, the first run ends
 * (fire 500 ms after it started) well before any check-in. */
static void test_runs_replace(void) {
  seen_reset();
  checkin_ms = 20000;
  chime_scheduler *s = node(store_url, NULL, 4, true);
  checkin_ms = 200;
  int64_t t0 = mono_ms();
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "rep", "polite", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, CHIME_CONCURRENCY_REPLACE), 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", "every-500", 500,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "rep"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_trigger_free(t);
  chime_job_free(job);
  CU_ASSERT_TRUE(wait_for(&S.started, 2));
  CU_ASSERT_TRUE(wait_for(&S.was_executed, 1));
  CU_ASSERT(mono_ms() - t0 < 10000);
  CU_ASSERT_EQUAL(S.told, 1);
  CU_ASSERT_EQUAL(S.last_error, CHIME_ECANCELLED);
  /* The second run started only after the first returned. */
  CU_ASSERT(S.returned >= 1);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, WAIT_MS), 0);
  chime_scheduler_free(s);
}

/* Issue 30, fault 6: a REPLACE job under a 200 ms trigger whose first run
 * ignores its cancellation for about 4 s (until CANCEL_IGNORED, after a
 * grace of 4 s).  About 20 fires come due meanwhile; when the run returns
 * they must not be replayed in a burst: at most one follows at once (the
 * newest, which replaces the hung run), the older ones are dropped
 * (SKIPPED in the history), and the runs after it are on time.  Replayed,
 * the first five runs after it would each start 3-4 s late. */
static void test_runs_replace_no_burst(void) {
  seen_reset();
  grace_ms = 4000;
  chime_scheduler *s = node(store_url, NULL, 4, true);
  grace_ms = 60000;
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "hung", "hung", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, CHIME_CONCURRENCY_REPLACE), 0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", "every-200", 200,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "hung"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_trigger_free(t);
  chime_job_free(job);
  /* The first run is cancelled by the next fire, ignores it, and is
   * reported after the grace: then it returns. */
  CU_ASSERT_TRUE_FATAL(wait_for(&S.hung_runs, 1));
  CU_ASSERT_TRUE(wait_for(&S.ignored, 1));
  pthread_mutex_lock(&S.mu);
  S.release = true;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
  /* Six runs after it: the one that replaced it and five on schedule. */
  CU_ASSERT_TRUE(wait_for(&S.hung_runs, 7));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  pthread_mutex_lock(&S.mu);
  int late = 0;
  for (int i = 1; i < 7 && i < S.hung_runs; i++) {
    if (S.hung_lag[i] > 1000)
      late++;
  }
  printf("\nREPLACE after a run that ignored its cancellation for 4 s: the "
         "next six runs started %lld, %lld, %lld, %lld, %lld, %lld ms late\n",
         (long long)S.hung_lag[1], (long long)S.hung_lag[2],
         (long long)S.hung_lag[3], (long long)S.hung_lag[4],
         (long long)S.hung_lag[5], (long long)S.hung_lag[6]);
  pthread_mutex_unlock(&S.mu);
  CU_ASSERT(late <= 1);
#ifdef CHIME_TEST_MYSQL
  /* The fires due while it hung are recorded as dropped (about 20). */
  CU_ASSERT(skipped_rows("hung") >= 10);
#endif
  chime_scheduler_free(s);
}

/* The case: a job of 1 s under a 250 ms trigger.  FORBID (queue)
 * builds a backlog (each run 0.75 s later than the last); FORBID_SKIP
 * drops the fires due meanwhile, so every run starts near its time and
 * runs never overlap.  The bound is wide (the 4th run would be 2.25 s late
 * under FORBID). */
static void test_runs_forbid_skip_keeps_up(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 4, true);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "busy", "busy", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID_SKIP),
                  0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", "every-250", 250,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "busy"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_trigger_free(t);
  chime_job_free(job);
  CU_ASSERT_TRUE(wait_for(&S.busy_runs, 4));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  CU_ASSERT_EQUAL(S.busy_max_active, 1);
  for (int i = 1; i < 4; i++)
    CU_ASSERT(S.busy_lag[i] < 1000);
  /* The figure docs/policies.md quotes (FORBID would give 750, 1500,
   * 2250 ms). */
  printf("\nFORBID_SKIP, a 1 s job under a 250 ms trigger: runs 2-4 started "
         "%lld, %lld, %lld ms after their scheduled times\n",
         (long long)S.busy_lag[1], (long long)S.busy_lag[2],
         (long long)S.busy_lag[3]);
#ifdef CHIME_TEST_MYSQL
  /* Every dropped fire is recorded SKIPPED (about three per run). */
  CU_ASSERT(skipped_rows("busy") >= 3);
#endif
  chime_scheduler_free(s);
}

#ifdef CHIME_TEST_MYSQL
/* The outcome and error code of fire_id's history row, by a connection of
 * the test's own. */
static bool history_of(int64_t fire_id, char *outcome, size_t len, int *code) {
  MYSQL *db = chime_test_mysql_open();
  if (!db)
    return false;
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT outcome, error_code FROM chime_er_history WHERE fire_id = "
           "%lld",
           (long long)fire_id);
  bool ok = false;
  if (mysql_query(db, sql) == 0) {
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    if (row) {
      snprintf(outcome, len, "%s", row[0]);
      *code = atoi(row[1]);
      ok = true;
    }
    mysql_free_result(res);
  }
  mysql_close(db);
  return ok;
}

/* How many history rows of job g.job_name say outcome; -1 on error. */
static long outcome_rows(const char *job_name, const char *outcome,
                         bool fire_id_zero) {
  MYSQL *db = chime_test_mysql_open();
  if (!db)
    return -1;
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT COUNT(*) FROM chime_er_history WHERE job_group = 'g' AND "
           "job_name = '%s' AND outcome = '%s'%s",
           job_name, outcome, fire_id_zero ? " AND fire_id = 0" : "");
  long n = -1;
  if (mysql_query(db, sql) == 0) {
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    if (row)
      n = atol(row[0]);
    mysql_free_result(res);
  }
  mysql_close(db);
  return n;
}

static long skipped_rows(const char *job_name) {
  return outcome_rows(job_name, "SKIPPED", true);
}

static long missed_rows(const char *job_name) {
  return outcome_rows(job_name, "MISSED", false);
}

/* An interrupt issued on node A reaches a run on node B (which alone runs
 * the job type) within about one check-in interval of B; history says
 * CANCELLED. */
/* The store URL of a second node: without clear=1, which would empty the
 * tables the first node uses. */
static void second_node_url(char *url, size_t len) {
  snprintf(url, len, "%s", store_url);
  char *clear = strstr(url, "clear=1&");
  CU_ASSERT_PTR_NOT_NULL_FATAL(clear);
  memmove(clear, clear + 8, strlen(clear + 8) + 1);
}

static void test_runs_interrupt_across_nodes(void) {
  seen_reset();
  chime_scheduler *a = node(store_url, "runs-a", 1, false);
  char url_b[2100];
  second_node_url(url_b, sizeof url_b);
  chime_scheduler *b = node(url_b, "runs-b", 1, true);
  add_job(a, "p", "polite", 0);
  run_now(a, "p", 1);
  interrupt_polite(a);
  pthread_mutex_lock(&S.mu);
  int64_t id = S.fire_id;
  pthread_mutex_unlock(&S.mu);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(b, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(a, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  char outcome[32] = "";
  int code = 0;
  CU_ASSERT_TRUE(history_of(id, outcome, sizeof outcome, &code));
  CU_ASSERT_STRING_EQUAL(outcome, "CANCELLED");
  CU_ASSERT_EQUAL(code, CHIME_ECANCELLED);
  chime_scheduler_free(b);
  chime_scheduler_free(a);
}

/* Node A runs attempt 1, which fails, and is shut down before the retry is
 * due; node B, started afterwards, runs attempt 2 from the store: the
 * retry is durable.  History: RETRIED (A), FAILED (B). */
static void test_runs_retry_on_other_node(void) {
  seen_reset();
  chime_scheduler *a = node(store_url, "runs-a", 1, true);
  add_failing_job(a, 2, 3000);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(a, "g", "f", NULL, 0, NULL), 0);
  CU_ASSERT_TRUE_FATAL(wait_for(&S.failing_runs, 1));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(a, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(a);
  CU_ASSERT_EQUAL(S.exhausted, 0);
  char url_b[2100];
  second_node_url(url_b, sizeof url_b);
  chime_scheduler *b = node(url_b, "runs-b", 1, true);
  CU_ASSERT_TRUE(wait_for(&S.exhausted, 1));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(b, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(b);
  CU_ASSERT_EQUAL_FATAL(S.failing_runs, 2);
  CU_ASSERT_EQUAL(S.attempts[1], 2);
  CU_ASSERT_EQUAL(S.failing_scheduled[1], S.failing_scheduled[0]);
  CU_ASSERT(S.failing_fire_ms[1] - S.failing_fire_ms[0] >= 3000);
  char outcome[32] = "";
  int code = 0;
  CU_ASSERT_TRUE(history_of(S.failing_ids[0], outcome, sizeof outcome, &code));
  CU_ASSERT_STRING_EQUAL(outcome, "RETRIED");
  CU_ASSERT_TRUE(history_of(S.failing_ids[1], outcome, sizeof outcome, &code));
  CU_ASSERT_STRING_EQUAL(outcome, "FAILED");
}
#endif

/* A failing job of 3 attempts (300 ms, then 600 ms apart) runs 3 times,
 * attempts 1, 2, 3 of the same scheduled time, each its own fire, no
 * sooner than its back-off; JOB_RETRIES_EXHAUSTED is raised once. */
static void test_runs_retries(void) {
  seen_reset();
  chime_scheduler *s = node(store_url, NULL, 2, true);
  add_failing_job(s, 3, 300);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "g", "f", NULL, 0, NULL), 0);
  CU_ASSERT_TRUE_FATAL(wait_for(&S.exhausted, 1));
  CU_ASSERT_TRUE(wait_for(&S.failing_runs, 3));
  pthread_mutex_lock(&S.mu);
  CU_ASSERT_EQUAL(S.failing_runs, 3);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(S.attempts[i], i + 1);
    CU_ASSERT_EQUAL(S.failing_scheduled[i], S.failing_scheduled[0]);
  }
  CU_ASSERT(S.failing_ids[0] != S.failing_ids[1]);
  CU_ASSERT(S.failing_ids[1] != S.failing_ids[2]);
  CU_ASSERT(S.failing_fire_ms[1] - S.failing_fire_ms[0] >= 300);
  CU_ASSERT(S.failing_fire_ms[2] - S.failing_fire_ms[1] >= 600);
  pthread_mutex_unlock(&S.mu);
  /* No fourth attempt, and the event came once. */
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  CU_ASSERT_EQUAL(S.failing_runs, 3);
  CU_ASSERT_EQUAL(S.exhausted, 1);
  chime_scheduler_free(s);
}

static CU_TestInfo runs_tests[] = {
    {"a failing job is retried, then JOB_RETRIES_EXHAUSTED", test_runs_retries},
    {"job timeout setter and storage", test_runs_job_timeout_setter},
    {"interrupt arguments", test_runs_interrupt_arguments},
    {"interrupt by job key", test_runs_interrupt_by_key},
    {"interrupt by fire id", test_runs_interrupt_by_fire_id},
    {"a job's timeout cancels it: TIMED_OUT", test_runs_timeout},
    {"a trigger's timeout overrides the job's", test_runs_trigger_timeout},
    {"a run ignoring its cancellation is reported, keeps its worker",
     test_runs_cancel_ignored},
    {"shutdown with a deadline wakes waiting jobs",
     test_runs_shutdown_wakes_waiters},
    {"FORBID_SKIP keeps a slow job on time", test_runs_forbid_skip_keeps_up},
    {"REPLACE cancels the running fire for the next", test_runs_replace},
    {"REPLACE drops the fires piled up behind a hung run",
     test_runs_replace_no_burst},
    {"a fire past its starting deadline is MISSED",
     test_runs_starting_deadline},
#ifdef CHIME_TEST_MYSQL
    {"an interrupt reaches a run on another node",
     test_runs_interrupt_across_nodes},
    {"a retry runs on another node after the first is gone",
     test_runs_retry_on_other_node},
#endif
    CU_TEST_INFO_NULL,
};

static int init(void) {
  pthread_mutex_init(&S.mu, NULL);
  pthread_cond_init(&S.cv, NULL);
#ifdef CHIME_TEST_MYSQL
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_er_");
#else
  return 0;
#endif
}

int main(void) {
  CU_SuiteInfo suites[] = {
#ifdef CHIME_TEST_MYSQL
      {.pName = "engine/runs-mysql", .pInitFunc = init, .pTests = runs_tests},
#else
      {.pName = "engine/runs", .pInitFunc = init, .pTests = runs_tests},
#endif
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
#ifdef CHIME_TEST_MYSQL
  mysql_library_end();
#endif
  return r;
}
