/*
 * test-mysql-lockrow.c: one trigger row locked by another session (a DBA's
 * SELECT ... FOR UPDATE, a stuck client) costs only that row (issue 30,
 * fault 3), on the throwaway MariaDB (table prefix chime_lr_):
 *   - five triggers every 200 ms keep firing on time for about 8 s while a
 *     plain connection of the test holds a sixth trigger's row FOR UPDATE
 *     and that trigger is overdue past its misfire threshold (the loop
 *     backed off a whole misfire period, here 3 s, between claims), also
 *     when the held trigger's FORBID job has a second trigger whose fires
 *     and completions block and unblock the held one (they waited for it,
 *     and held up every claim and completion of the batch meanwhile);
 *   - a held row of a FORBID job's trigger left blocked by a completion is
 *     unblocked once free; a held calendar row holds up no fire of the
 *     triggers using it (they read it without locking it);
 *   - a statement that does need the held row (pausing that trigger) is
 *     logged at WARN naming the row and counted (CHIME_METRIC_LOCK_WAITS)
 *     while it waits, and goes through once the row is released.
 *
 * Timing: waits are for events (runs, a log line) with wide deadlines; the
 * one bound on speed is "every fire of the free triggers starts less than
 * 1 s late" (they start within a few ms; the fault made them 1-3 s late).
 */
#include "chime.h"
#include "harness.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 30000
#define MAX_RUNS 1024
/* The free triggers, their interval, and how long the test watches them. */
#define FREE_TRIGGERS 5
#define INTERVAL_MS 200
#define WATCH_MS 8000
#define THRESHOLD_MS 3000

typedef struct seen {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n;
  int held_runs;
  int64_t lateness[MAX_RUNS]; /* fire_ms - scheduled_ms, free triggers */
  int warned;                 /* WARN lines naming the held trigger */
  char warning[512];
  int left_blocked; /* WARN lines: held trigger left blocked */
  int gate_runs;    /* runs of the gated trigger "first" */
  bool gate_open;   /* they may return */
} seen;

static seen S = {.mu = PTHREAD_MUTEX_INITIALIZER,
                 .cv = PTHREAD_COND_INITIALIZER};

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void record(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  if (strcmp(chime_ctx_get_trigger_name(ctx), "held") == 0) {
    S.held_runs++;
  } else {
    if (S.n < MAX_RUNS)
      S.lateness[S.n] =
          chime_ctx_get_fire_ms(ctx) - chime_ctx_get_scheduled_ms(ctx);
    S.n++;
  }
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
}

/* Trigger "first" waits until the test opens the gate; the others are
 * recorded. */
static void gated(chime_ctx *ctx, void *user_data) {
  if (strcmp(chime_ctx_get_trigger_name(ctx), "first") != 0) {
    record(ctx, user_data);
    return;
  }
  pthread_mutex_lock(&S.mu);
  S.gate_runs++;
  pthread_cond_broadcast(&S.cv);
  while (!S.gate_open)
    pthread_cond_wait(&S.cv, &S.mu);
  pthread_mutex_unlock(&S.mu);
}

static void on_log(void *user_data, chime_log_level level,
                   const char *message) {
  (void)user_data;
  if (level != CHIME_LOG_WARN || !strstr(message, "held"))
    return;
  pthread_mutex_lock(&S.mu);
  if (strstr(message, "left blocked"))
    S.left_blocked++;
  if (S.warned++ == 0)
    snprintf(S.warning, sizeof S.warning, "%s", message);
  pthread_cond_broadcast(&S.cv);
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

/* A scheduler on the test database, not started yet. */
static chime_scheduler *node_of(const char *id) {
  bool first = strcmp(id, "lockrow-node") == 0;
  chime_config *cfg =
      chime_test_mysql_config(first ? "prefix=chime_lr_&auto_create=1&clear=1"
                                    : "prefix=chime_lr_&auto_create=1",
                              id);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "lockrow"), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_config_set_misfire_threshold_ms(cfg, THRESHOLD_MS), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_workers(cfg, 8), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_log(cfg, on_log, NULL, CHIME_LOG_WARN),
                        0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "record", record, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "gated", gated, NULL, NULL), 0);
  return s;
}

/* The first node (it empties the tables). */
static chime_scheduler *node(void) {
  return node_of("lockrow-node");
}

/* Trigger triggers.name every 200 ms for job jobs.job (of concurrency c). */
static void schedule_for(chime_scheduler *s, const char *name,
                         const char *job_name, chime_concurrency c,
                         int64_t start_ms) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_job_new("jobs", job_name,
                    strcmp(job_name, "gate") == 0 ? "gated" : "record", &job,
                    NULL, 0),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_concurrency(job, c), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("triggers", name, INTERVAL_MS,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "jobs", job_name), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, start_ms), 0);
  /* The job is added with its first trigger. */
  chime_job *known = NULL;
  bool added = chime_scheduler_get_job(s, "jobs", job_name, &known) == 0;
  chime_job_free(known);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_schedule(s, added ? NULL : job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
}

