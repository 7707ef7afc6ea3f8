/*
 * test-scheduler.c: the engine on the memory store, in real time: cron and
 * simple triggers fire on time and exactly once, FORBID jobs never overlap,
 * shutdown waits for running jobs, standby and misfires, failing jobs,
 * early wake-up on a sooner trigger, listener vetoes, unregistered job
 * types, a host loop (chime-uv.h), the job context and persisted data,
 * pausing, a busy store's completion retried (a wrapped store), calendar
 * wrappers, configuration errors and NULL handles.
 *
 * The same source builds two runners (tests/meson.build): engine/scheduler
 * on the memory store, and, with CHIME_TEST_MYSQL defined,
 * engine/scheduler-mysql, where every scheduler uses the MySQL/MariaDB store
 * of the throwaway server: the same behaviours must hold when every claim,
 * fire and completion is a durable transaction.  Its tables have their own
 * prefix (chime_es_), and clear=1 empties them whenever a scheduler opens
 * the store.
 *
 * Timing: intervals are short and margins wide; every wait is on a
 * condition variable with a generous deadline (WAIT_MS), never a bare
 * sleep, except where the test must prove that nothing happens for a
 * while.
 */
#include "chime-uv.h"
#include "chime.h"
#include "engine/engine.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 10000
#define CHIME_TEST_ERRMSG_LEN 256
#define MAX_RUNS 256

/* What the "rec" job and the listener saw. */
typedef struct rec {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int runs;
  int begun; /* runs that started (each takes the next slot) */
  int64_t sched[MAX_RUNS];
  int64_t start[MAX_RUNS]; /* wall clock, ms */
  int64_t end[MAX_RUNS];
  char trigger_group[MAX_RUNS][64];
  char data[MAX_RUNS][32];
  int active, max_active;
  int sleep_ms;     /* the job sleeps this long */
  bool fail;        /* the job calls chime_ctx_fail("boom") */
  bool finished;    /* set after the job returns from its sleep */
  int started;      /* JOB_TO_BE_EXECUTED */
  int was_executed; /* JOB_WAS_EXECUTED */
  int failed;       /* ... with an error and the message "boom" */
  int vetoed;       /* JOB_VETOED */
  int completed;    /* TRIGGER_COMPLETED */
  int misfired;     /* TRIGGER_MISFIRED */
  int lifecycle;    /* STARTED + STANDBY + SHUTDOWN */
  bool veto;        /* the listener vetoes every fire */
  int destroyed;    /* destroy callbacks */
} rec;

static void rec_init(rec *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
}

static void rec_fini(rec *r) {
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
}

/* Waits until *counter >= n or timeout_ms passed; true when reached. */
static bool rec_wait(rec *r, const int *counter, int n, int timeout_ms) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += timeout_ms / 1000;
  dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (dl.tv_nsec >= 1000000000L) {
    dl.tv_sec++;
    dl.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&r->mu);
  while (*counter < n)
    if (pthread_cond_timedwait(&r->cv, &r->mu, &dl) == ETIMEDOUT)
      break;
  bool ok = *counter >= n;
  pthread_mutex_unlock(&r->mu);
  return ok;
}

static int rec_get(rec *r, const int *counter) {
  pthread_mutex_lock(&r->mu);
  int v = *counter;
  pthread_mutex_unlock(&r->mu);
  return v;
}

static void rec_job(chime_ctx *ctx, void *user_data) {
  rec *r = user_data;
  pthread_mutex_lock(&r->mu);
  int i = r->begun < MAX_RUNS ? r->begun : MAX_RUNS - 1;
  r->begun++;
  r->sched[i] = chime_ctx_get_scheduled_ms(ctx);
  r->start[i] = chime_test_wall_ms();
  snprintf(r->trigger_group[i], sizeof r->trigger_group[i], "%s",
           chime_ctx_get_trigger_group(ctx));
  size_t len = 0;
  const void *data = chime_ctx_get_data(ctx, &len);
  snprintf(r->data[i], sizeof r->data[i], "%.*s", (int)len,
           data ? (const char *)data : "");
  if (++r->active > r->max_active)
    r->max_active = r->active;
  int nap = r->sleep_ms;
  bool fail = r->fail;
  pthread_mutex_unlock(&r->mu);
  if (nap > 0)
    chime_test_sleep_ms(nap);
  if (fail)
    chime_ctx_fail(ctx, "boom");
  pthread_mutex_lock(&r->mu);
  r->end[i] = chime_test_wall_ms();
  r->active--;
  r->finished = true;
  r->runs++;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

static bool rec_listener(const chime_event *ev, void *user_data) {
  rec *r = user_data;
  pthread_mutex_lock(&r->mu);
  bool veto = false;
  switch (chime_event_get_kind(ev)) {
  case CHIME_EVENT_TRIGGER_FIRED:
    veto = r->veto;
    break;
  case CHIME_EVENT_JOB_TO_BE_EXECUTED:
    r->started++;
    break;
  case CHIME_EVENT_JOB_WAS_EXECUTED:
    r->was_executed++;
    if (chime_event_get_error(ev) == CHIME_EJOBFAILED &&
        chime_event_get_message(ev) &&
        strcmp(chime_event_get_message(ev), "boom") == 0)
      r->failed++;
    break;
  case CHIME_EVENT_JOB_VETOED:
    r->vetoed++;
    break;
  case CHIME_EVENT_TRIGGER_COMPLETED:
    r->completed++;
    break;
  case CHIME_EVENT_TRIGGER_MISFIRED:
    r->misfired++;
    break;
  case CHIME_EVENT_SCHEDULER_STARTED:
  case CHIME_EVENT_SCHEDULER_STANDBY:
  case CHIME_EVENT_SCHEDULER_SHUTDOWN:
    r->lifecycle++;
    break;
  default:
    break;
  }
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  return veto;
}

static void rec_destroy(void *user_data) {
  rec *r = user_data;
  pthread_mutex_lock(&r->mu);
  r->destroyed++;
  pthread_mutex_unlock(&r->mu);
}

typedef struct opts {
  unsigned workers;
  int64_t idle_wait_ms;
  int64_t misfire_ms;
  const char *name;       /* the scheduler's (cluster's) name; NULL: "chime" */
  int64_t claim_ahead_ms; /* 0: the default */
  unsigned local_queue;   /* 0: the default (none) */
} opts;

static void log_stderr(void *user_data, chime_log_level level,
                       const char *message) {
  (void)user_data;
  fprintf(stderr, "[%lld] log %d: %s\n", (long long)chime_test_wall_ms(),
          (int)level, message);
}

/* The store every scheduler of the suite uses: the memory store, or (with
 * CHIME_TEST_MYSQL) the throwaway MariaDB. */
static char store_url[2048] = "memory:";

/* A scheduler on the suite's store with the "rec" job type and listener. */
static chime_scheduler *make(rec *r, opts o) {
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, store_url), 0);
  CU_ASSERT_EQUAL(chime_config_set_workers(cfg, o.workers ? o.workers : 4), 0);
  CU_ASSERT_EQUAL(chime_config_set_idle_wait_ms(
                      cfg, o.idle_wait_ms ? o.idle_wait_ms : 1000),
                  0);
  if (o.misfire_ms)
    CU_ASSERT_EQUAL(chime_config_set_misfire_threshold_ms(cfg, o.misfire_ms),
                    0);
  if (o.name)
    CU_ASSERT_EQUAL(chime_config_set_scheduler_name(cfg, o.name), 0);
  if (o.claim_ahead_ms)
    CU_ASSERT_EQUAL(chime_config_set_claim_ahead_ms(cfg, o.claim_ahead_ms), 0);
  if (o.local_queue)
    CU_ASSERT_EQUAL(chime_config_set_local_queue(cfg, o.local_queue), 0);
  if (getenv("CHIME_TEST_VERBOSE"))
    chime_config_set_log(cfg, log_stderr, NULL, CHIME_LOG_DEBUG);
  chime_scheduler *s = NULL;
  char err[256] = "";
  int rc = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "rec", rec_job, r, rec_destroy), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_listener(s, CHIME_EVENT_ALL, rec_listener,
                                               r, rec_destroy),
                  0);
  return s;
}

/* A scheduler on the suite's store with nothing registered. */
static chime_scheduler *plain(void) {
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, store_url), 0);
  int rc = chime_scheduler_new(cfg, &s, NULL, 0);
  chime_config_free(cfg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  return s;
}

/* A durable job of type type. */
static void add_job(chime_scheduler *s, const char *name, const char *type,
                    chime_concurrency conc) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", name, type, &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, conc), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, job, false), 0);
  chime_job_free(job);
}

/* Schedules a simple trigger for job g.job. */
static void add_simple(chime_scheduler *s, const char *name, const char *job,
                       int64_t start_ms, int64_t interval_ms, int32_t repeat,
                       chime_misfire misfire) {
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", name, interval_ms, repeat,
                                                 &t, err, sizeof err),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", job), 0);
  if (start_ms)
    CU_ASSERT_EQUAL(chime_trigger_set_start_ms(t, start_ms), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_misfire(t, misfire), 0);
  int rc = chime_scheduler_schedule(s, NULL, t, 0, NULL);
  CU_ASSERT_EQUAL(rc, 0);
  if (rc != 0)
    fprintf(stderr, "schedule: %s\n", chime_scheduler_errmsg(s));
  chime_trigger_free(t);
}

static void test_scheduler_cron_fires_each_second_once(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("g", "every-second",
                                               "* * * * * ?", NULL, &t, NULL,
                                               0),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, NULL, t, 0, NULL), 0);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 4, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  int n = rec_get(&r, &r.runs);
  CU_ASSERT(n >= 4);
  /* Runs may overlap when the loop catches up (ALLOW): order by time. */
  int64_t late[MAX_RUNS];
  for (int i = 0; i < n; i++)
    late[i] = r.start[i] - r.sched[i];
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && r.sched[j] < r.sched[j - 1]; j--) {
      int64_t tmp = r.sched[j];
      r.sched[j] = r.sched[j - 1];
      r.sched[j - 1] = tmp;
    }
  for (int i = 0; i < n; i++) {
    CU_ASSERT_EQUAL(r.sched[i] % 1000, 0);
    CU_ASSERT(late[i] >= -5); /* never early */
    /* On time; a first fire may be up to a second old: like Quartz, a
     * cron trigger's first fire is the first match after start - 1 s. */
    CU_ASSERT(late[i] < 1900);
    if (getenv("CHIME_TEST_VERBOSE"))
      fprintf(stderr, "fire %d sched %lld late %lld\n", i,
              (long long)r.sched[i], (long long)late[i]);
    if (i > 0)
      CU_ASSERT_EQUAL(r.sched[i] - r.sched[i - 1], 1000); /* no duplicate */
  }
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(r.destroyed, 2); /* job type and listener, once each */
  rec_fini(&r);
}

static void test_scheduler_simple_repeat_then_gone(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "four", "j", 0, 100, 3, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 4, WAIT_MS));
  /* The store deletes the finished trigger when its last run completes. */
  chime_trigger_status st = CHIME_TRIGGER_NORMAL;
  for (int64_t dl = chime_test_wall_ms() + WAIT_MS; chime_test_wall_ms() < dl;
       chime_test_sleep_ms(10)) {
    CU_ASSERT_EQUAL(chime_scheduler_get_trigger_status(s, "g", "four", &st), 0);
    if (st == CHIME_TRIGGER_NONE)
      break;
  }
  CU_ASSERT_EQUAL(st, CHIME_TRIGGER_NONE);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL(r.runs, 4);
  for (int i = 1; i < 4; i++)
    CU_ASSERT_EQUAL(r.sched[i] - r.sched[i - 1], 100);
  chime_scheduler_free(s);
  rec_fini(&r);
}

/* A fire claimed ahead (chime_config_set_claim_ahead_ms) is the node's from
 * its claim: pausing the trigger after the claim does not stop it; and its
 * run starts at its time, not at the claim. */
static void test_scheduler_claim_ahead_runs_on_time(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){.claim_ahead_ms = 1000});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  int64_t due = chime_test_wall_ms() + 1500;
  add_simple(s, "ahead", "j", due, 0, 0, CHIME_MISFIRE_SMART);
  /* Claimed at due - 1000; paused 700 ms later, still before its time. */
  chime_test_sleep_ms((int)(due - 300 - chime_test_wall_ms()));
  CU_ASSERT_EQUAL(chime_scheduler_pause_trigger(s, "g", "ahead"), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL_FATAL(r.runs, 1);
  CU_ASSERT_EQUAL(r.sched[0], due);
  /* Started at its time on the store's clock, which on MySQL is the
   * database's measured to within a round trip: this process's clock may
   * see it a few ms early. */
  CU_ASSERT(r.start[0] >= due - 50);
  CU_ASSERT(r.start[0] < due + 1000);
  chime_scheduler_free(s);
  rec_fini(&r);
}

/* How far a claim reaches and how many fires it takes
 * (chime__claim_reach_ms): a node with room claims a tenth of a second
 * past the claim-ahead time, half its free places and 64 fires at most; a
 * busy node, or one of few workers, only as much again as the claim-ahead
 * time, at most 20 ms.  At 100 fires/s on 3 nodes a default node has its
 * 32 workers and a small local-queue room free, and must reach far. */
static void test_scheduler_claim_reach(void) {
  static chime_scheduler s; /* the fields the rule reads, no thread */
  unsigned most;
  s.cfg.claim_ahead_ms = 20;
  s.cfg.workers = 32;
  s.localq_room = 18; /* a quiet node: the room follows the workers' pace */
  s.reserved = 2;
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 120);
  CU_ASSERT_EQUAL(most, 24);
  s.localq_room = 256;
  s.reserved = 10;
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 120);
  CU_ASSERT_EQUAL(most, 64);
  s.reserved = 64; /* holds a batch already */
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 40);
  CU_ASSERT_EQUAL(most, UINT_MAX);
  s.localq_room = 0;
  s.reserved = 20; /* 12 free places */
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 40);
  CU_ASSERT_EQUAL(most, UINT_MAX);
  s.cfg.workers = 4; /* few workers, however much room */
  s.localq_room = 256;
  s.reserved = 0;
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 40);
  CU_ASSERT_EQUAL(most, UINT_MAX);
  s.cfg.workers = 32;
  s.cfg.claim_ahead_ms = 200; /* as much again, at most 20 ms more */
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 300);
  s.reserved = 100;
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 220);
  s.cfg.claim_ahead_ms = 0; /* claims only what is due */
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 0);
  CU_ASSERT_EQUAL(most, UINT_MAX);
  s.cfg.batch_window_ms = 50; /* the window, whatever the room */
  CU_ASSERT_EQUAL(chime__claim_reach_ms(&s, &most), 50);
  CU_ASSERT_EQUAL(most, UINT_MAX);
}