static void schedule(chime_scheduler *s, const char *name, int64_t start_ms) {
  schedule_for(s, name, name, CHIME_CONCURRENCY_ALLOW, start_ms);
}

/* Another session locks the row select (a SELECT ... FOR UPDATE) finds and
 * keeps it. */
static MYSQL *hold(const char *select) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, "START TRANSACTION"), 0);
  int r = mysql_query(db, select);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  CU_ASSERT_EQUAL(mysql_num_rows(res), 1);
  mysql_free_result(res);
  return db;
}

/* Another session locks trigger triggers.held's row and keeps it. */
static MYSQL *hold_row(void) {
  return hold("SELECT * FROM chime_lr_triggers WHERE sched_name = 'lockrow' "
              "AND trigger_group = 'triggers' AND trigger_name = 'held' FOR "
              "UPDATE");
}

static void release_row(MYSQL *db) {
  CU_ASSERT_EQUAL(mysql_query(db, "COMMIT"), 0);
  mysql_close(db);
}

/* Five triggers every 200 ms beside a held one, due at the same time and
 * overdue past its threshold after 3 s: for 8 s every fire of the five
 * starts well under a second late; the held one never runs.  forbid: the
 * held trigger's job is FORBID and has a second trigger, "sibling", whose
 * fires block (and whose completions unblock) the job's other triggers,
 * the held one among them: they pass it over rather than wait for it, and
 * the sibling fires on time too. */
static void others_on_time(bool forbid, int nodes) {
  pthread_mutex_lock(&S.mu);
  S.n = S.held_runs = 0;
  pthread_mutex_unlock(&S.mu);
  chime_scheduler *s = node();
  chime_scheduler *more[2] = {NULL, NULL};
  assert(nodes >= 1 && nodes <= 3);
  for (int i = 0; i + 1 < nodes; i++)
    more[i] = node_of(i == 0 ? "lockrow-node-2" : "lockrow-node-3");
  int64_t start = chime_test_wall_ms() + 1000;
  if (forbid) {
    schedule_for(s, "held", "shared", CHIME_CONCURRENCY_FORBID, start);
    schedule_for(s, "sibling", "shared", CHIME_CONCURRENCY_FORBID, start);
  } else {
    schedule(s, "held", start);
  }
  char name[16];
  for (int i = 0; i < FREE_TRIGGERS; i++) {
    snprintf(name, sizeof name, "free-%d", i);
    schedule(s, name, start);
  }
  MYSQL *holder = hold_row();
  int64_t t0 = mono_ms();
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  for (int i = 0; i + 1 < nodes; i++)
    CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(more[i]), 0);
  int expect = (FREE_TRIGGERS + forbid) * (WATCH_MS / INTERVAL_MS);
  CU_ASSERT_TRUE(wait_for(&S.n, expect));
  CU_ASSERT(mono_ms() - t0 < WATCH_MS + 5000);
  for (int i = 0; i + 1 < nodes; i++)
    CU_ASSERT_EQUAL(
        chime_scheduler_shutdown(more[i], CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  release_row(holder);
  pthread_mutex_lock(&S.mu);
  int late = 0;
  int64_t worst = 0;
  for (int i = 0; i < S.n && i < MAX_RUNS; i++) {
    if (S.lateness[i] > worst)
      worst = S.lateness[i];
    late += S.lateness[i] >= 1000;
  }
  printf("\n%d fires of %d free triggers beside a held row%s, %d node(s): "
         "the latest started %lld ms late, %d of them 1 s late or more\n",
         S.n, FREE_TRIGGERS + forbid,
         forbid ? " (its job FORBID, with a sibling)" : "", nodes,
         (long long)worst, late);
  CU_ASSERT_EQUAL(late, 0);
  CU_ASSERT_EQUAL(S.held_runs, 0);
  pthread_mutex_unlock(&S.mu);
  for (int i = 0; i + 1 < nodes; i++)
    chime_scheduler_free(more[i]);
  chime_scheduler_free(s);
}

static void test_lockrow_others_on_time(void) {
  others_on_time(false, 1);
}

static void test_lockrow_forbid_sibling_on_time(void) {
  others_on_time(true, 1);
}

/* The set-up: three nodes. */
static void test_lockrow_three_nodes(void) {
  others_on_time(false, 3);
}

typedef struct pause_call {
  chime_scheduler *s;
  int result;
} pause_call;

static void *pause_held(void *arg) {
  pause_call *c = arg;
  c->result = chime_scheduler_pause_trigger(c->s, "triggers", "held");
  return NULL;
}

/* Pausing the held trigger needs its row: the wait is logged at WARN with
 * the row it waits for and counted; the pause goes through once the row
 * is released. */
static void test_lockrow_wait_logged_and_counted(void) {
  pthread_mutex_lock(&S.mu);
  S.warned = 0;
  S.warning[0] = '\0';
  pthread_mutex_unlock(&S.mu);
  chime_scheduler *s = node();
  schedule(s, "held", chime_test_wall_ms() + 3600000);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  MYSQL *holder = hold_row();
  pause_call call = {.s = s, .result = 1};
  pthread_t th;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, pause_held, &call), 0);
  CU_ASSERT_TRUE(wait_for(&S.warned, 1));
  release_row(holder);
  pthread_join(th, NULL);
  CU_ASSERT_EQUAL(call.result, 0);
  pthread_mutex_lock(&S.mu);
  printf("\nthe warning: %s\n", S.warning);
  /* The table and the outer statement's WHERE, on one line, then the
   * row's key. */
  CU_ASSERT_PTR_NOT_NULL(
      strstr(S.warning, "_triggers where sched_name = ? AND trigger_group = "
                        "? AND trigger_name = ?"));
  CU_ASSERT_PTR_NOT_NULL(strstr(S.warning, "'held'"));
  CU_ASSERT_PTR_NULL(strchr(S.warning, '\n'));
  pthread_mutex_unlock(&S.mu);
  chime_metrics *m = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(s, &m), 0);
  CU_ASSERT(chime_metrics_get_counter(m, CHIME_METRIC_LOCK_WAITS) >= 1);
  chime_metrics_free(m);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