/* With a local queue (chime_config_set_local_queue) a node claims beyond
 * its free workers and its workers drain the queue: a burst of more fires
 * than workers and queue together runs, each once, never more at once
 * than the workers. */
static void test_scheduler_local_queue_drains(void) {
  rec r;
  rec_init(&r);
  r.sleep_ms = 20;
  chime_scheduler *s = make(&r, (opts){.workers = 2, .local_queue = 5});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  for (int i = 0; i < 12; i++) {
    char name[16];
    snprintf(name, sizeof name, "burst%d", i);
    add_simple(s, name, "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  }
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.completed, 12, WAIT_MS));
  chime_scheduler_shutdown(s, true);
  CU_ASSERT_EQUAL(r.runs, 12);
  CU_ASSERT(r.max_active <= 2);
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_forbid_never_overlaps(void) {
  rec r;
  rec_init(&r);
  r.sleep_ms = 300;
  chime_scheduler *s = make(&r, (opts){.workers = 4});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_FORBID);
  add_simple(s, "fast", "j", 0, 100, CHIME_REPEAT_INDEFINITELY,
             CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 4, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  int n = r.runs;
  CU_ASSERT_EQUAL(r.max_active, 1);
  for (int i = 1; i < n && i < MAX_RUNS; i++)
    CU_ASSERT(r.start[i] >= r.end[i - 1]);
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_shutdown_waits_for_running_job(void) {
  rec r;
  rec_init(&r);
  r.sleep_ms = 300;
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "once", "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.started, 1, WAIT_MS));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  pthread_mutex_lock(&r.mu);
  CU_ASSERT(r.finished);
  pthread_mutex_unlock(&r.mu);
  CU_ASSERT_EQUAL(chime_scheduler_get_running_jobs(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_get_state(s), CHIME_SCHEDULER_SHUTDOWN);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER),
                  0); /* idempotent */
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_standby_then_misfire_on_start(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){.misfire_ms = 100});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  int64_t due = chime_test_wall_ms() + 300;
  add_simple(s, "later", "j", due, 0, 0, CHIME_MISFIRE_FIRE_NOW);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_standby(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_get_state(s), CHIME_SCHEDULER_STANDBY);
  /* Nothing fires in standby, well past the due time and the threshold. */
  CU_ASSERT_FALSE(rec_wait(&r, &r.runs, 1, 800));
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL(r.runs, 1);
  CU_ASSERT_EQUAL(r.misfired, 1);
  CU_ASSERT(r.start[0] >= due + 500);
  CU_ASSERT(r.sched[0] >= due + 500); /* FIRE_NOW: rescheduled to "now" */
  CU_ASSERT_EQUAL(r.lifecycle, 4);    /* started, standby, started, shutdown */
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_standby_cron_do_nothing_skips(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){.misfire_ms = 100});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_cron_new("g", "cron", "* * * * * ?", NULL, &t, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_misfire(t, CHIME_MISFIRE_DO_NOTHING), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_start_ms(t, chime_test_wall_ms() + 1000),
                  0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, NULL, t, 0, NULL), 0);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_standby(s), 0);
  CU_ASSERT_FALSE(rec_wait(&r, &r.runs, 1, 2500));
  int64_t resumed = chime_test_wall_ms();
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  /* DO_NOTHING: the missed seconds are skipped, the first run is the next
   * whole second after the restart. */
  CU_ASSERT(r.sched[0] > resumed - 100);
  CU_ASSERT_EQUAL(r.sched[0] % 1000, 0);
  CU_ASSERT_EQUAL(r.misfired, 1);
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_failed_job_reported_and_goes_on(void) {
  rec r;
  rec_init(&r);
  r.fail = true;
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "failing", "j", 0, 100, 2, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.failed, 3, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL(r.runs, 3);
  CU_ASSERT_EQUAL(r.was_executed, 3);
  CU_ASSERT_EQUAL(r.completed, 3);
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_sooner_trigger_wakes_loop(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){.idle_wait_ms = 60000});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  /* The loop goes to sleep for the idle wait with a trigger an hour away. */
  add_simple(s, "far", "j", chime_test_wall_ms() + 3600000, 0, 0,
             CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_FALSE(rec_wait(&r, &r.runs, 1, 300));
  int64_t due = chime_test_wall_ms() + 200;
  add_simple(s, "soon", "j", due, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, 2000));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL(r.runs, 1);
  CU_ASSERT_EQUAL(r.sched[0], due);
  CU_ASSERT(r.start[0] >= due - 5 && r.start[0] - due < 500);
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_listener_veto(void) {
  rec r;
  rec_init(&r);
  r.veto = true;
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "vetoed", "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.vetoed, 1, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL(r.runs, 0);
  CU_ASSERT_EQUAL(r.started, 0);
  CU_ASSERT_EQUAL(r.was_executed, 0);
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_unregistered_type_never_runs(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "other", "not-here", CHIME_CONCURRENCY_ALLOW);
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "foreign", "other", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_FALSE(rec_wait(&r, &r.started, 1, 300));
  add_simple(s, "control", "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL(r.runs, 1);
  CU_ASSERT_EQUAL(r.started, 1);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_get_trigger(s, "g", "foreign", &t),
                        CHIME_ESHUTDOWN);
  chime_scheduler_free(s);
  rec_fini(&r);
}

static void test_scheduler_trigger_job_with_data(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "g", "j", "override", 8, NULL), 0);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "g", "missing", NULL, 0, NULL),
                  CHIME_ENOTFOUND);
  CU_ASSERT(strstr(chime_scheduler_errmsg(s), "run_job") != NULL);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_STRING_EQUAL(r.trigger_group[0], "MANUAL_TRIGGER");
  CU_ASSERT_STRING_EQUAL(r.data[0], "override");
  chime_scheduler_free(s);
  rec_fini(&r);
}

/* Runs the host loop until the job ran or the deadline passed. */
static void test_scheduler_attached_to_host_loop(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "hosted", "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  uv_loop_t loop;
  CU_ASSERT_EQUAL_FATAL(uv_loop_init(&loop), 0);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s, &loop), 0);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s, &loop), CHIME_ESTATE);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), CHIME_ESTATE);
  /* The scheduler puts nothing on the host loop (chime-uv.h): running it
   * returns at once, and the job runs all the same.  Wait on the record,
   * not by spinning the loop (under valgrind a spinning thread starves
   * the scheduler's). */
  CU_ASSERT_EQUAL(uv_run(&loop, UV_RUN_NOWAIT), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  CU_ASSERT_EQUAL(r.runs, 1);
  CU_ASSERT_EQUAL(chime_scheduler_detach(s, true), 0);
  uv_run(&loop, UV_RUN_NOWAIT);
  CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
  chime_scheduler_free(s);
  rec_fini(&r);
}

/* Two schedulers on one host loop: each knows its loop's thread. */
static void test_scheduler_two_on_one_host_loop(void) {
  rec r1, r2;
  rec_init(&r1);
  rec_init(&r2);
  /* Two clusters, so that on a shared database neither runs the other's. */
  chime_scheduler *s1 = make(&r1, (opts){.name = "one"});
  chime_scheduler *s2 = make(&r2, (opts){.name = "two"});
  add_job(s1, "j1", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s1, "t1", "j1", 0, 0, 0, CHIME_MISFIRE_SMART);
  add_job(s2, "j2", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s2, "t2", "j2", 0, 0, 0, CHIME_MISFIRE_SMART);
  uv_loop_t loop;
  CU_ASSERT_EQUAL_FATAL(uv_loop_init(&loop), 0);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s1, &loop), 0);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s2, &loop), 0);
  CU_ASSERT_EQUAL(uv_run(&loop, UV_RUN_NOWAIT), 0);
  CU_ASSERT(rec_wait(&r1, &r1.runs, 1, WAIT_MS));
  CU_ASSERT(rec_wait(&r2, &r2.runs, 1, WAIT_MS));
  CU_ASSERT_EQUAL(r1.runs, 1);
  CU_ASSERT_EQUAL(r2.runs, 1);
  CU_ASSERT_EQUAL(chime_scheduler_detach(s1, true), 0);
  CU_ASSERT_EQUAL(chime_scheduler_detach(s2, true), 0);
  uv_run(&loop, UV_RUN_NOWAIT);
  CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
  chime_scheduler_free(s1);
  chime_scheduler_free(s2);
  rec_fini(&r1);
  rec_fini(&r2);
}

/* Issue 13: misuse of attach never hangs.  Freed while attached, freed
 * after a detach without running the host loop again, attached twice,
 * detached twice: each returns (a clear CHIME_ESTATE where it is an
 * error), and the host loop holds nothing of chime's (uv_loop_close works
 * without another uv_run). */
static void test_scheduler_attach_misuse_never_hangs(void) {
  rec r;
  rec_init(&r);
  uv_loop_t loop;
  CU_ASSERT_EQUAL_FATAL(uv_loop_init(&loop), 0);
  /* Freed while attached: detaches, runs nothing more. */
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "t", "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s, &loop), 0);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s, &loop), CHIME_ESTATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_scheduler_errmsg(s), "attach"));
  /* The host never runs its loop: the job runs all the same. */
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(uv_loop_alive(&loop), 0);
  /* Detached without running the loop, then freed. */
  s = make(&r, (opts){0});
  CU_ASSERT_EQUAL(chime_scheduler_attach(s, &loop), 0);
  CU_ASSERT_EQUAL(chime_scheduler_detach(s, true), 0);
  CU_ASSERT_EQUAL(chime_scheduler_detach(s, true), CHIME_ESTATE);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s, &loop), CHIME_ESHUTDOWN);
  chime_scheduler_free(s);
  /* Started, then attached. */
  s = make(&r, (opts){0});
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_attach(s, &loop), CHIME_ESTATE);
  CU_ASSERT_EQUAL(chime_scheduler_detach(s, true), CHIME_ESTATE);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
  rec_fini(&r);
}

/* Issue 13: chime_scheduler_shutdown with a deadline.  A job that polls
 * chime_ctx_is_cancelled returns early and the call returns 0; a job that
 * ignores it outlives the deadline: CHIME_ETIMEDOUT, and its fire is never
 * completed (its one-shot trigger stays in the store for recovery), even
 * after the job returned. */
static atomic_int sd_started, sd_returned, sd_cancel_seen;

static void polite_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  atomic_fetch_add(&sd_started, 1);
  for (int i = 0; i < 3000 && !chime_ctx_is_cancelled(ctx); i++)
    chime_test_sleep_ms(10);
  if (chime_ctx_is_cancelled(ctx))
    atomic_fetch_add(&sd_cancel_seen, 1);
  atomic_fetch_add(&sd_returned, 1);
}

static void stubborn_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  atomic_fetch_add(&sd_started, 1);
  chime_test_sleep_ms(1500);
  atomic_fetch_add(&sd_returned, 1);
}

static bool wait_atomic(atomic_int *v, int n, int timeout_ms) {
  for (int64_t end = chime_test_wall_ms() + timeout_ms;
       atomic_load(v) < n && chime_test_wall_ms() < end;)
    chime_test_sleep_ms(5);
  return atomic_load(v) >= n;
}

static void test_scheduler_shutdown_deadline_cancels(void) {
  atomic_store(&sd_started, 0);
  atomic_store(&sd_returned, 0);
  atomic_store(&sd_cancel_seen, 0);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(NULL, 0), CHIME_EINVAL);
  CU_ASSERT_FALSE(chime_ctx_is_cancelled(NULL));
  chime_scheduler *s = plain();
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, -3), CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_scheduler_errmsg(s), "deadline_ms"));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, INT64_C(86400001)), CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "polite", polite_job, NULL, NULL),
      0);
  add_job(s, "polite", "polite", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "polite", "polite", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_FATAL(wait_atomic(&sd_started, 1, WAIT_MS));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, 20000), 0);
  CU_ASSERT_EQUAL(atomic_load(&sd_cancel_seen), 1);
  CU_ASSERT_EQUAL(atomic_load(&sd_returned), 1);
  /* Completed: the one-shot trigger is gone. */
  chime_trigger_status st = CHIME_TRIGGER_NORMAL;
  CU_ASSERT_EQUAL(s->store->ops->trigger_status(s->store, "g", "polite", &st),
                  0);
  CU_ASSERT_EQUAL(st, CHIME_TRIGGER_NONE);
  chime_scheduler_free(s);
}

static void test_scheduler_shutdown_deadline_times_out(void) {
  atomic_store(&sd_started, 0);
  atomic_store(&sd_returned, 0);
  chime_scheduler *s = plain();
  CU_ASSERT_EQUAL(chime_scheduler_register_job_type(s, "stubborn", stubborn_job,
                                                    NULL, NULL),
                  0);
  add_job(s, "stubborn", "stubborn", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "stubborn", "stubborn", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_FATAL(wait_atomic(&sd_started, 1, WAIT_MS));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, 50), CHIME_ETIMEDOUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_scheduler_errmsg(s), "recovery"));
  CU_ASSERT_EQUAL(atomic_load(&sd_returned), 0);
  CU_ASSERT_STRING_EQUAL(chime_err_name(CHIME_ETIMEDOUT), "CHIME_ETIMEDOUT");
  /* The job returns later; its completion is never written (a clustered
   * store was handed the fire at the deadline: its history says so, never
   * OK). */
  CU_ASSERT(wait_atomic(&sd_returned, 1, WAIT_MS));
  chime_test_sleep_ms(200);
  chime_history *h = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, "g", "stubborn", NULL, NULL,
                                                CHIME_OUTCOME_OK, 0, 0, 0, 10,
                                                &h),
                        0);
  CU_ASSERT_EQUAL(chime_history_get_count(h), 0);
  chime_history_free(h);
  chime_scheduler_free(s);
}

/* Issue 13: chime_scheduler_schedule's flags.  Every node of a
 * replicated server schedules the same job and trigger at start-up with
 * CHIME_SCHEDULE_IF_ABSENT: each gets 0 and one copy is kept;
 * CHIME_SCHEDULE_REPLACE replaces both in one step. */
typedef struct startup_arg {
  chime_scheduler *s;
  int64_t due;
  int rc;
  int64_t first;
} startup_arg;