/* A FORBID job's trigger whose row another session takes while the job
 * runs (the trigger BLOCKED): the run's completion passes it over (WARN:
 * left blocked) instead of waiting, and once the row is free the misfire
 * scan unblocks it and it fires. */
static void test_lockrow_left_blocked_unblocked(void) {
  pthread_mutex_lock(&S.mu);
  S.n = S.held_runs = S.warned = S.left_blocked = S.gate_runs = 0;
  S.gate_open = false;
  pthread_mutex_unlock(&S.mu);
  chime_scheduler *s = node();
  int64_t start = chime_test_wall_ms() + 500;
  schedule_for(s, "first", "gate", CHIME_CONCURRENCY_FORBID, start);
  schedule_for(s, "held", "gate", CHIME_CONCURRENCY_FORBID, start + 1000);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE_FATAL(wait_for(&S.gate_runs, 1));
  MYSQL *holder = hold_row();
  pthread_mutex_lock(&S.mu);
  S.gate_open = true;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
  CU_ASSERT_TRUE(wait_for(&S.left_blocked, 1));
  CU_ASSERT_EQUAL(S.held_runs, 0);
  release_row(holder);
  CU_ASSERT_TRUE(wait_for(&S.held_runs, 1));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

/* Three triggers every 200 ms with a calendar whose row another session
 * holds (an operator editing it by hand): every fire reads the calendar,
 * none waits for its row. */
static void test_lockrow_held_calendar(void) {
  pthread_mutex_lock(&S.mu);
  S.n = S.held_runs = 0;
  pthread_mutex_unlock(&S.mu);
  chime_scheduler *s = node();
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_calendar_from_string("chime-calendar 1\nholiday dates=2001-01-01\n",
                                 &cal, NULL, 0),
      0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_calendar(s, "cal", cal, false, false), 0);
  chime_calendar_free(cal);
  int64_t start = chime_test_wall_ms() + 1000;
  char name[16];
  for (int i = 0; i < 3; i++) {
    chime_job *job = NULL;
    chime_trigger *t = NULL;
    snprintf(name, sizeof name, "cal-%d", i);
    CU_ASSERT_EQUAL_FATAL(chime_job_new("jobs", name, "record", &job, NULL, 0),
                          0);
    CU_ASSERT_EQUAL_FATAL(
        chime_trigger_simple_new("triggers", name, INTERVAL_MS,
                                 CHIME_REPEAT_INDEFINITELY, &t, NULL, 0),
        0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "jobs", name), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, start), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_calendar(t, "cal"), 0);
    CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
    chime_job_free(job);
    chime_trigger_free(t);
  }
  MYSQL *holder = hold("SELECT * FROM chime_lr_calendars WHERE sched_name = "
                       "'lockrow' AND calendar_name = 'cal' FOR UPDATE");
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&S.n, 3 * 25));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  release_row(holder);
  pthread_mutex_lock(&S.mu);
  int late = 0;
  for (int i = 0; i < S.n && i < MAX_RUNS; i++)
    late += S.lateness[i] >= 1000;
  CU_ASSERT_EQUAL(late, 0);
  pthread_mutex_unlock(&S.mu);
  chime_scheduler_free(s);
}

static CU_TestInfo tests[] = {
    {"a held trigger row leaves the other triggers on time",
     test_lockrow_others_on_time},
    {"three nodes: a held trigger row leaves the others on time",
     test_lockrow_three_nodes},
    {"a held row of a FORBID job's trigger delays no other trigger",
     test_lockrow_forbid_sibling_on_time},
    {"a trigger left blocked behind a held row is unblocked once free",
     test_lockrow_left_blocked_unblocked},
    {"a held calendar row holds up no fire", test_lockrow_held_calendar},
    {"a wait for a held row is logged with the row and counted",
     test_lockrow_wait_logged_and_counted},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-lockrow", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