static void *startup_main(void *p) {
  startup_arg *a = p;
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  a->rc = chime_job_new("g", "up", "rec", &job, NULL, 0);
  if (a->rc == 0)
    a->rc = chime_job_set_data(job, "first", 5);
  if (a->rc == 0)
    a->rc = chime_trigger_simple_new("g", "up", 0, 0, &t, NULL, 0);
  if (a->rc == 0)
    a->rc = chime_trigger_set_job(t, "g", "up");
  if (a->rc == 0)
    a->rc = chime_trigger_set_start_ms(t, a->due);
  if (a->rc == 0)
    a->rc = chime_scheduler_schedule(a->s, job, t, CHIME_SCHEDULE_IF_ABSENT,
                                     &a->first);
  chime_job_free(job);
  chime_trigger_free(t);
  return NULL;
}

static void test_scheduler_schedule_with_flags(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  int64_t due = chime_test_wall_ms() + 3600 * 1000;
  startup_arg args[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (startup_arg){.s = s, .due = due + i * 1000};
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, startup_main, &args[i]),
                          0);
  }
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  int64_t first = args[0].first;
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(args[i].rc, 0);
    CU_ASSERT_EQUAL(args[i].first, first); /* the one stored */
  }
  CU_ASSERT(first >= due && first <= due + 3000);
  chime_trigger *t = NULL;
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", "up", 0, 0, &t, NULL, 0),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "up"), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_start_ms(t, due + 60000), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "up", "rec", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_data(job, "second", 6), 0);
  /* No flag: taken. */
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, job, t, 0, NULL), CHIME_EEXISTS);
  CU_ASSERT_EQUAL(
      chime_scheduler_schedule(
          s, job, t, CHIME_SCHEDULE_REPLACE | CHIME_SCHEDULE_IF_ABSENT, NULL),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, job, t, 1u << 7, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_scheduler_errmsg(s), "flags"));
  /* Replace: the new definition, in one step. */
  int64_t replaced = 0;
  CU_ASSERT_EQUAL(
      chime_scheduler_schedule(s, job, t, CHIME_SCHEDULE_REPLACE, &replaced),
      0);
  CU_ASSERT_EQUAL(replaced, due + 60000);
  chime_job *got = NULL;
  CU_ASSERT_EQUAL(chime_scheduler_get_job(s, "g", "up", &got), 0);
  size_t len = 0;
  const void *data = got ? chime_job_get_data(got, &len) : NULL;
  CU_ASSERT(data && len == 6 && memcmp(data, "second", 6) == 0);
  chime_job_free(got);
  chime_job_free(job);
  chime_trigger_free(t);
  chime_scheduler_free(s);
  rec_fini(&r);
}

/* Issue 13: accurate log lines, captured by a log callback. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[16384];

static void log_capture(void *user_data, chime_log_level level,
                        const char *message) {
  (void)user_data;
  (void)level;
  pthread_mutex_lock(&log_mu);
  size_t n = strlen(log_text);
  snprintf(log_text + n, sizeof log_text - n, "%s\n", message);
  pthread_mutex_unlock(&log_mu);
}

static bool log_has(const char *needle) {
  pthread_mutex_lock(&log_mu);
  bool has = strstr(log_text, needle) != NULL;
  pthread_mutex_unlock(&log_mu);
  return has;
}

static void noop_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
}

static chime_scheduler *logged(const char *url, int64_t misfire_ms, int *rc) {
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, url), 0);
  CU_ASSERT_EQUAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  CU_ASSERT_EQUAL(chime_config_set_misfire_threshold_ms(cfg, misfire_ms), 0);
  CU_ASSERT_EQUAL(chime_config_set_log(cfg, log_capture, NULL, CHIME_LOG_DEBUG),
                  0);
  chime_scheduler *s = NULL;
  *rc = chime_scheduler_new(cfg, &s, NULL, 0);
  chime_config_free(cfg);
  return s;
}

static void test_scheduler_log_lines_are_accurate(void) {
  pthread_mutex_lock(&log_mu);
  log_text[0] = '\0';
  pthread_mutex_unlock(&log_mu);
  /* A scheduler that was never created never "shuts down". */
  int rc = 0;
  chime_scheduler *s = logged("nosuch://x", 1000, &rc);
  CU_ASSERT_EQUAL(rc, CHIME_EURL);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_FALSE(log_has("shut down"));
  /* The first connection is no reconnect; a misfire names its trigger
   * and job. */
  s = logged(store_url, 100, &rc);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "quiet", noop_job, NULL, NULL), 0);
  add_job(s, "late-job", "quiet", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "late", "late-job", chime_test_wall_ms() - 60000, 3600 * 1000,
             -1, CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  for (int64_t end = chime_test_wall_ms() + WAIT_MS;
       chime_test_wall_ms() < end &&
       !log_has("trigger g.late (job g.late-job) misfired");)
    chime_test_sleep_ms(10);
  CU_ASSERT(log_has("trigger g.late (job g.late-job) misfired"));
  chime_scheduler_free(s);
  CU_ASSERT_FALSE(log_has("reconnected"));
  CU_ASSERT(log_has("shut down"));
}

static void test_scheduler_config_validation(void) {
  chime_config *c = NULL;
  CU_ASSERT_EQUAL(chime_config_new(NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&c), 0);
  CU_ASSERT_EQUAL(chime_config_set_workers(c, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_workers(c, 1025), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_workers(c, 1024), 0);
  CU_ASSERT_EQUAL(chime_config_set_idle_wait_ms(c, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_batch_size(c, 1001), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_batch_size(c, 0), 0);
  CU_ASSERT_EQUAL(chime_config_set_batch_window_ms(c, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_claim_ahead_ms(c, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_claim_ahead_ms(c, 1001), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_claim_ahead_ms(c, 0), 0);
  CU_ASSERT_EQUAL(chime_config_set_claim_ahead_ms(NULL, 5), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_local_queue(c, 4097), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_local_queue(NULL, 1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_local_queue(c, 4096), 0);
  CU_ASSERT_EQUAL(chime_config_set_local_queue(c, 0), 0);
  CU_ASSERT_EQUAL(chime_config_set_misfire_threshold_ms(c, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_checkin_interval_ms(c, -5), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_log(c, NULL, NULL, (chime_log_level)9),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_scheduler_name(c, ""), CHIME_EINVAL);
  char big[300];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  CU_ASSERT_EQUAL(chime_config_set_scheduler_name(c, big), CHIME_ELIMIT);
  CU_ASSERT_EQUAL(chime_config_set_instance_id(c, "node-1"), 0);
  CU_ASSERT_EQUAL(chime_config_set_instance_id(c, NULL), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(c, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_store_url(c, "nosuch://x"), 0);
  chime_scheduler *s = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL(chime_scheduler_new(c, &s, err, sizeof err), CHIME_EURL);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT(strlen(err) > 0);
  /* A malformed URL is never echoed: it may hold a password anywhere. */
  static const char *const leaky[] = {
      "mariadb://u:hunter2secret@h/db", "MYSQL://u:hunter2secret@h/db",
      "mysql:/u:hunter2secret@h/db", " mysql://u:hunter2secret@h/db",
      "u:hunter2secret@h/db"};
  for (size_t i = 0; i < sizeof leaky / sizeof leaky[0]; i++) {
    CU_ASSERT_EQUAL(chime_config_set_store_url(c, leaky[i]), 0);
    err[0] = '\0';
    CU_ASSERT_EQUAL(chime_scheduler_new(c, &s, err, sizeof err), CHIME_EURL);
    CU_ASSERT(strlen(err) > 0);
    CU_ASSERT_PTR_NULL(strstr(err, "hunter2"));
  }
  CU_ASSERT_EQUAL(chime_scheduler_new(NULL, &s, NULL, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_config_set_store_url(c, "memory:"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_new(c, &s, err, sizeof err), 0);
  /* The automatic instance id: host name, '-', 16 hex digits. */
  const char *id = chime_scheduler_get_instance_id(s);
  const char *dash = strrchr(id, '-');
  CU_ASSERT_PTR_NOT_NULL_FATAL(dash);
  CU_ASSERT_EQUAL(strlen(dash + 1), 16);
  CU_ASSERT_EQUAL(strspn(dash + 1, "0123456789abcdef"), 16);
  CU_ASSERT_STRING_EQUAL(chime_scheduler_get_name(s), "chime");
  CU_ASSERT_EQUAL(chime_scheduler_register_job_type(s, "", rec_job, NULL, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_register_job_type(s, "t", NULL, NULL, NULL),
                  CHIME_EINVAL);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "nd", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, job, false), CHIME_EINVAL);
  CU_ASSERT(strstr(chime_scheduler_errmsg(s), "durable") != NULL);
  chime_job_free(job);
  chime_scheduler_free(s);
  chime_config_free(c);
}

/* A listener added while the scheduler fires hears the runs after it. */
static void test_scheduler_listener_added_after_start(void) {
  rec r, late;
  rec_init(&r);
  rec_init(&late);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_listener(s, CHIME_EVENT_JOB_WAS_EXECUTED,
                                               rec_listener, &late, NULL),
                  0);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "g", "j", NULL, 0, NULL), 0);
  CU_ASSERT(rec_wait(&late, &late.was_executed, 1, WAIT_MS));
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(late.was_executed, 1);
  CU_ASSERT_EQUAL(late.lifecycle, 0); /* not in its mask */
  rec_fini(&late);
  rec_fini(&r);
}

static bool quiet_listener(const chime_event *ev, void *user_data) {
  (void)ev;
  (void)user_data;
  return false;
}

/* CHIME_EVENT_ALL, generated from CHIME_EVENT_MAP, is every kind's bit and
 * nothing else: the bits 0 to n-1 of the map's n kinds, with no gap (the
 * twelve kinds before the list existed among them). */
static void test_scheduler_event_all_from_the_map(void) {
  unsigned all = 0, n = 0;
#define EVENT_BIT(name, bit, thread)                                           \
  CU_ASSERT_EQUAL(all &(1u << (bit)), 0);                                      \
  CU_ASSERT_EQUAL((unsigned)CHIME_EVENT_##name, 1u << (bit));                  \
  CU_ASSERT(strlen(thread) > 0);                                               \
  all |= 1u << (bit);                                                          \
  n++;
  CHIME_EVENT_MAP(EVENT_BIT)
#undef EVENT_BIT
  /* The first twelve kinds, then others added at the end in bit order. */
  CU_ASSERT(n >= 12);
  CU_ASSERT_EQUAL(all & 0xFFFu, 0xFFFu);
  CU_ASSERT_EQUAL((unsigned)CHIME_EVENT_ALL, all);
  /* add_listener accepts exactly the mask's bits. */
  chime_scheduler *s = plain();
  CU_ASSERT_EQUAL(chime_scheduler_add_listener(s, CHIME_EVENT_ALL + 1u,
                                               quiet_listener, NULL, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_scheduler_errmsg(s), "event mask"));
  CU_ASSERT_EQUAL(chime_scheduler_add_listener(s, CHIME_EVENT_ALL,
                                               quiet_listener, NULL, NULL),
                  0);
  chime_scheduler_free(s);
}

static void test_scheduler_null_handles_and_after_shutdown(void) {
  chime_key *keys = NULL;
  size_t n = 0;
  chime_config_free(NULL);
  chime_scheduler_free(NULL);
  CU_ASSERT_EQUAL(chime_scheduler_start(NULL), CHIME_EINVAL);
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(NULL), "");
  CU_ASSERT_EQUAL(chime_scheduler_standby(NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(NULL, CHIME_SHUTDOWN_WAIT_FOREVER),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(NULL, "t", rec_job, NULL, NULL),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(NULL, NULL, false), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(NULL, NULL, NULL, 0, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(NULL, "g", "n", NULL, 0, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_list_jobs(NULL, CHIME_MATCH_ANY, NULL, &keys, &n),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_pause_all(NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_add_listener(NULL, CHIME_EVENT_ALL,
                                               rec_listener, NULL, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_attach(NULL, NULL), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(chime_scheduler_get_instance_id(NULL));
  CU_ASSERT_EQUAL(chime_scheduler_get_running_jobs(NULL), 0);
  CU_ASSERT_PTR_NULL(chime_ctx_get_job_name(NULL));
  CU_ASSERT_EQUAL(chime_ctx_fail(NULL, "x"), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_event_get_error(NULL), 0);

  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  CU_ASSERT_EQUAL(
      chime_scheduler_list_jobs(s, CHIME_MATCH_ANY, NULL, &keys, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  chime_key_free_array(keys, n);
  CU_ASSERT_EQUAL(chime_scheduler_get_job(s, NULL, "j", NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_NO_WAIT), 0);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), CHIME_ESHUTDOWN);
  CU_ASSERT_EQUAL(chime_scheduler_standby(s), CHIME_ESHUTDOWN);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "x", rec_job, NULL, NULL),
      CHIME_ESHUTDOWN);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "g", "j", NULL, 0, NULL),
                  CHIME_ESHUTDOWN);
  CU_ASSERT_EQUAL(chime_scheduler_pause_all(s), CHIME_ESHUTDOWN);
  CU_ASSERT(strstr(chime_scheduler_errmsg(s), "shut down") != NULL);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(r.destroyed, 2);
  rec_fini(&r);
}

static void test_scheduler_register_replaces_and_destroys_once(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  rec other;
  rec_init(&other);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "rec", rec_job, &other, rec_destroy),
      0);
  CU_ASSERT_EQUAL(r.destroyed, 1); /* the replaced one, at once: idle */
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "t", "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&other, &other.runs, 1, WAIT_MS));
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(other.destroyed, 1);
  CU_ASSERT_EQUAL(r.destroyed, 2); /* plus the listener */
  CU_ASSERT_EQUAL(r.runs, 0);
  rec_fini(&other);
  rec_fini(&r);
}

static void test_scheduler_pause_and_resume_trigger(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "paused", "j", chime_test_wall_ms() + 200, 0, 0,
             CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_pause_trigger(s, "g", "paused"), 0);
  chime_trigger_status st = CHIME_TRIGGER_NONE;
  CU_ASSERT_EQUAL(chime_scheduler_get_trigger_status(s, "g", "paused", &st), 0);
  CU_ASSERT_EQUAL(st, CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(chime_scheduler_pause_trigger(s, "g", "nope"),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_FALSE(rec_wait(&r, &r.runs, 1, 500));
  CU_ASSERT_EQUAL(chime_scheduler_resume_trigger(s, "g", "paused"), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  CU_ASSERT_EQUAL(r.runs, 1);
  chime_scheduler_free(s);
  rec_fini(&r);
}

/* A store whose first completion fails as if the database were busy. */
static const chime_store_ops *real_ops;
static chime_store_ops flaky_ops;
static atomic_int complete_calls;

static int flaky_complete(chime_store *st, const chime_fire *fire,
                          const chime_run_result *out) {
  if (atomic_fetch_add(&complete_calls, 1) == 0)
    return CHIME_EBUSY;
  return real_ops->complete(st, fire, out);
}

/* The same for a store that completes in batches (off the workers). */
static void flaky_complete_many(chime_store *st, const chime_fire *const *fires,
                                const chime_run_result *const *outs, size_t n,
                                int *results) {
  if (atomic_fetch_add(&complete_calls, 1) == 0) {
    for (size_t i = 0; i < n; i++)
      results[i] = CHIME_EBUSY;
    return;
  }
  real_ops->complete_many(st, fires, outs, n, results);
}

static void test_scheduler_complete_retried_when_busy(void) {
  rec r;
  rec_init(&r);
  chime_scheduler *s = make(&r, (opts){0});
  real_ops = s->store->ops;
  flaky_ops = *real_ops;
  flaky_ops.complete = flaky_complete;
  if (real_ops->complete_many)
    flaky_ops.complete_many = flaky_complete_many;
  atomic_store(&complete_calls, 0);
  s->store->ops = &flaky_ops;
  add_job(s, "j", "rec", CHIME_CONCURRENCY_ALLOW);
  add_simple(s, "once", "j", 0, 0, 0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&r, &r.runs, 1, WAIT_MS));
  chime_scheduler_shutdown(
      s, CHIME_SHUTDOWN_WAIT_FOREVER); /* waits for the retried completion */
  CU_ASSERT_EQUAL(atomic_load(&complete_calls), 2);
  s->store->ops = real_ops;
  chime_trigger_status st = CHIME_TRIGGER_NORMAL;
  CU_ASSERT_EQUAL(real_ops->trigger_status(s->store, "g", "once", &st), 0);
  CU_ASSERT_EQUAL(st, CHIME_TRIGGER_NONE); /* completed: the trigger is gone */
  chime_scheduler_free(s);
  rec_fini(&r);
}

/* What the "ctx" job saw of its context, per run. */
typedef struct ctx_seen {
  rec r;
  int64_t fire_id[4];
  int64_t times[4];
  int64_t prev[4], next[4];
  bool owned[4];
  char data[4][16];
} ctx_seen;

/* Records the context and counts runs in its data ("run-1", "run-2"). */
static void ctx_job(chime_ctx *ctx, void *user_data) {
  ctx_seen *c = user_data;
  pthread_mutex_lock(&c->r.mu);
  int i = c->r.runs < 4 ? c->r.runs : 3;
  c->fire_id[i] = chime_ctx_get_fire_id(ctx);
  c->times[i] = chime_ctx_get_times_triggered(ctx);
  c->prev[i] = chime_ctx_get_prev_fire_ms(ctx);
  c->next[i] = chime_ctx_get_next_fire_ms(ctx);
  c->owned[i] = chime_ctx_is_still_owned(ctx);
  size_t len = 0;
  const char *d = chime_ctx_get_data(ctx, &len);
  snprintf(c->data[i], sizeof c->data[i], "%.*s", (int)len, d ? d : "");
  char next[16];
  int n = snprintf(next, sizeof next, "run-%d", i + 1);
  CU_ASSERT_EQUAL(chime_ctx_set_job_data(ctx, next, (size_t)n), 0);
  CU_ASSERT_STRING_EQUAL(chime_ctx_get_job_type(ctx), "ctx");
  CU_ASSERT_FALSE(chime_ctx_is_recovering(ctx));
  CU_ASSERT(chime_ctx_get_fire_ms(ctx) >= chime_ctx_get_scheduled_ms(ctx));
  c->r.runs++;
  pthread_cond_broadcast(&c->r.cv);
  pthread_mutex_unlock(&c->r.mu);
}

static void test_scheduler_ctx_and_persisted_data(void) {
  ctx_seen c;
  memset(&c, 0, sizeof c);
  rec_init(&c.r);
  chime_scheduler *s = make(&c.r, (opts){0});
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "ctx", ctx_job, &c, NULL), 0);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "pj", "ctx", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_persist_data(job, true), 0);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL(chime_job_set_data(job, "run-0", 5), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, job, false), 0);
  chime_job_free(job);
  add_simple(s, "twice", "pj", 0, 100, 1, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT(rec_wait(&c.r, &c.r.runs, 2, WAIT_MS));
  chime_scheduler_standby(s);
  /* The data a run set is saved when it completes, before the next run of
   * this FORBID job starts. */
  CU_ASSERT_STRING_EQUAL(c.data[0], "run-0");
  CU_ASSERT_STRING_EQUAL(c.data[1], "run-1");
  CU_ASSERT(c.owned[0] && c.owned[1]);
  CU_ASSERT(c.fire_id[1] > c.fire_id[0]);
  CU_ASSERT_EQUAL(c.times[0], 1);
  CU_ASSERT_EQUAL(c.times[1], 2);
  CU_ASSERT_EQUAL(c.next[0] - c.prev[0], 100);
  CU_ASSERT_EQUAL(c.next[1], CHIME_NO_FIRE_MS);
  CU_ASSERT_EQUAL(c.prev[1], c.next[0]);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  rec_fini(&c.r);
}

static void test_scheduler_calendar_wrappers(void) {
  chime_calendar *cal = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL(chime_calendar_from_string(NULL, &cal, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL_FATAL(
      chime_calendar_from_string("chime-calendar 1\nweekly days=sat,sun\n",
                                 &cal, err, sizeof err),
      0);
  /* 2026-11-28 is a Saturday, 2026-11-30 a Monday. */
  CU_ASSERT_FALSE(chime_calendar_is_included(cal, INT64_C(1795867200000)));
  CU_ASSERT_TRUE(chime_calendar_is_included(cal, INT64_C(1796040000000)));
  char *text = NULL;
  CU_ASSERT_EQUAL(chime_calendar_to_string(cal, &text), 0);
  CU_ASSERT_PTR_NOT_NULL(text);
  if (text)
    CU_ASSERT(strstr(text, "weekly") != NULL);
  chime_free(text);
  CU_ASSERT_EQUAL(chime_calendar_to_string(NULL, &text), CHIME_EINVAL);
  chime_calendar_free(cal);
  chime_calendar_free(NULL);
}

/* What another thread saw of its own failed call on s1. */
typedef struct errmsg_probe {
  chime_scheduler *s1, *s2;
  int code;
  char seen1[CHIME_TEST_ERRMSG_LEN], seen2[CHIME_TEST_ERRMSG_LEN];
} errmsg_probe;

static void *errmsg_thread(void *arg) {
  errmsg_probe *p = arg;
  p->code = chime_scheduler_remove_job(p->s1, "g", "absent");
  snprintf(p->seen1, sizeof p->seen1, "%s", chime_scheduler_errmsg(p->s1));
  snprintf(p->seen2, sizeof p->seen2, "%s", chime_scheduler_errmsg(p->s2));
  return NULL;
}

/* One of many threads failing on one scheduler at once, each with a group
 * of its own length (over the limit), each reading back its own detail,
 * which says that length. */
typedef struct errmsg_racer {
  chime_scheduler *s;
  char group[320];
  char says[64]; /* what its detail must contain */
  bool own;      /* it read its own detail every time */
} errmsg_racer;

static void *errmsg_race(void *arg) {
  errmsg_racer *r = arg;
  r->own = true;
  for (int i = 0; i < 200; i++) {
    chime_job *job = NULL;
    if (chime_scheduler_get_job(r->s, r->group, "n", &job) != CHIME_ELIMIT ||
        !strstr(chime_scheduler_errmsg(r->s), r->says))
      r->own = false;
  }
  return NULL;
}

static void errmsg_many_threads(chime_scheduler *s) {
  enum { THREADS = 16 };
  static errmsg_racer racers[THREADS];
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) {
    racers[i] = (errmsg_racer){.s = s};
    memset(racers[i].group, 'g', 280 + i);
    snprintf(racers[i].says, sizeof racers[i].says, "group is %d bytes long",
             280 + i);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, errmsg_race, &racers[i]),
                          0);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(th[i], NULL);
    CU_ASSERT_TRUE(racers[i].own);
  }
}

/* The contract of chime_scheduler_errmsg in chime.h, sentence by
 * sentence. */
static void test_scheduler_errmsg_per_thread_and_handle(void) {
  chime_scheduler *s1 = plain(), *s2 = plain();
  /* "" when the calling thread never had a call on it fail. */
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s1), "");
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(NULL), "");
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s1, NULL, false), CHIME_EINVAL);
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s1),
                         "chime_scheduler_add_job: NULL job");
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s2), "");
  /* Another thread's failure on s1 is that thread's: it sees its own
   * detail, and this thread's is untouched. */
  errmsg_probe p = {.s1 = s1, .s2 = s2};
  pthread_t th;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, errmsg_thread, &p), 0);
  pthread_join(th, NULL);
  CU_ASSERT_EQUAL(p.code, CHIME_ENOTFOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(p.seen1, "chime_scheduler_remove_job"));
  CU_ASSERT_STRING_EQUAL(p.seen2, "");
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s1),
                         "chime_scheduler_add_job: NULL job");
  /* A call that succeeds leaves the detail of the last failed one. */
  chime_key *keys = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL(
      chime_scheduler_list_jobs(s1, CHIME_MATCH_ANY, NULL, &keys, &n), 0);
  chime_key_free_array(keys, n);
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s1),
                         "chime_scheduler_add_job: NULL job");
  /* A failure on s2 is kept apart from s1's. */
  CU_ASSERT_EQUAL(chime_scheduler_pause_trigger(s2, "g", ""), CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(chime_scheduler_errmsg(s2), "chime_scheduler_pause_trigger"));
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s1),
                         "chime_scheduler_add_job: NULL job");
  /* The registration of a bad job type names the call and the argument. */
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s2, "", rec_job, NULL, NULL),
      CHIME_EINVAL);
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s2),
                         "chime_scheduler_register_job_type: job type is "
                         "empty");
  /* The detail is kept with each scheduler: a thread failing on many
   * schedulers loses none of it (it used to keep four). */
  enum { MANY = 9 };
  chime_scheduler *more[MANY];
  for (int i = 0; i < MANY; i++) {
    more[i] = plain();
    CU_ASSERT_EQUAL(chime_scheduler_get_job(more[i], "g", "absent", NULL),
                    CHIME_EINVAL);
  }
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s1),
                         "chime_scheduler_add_job: NULL job");
  for (int i = 0; i < MANY; i++) {
    CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(more[i]),
                           "chime_scheduler_get_job: NULL ret_job");
    chime_scheduler_free(more[i]);
  }
  /* Many threads failing on one scheduler: each reads its own detail. */
  errmsg_many_threads(s2);
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s2),
                         "chime_scheduler_register_job_type: job type is "
                         "empty");
  /* The detail belongs to the scheduler: a new one (perhaps at the
   * address of a freed one) has none. */
  chime_scheduler_free(s1);
  chime_scheduler *s3 = plain();
  CU_ASSERT_STRING_EQUAL(chime_scheduler_errmsg(s3), "");
  chime_scheduler_free(s3);
  chime_scheduler_free(s2);
}

static CU_TestInfo scheduler_tests[] = {
    {"cron * * * * * ? fires each second once",
     test_scheduler_cron_fires_each_second_once},
    {"simple repeat 3 fires 4 times then is gone",
     test_scheduler_simple_repeat_then_gone},
    {"a fire claimed ahead runs at its time, paused or not",
     test_scheduler_claim_ahead_runs_on_time},
    {"a claim's reach and its most fires follow the node's room",
     test_scheduler_claim_reach},
    {"a local queue is drained by the workers",
     test_scheduler_local_queue_drains},
    {"FORBID job never overlaps", test_scheduler_forbid_never_overlaps},
    {"shutdown(wait) lets a running job finish",
     test_scheduler_shutdown_waits_for_running_job},
    {"standby stops firing, start applies misfire",
     test_scheduler_standby_then_misfire_on_start},
    {"standby, then cron DO_NOTHING skips missed times",
     test_scheduler_standby_cron_do_nothing_skips},
    {"failed job reported, trigger goes on",
     test_scheduler_failed_job_reported_and_goes_on},
    {"sooner trigger wakes the loop", test_scheduler_sooner_trigger_wakes_loop},
    {"listener veto", test_scheduler_listener_veto},
    {"unregistered job type never runs",
     test_scheduler_unregistered_type_never_runs},
    {"trigger_job with data", test_scheduler_trigger_job_with_data},
    {"attached to a host loop", test_scheduler_attached_to_host_loop},
    {"attach misuse never hangs", test_scheduler_attach_misuse_never_hangs},
    {"a shutdown deadline cancels jobs",
     test_scheduler_shutdown_deadline_cancels},
    {"schedule_with: replace, if absent", test_scheduler_schedule_with_flags},
    {"log lines are accurate", test_scheduler_log_lines_are_accurate},
    {"a shutdown deadline times out and completes nothing",
     test_scheduler_shutdown_deadline_times_out},
    {"two schedulers on one host loop", test_scheduler_two_on_one_host_loop},
    {"config validation", test_scheduler_config_validation},
    {"NULL handles and calls after shutdown",
     test_scheduler_null_handles_and_after_shutdown},
    {"register replaces, destroy once",
     test_scheduler_register_replaces_and_destroys_once},
    {"pause and resume a trigger", test_scheduler_pause_and_resume_trigger},
    {"a busy store's completion is retried",
     test_scheduler_complete_retried_when_busy},
    {"job context and persisted data", test_scheduler_ctx_and_persisted_data},
    {"calendar wrappers", test_scheduler_calendar_wrappers},
    {"a listener added after start hears later runs",
     test_scheduler_listener_added_after_start},
    {"CHIME_EVENT_ALL comes from CHIME_EVENT_MAP",
     test_scheduler_event_all_from_the_map},
    {"errmsg is per thread and per scheduler",
     test_scheduler_errmsg_per_thread_and_handle},
    CU_TEST_INFO_NULL,
};

#ifdef CHIME_TEST_MYSQL
/* The suite's store URL: the test database, own prefix, emptied on open. */
static int init_url(void) {
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_es_");
}

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/scheduler-mysql",
       .pInitFunc = init_url,
       .pTests = scheduler_tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end(); /* Connector/C's one-time allocations */
  return r;
}
#else
int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/scheduler", .pTests = scheduler_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
#endif
