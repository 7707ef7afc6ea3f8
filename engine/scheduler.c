/*
 * scheduler.c: a scheduler's life: creation (configuration copied, store
 * opened), start on its own thread or attached to a host loop
 * (chime-uv.h), standby, shutdown, free; its metadata.
 *
 * Threads: start, standby and shutdown may be called from any thread
 * (shutdown from a worker does not wait for the runs); they change the
 * state under s->mu and post a mode command to the loop, which releases
 * claims and closes its handles on its own thread.  attach and detach run
 * on the host loop's thread.  free runs on any thread but a worker or the
 * loop's, once no other call on the scheduler is in progress.
 *
 * Locks, in this order (engine.h): life_mu (this file, one for the
 * process) serialises start and attach, which create threads and handles;
 * s->mu may be taken while life_mu is held, never the other way round.
 * Neither is held while joining a thread or waiting for runs, except that
 * waiting on s->cond releases s->mu as it waits.
 *
 * States: STANDBY <-> STARTED -> SHUTDOWN, and STANDBY -> SHUTDOWN; once
 * SHUTDOWN, never again anything else (asserted).
 */
#include "chime-uv.h"
#include "core/clock.h"
#include "engine/engine.h"

#include "triggers/tz.h"
#include "model/records.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* start and attach, which create threads and handles, one at a time. */
static pthread_mutex_t life_mu = PTHREAD_MUTEX_INITIALIZER;

/* Initialises the parts of s that cannot fail to be set up. */
static int sync_init(chime_scheduler *s) {
  if (pthread_mutex_init(&s->err_mu, NULL) != 0)
    return CHIME_ENOMEM;
  if (pthread_mutex_init(&s->mu, NULL) != 0) {
    pthread_mutex_destroy(&s->err_mu);
    return CHIME_ENOMEM;
  }
  /* cond and done_cond are waited on with monotonic deadlines (a
   * shutdown's, a completion's wait for company). */
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0) {
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->err_mu);
    return CHIME_ENOMEM;
  }
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  int cr = pthread_cond_init(&s->cond, &attr);
  if (cr != 0) {
    pthread_condattr_destroy(&attr);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->err_mu);
    return CHIME_ENOMEM;
  }
  if (pthread_cond_init(&s->work_cond, NULL) != 0) {
    pthread_condattr_destroy(&attr);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->err_mu);
    return CHIME_ENOMEM;
  }
  cr = pthread_cond_init(&s->done_cond, &attr);
  pthread_condattr_destroy(&attr);
  if (cr != 0) {
    pthread_cond_destroy(&s->work_cond);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->err_mu);
    return CHIME_ENOMEM;
  }
  return 0;
}

static int open_store(chime_scheduler *s, char *errbuf, size_t errbuf_len) {
  chime_store_options o = {
      .scheduler_name = s->cfg.scheduler_name,
      .instance_id = s->cfg.instance_id,
      .misfire_threshold_ms = s->cfg.misfire_threshold_ms,
      .checkin_interval_ms = s->cfg.checkin_interval_ms,
      /* workers, the loop, callers, the completer */
      .connections = s->cfg.workers + 3,
      /* Both log callbacks hear the store's lines (log.c). */
      .log = s->cfg.log || s->cfg.log_record ? chime__log_from_store : NULL,
      .log_user_data = s,
      .log_level = chime__log_level_max(&s->cfg),
      .on_recovery = chime__on_recovery, /* alerts.c */
      .recovery_user_data = s,
      .tags = s->cfg.tags,
      .on_shards_done = chime__on_shards_done, /* shards.c */
      .shards_user_data = s,
      .on_lock_wait = chime__on_lock_wait, /* alerts.c */
      .lock_wait_user_data = s,
  };
  return chime__store_open(s->cfg.store_url, &o, &s->store, errbuf, errbuf_len);
}

int chime_scheduler_new(const chime_config *config,
                        chime_scheduler **ret_scheduler, char *errbuf,
                        size_t errbuf_len) {
  char err[512] = "";
  if (errbuf && errbuf_len > 0)
    errbuf[0] = '\0';
  if (!config || !ret_scheduler)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "chime_scheduler_new: NULL %s",
                             config ? "ret_scheduler" : "config");
  chime_scheduler *s = calloc(1, sizeof *s);
  if (!s)
    return chime__record_err(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
  int r = sync_init(s);
  if (r < 0) {
    free(s);
    return chime__record_err(errbuf, errbuf_len, r,
                             "cannot create the scheduler's locks");
  }
  /* Its store computes with the zones' newest rules from here (zones.c). */
  atomic_init(&s->zones_gen, chime__zone_generation());
  s->state = CHIME_SCHEDULER_STANDBY;
  atomic_init(&s->listeners, NULL);
  atomic_init(&s->manual_seq, 0);
  r = chime__config_copy(&s->cfg, config);
  if (r == 0 && !s->cfg.instance_id)
    r = chime__instance_id_generate(&s->cfg.instance_id);
  if (r == 0) {
    r = open_store(s, err, sizeof err);
    if (r < 0 && !err[0])
      snprintf(err, sizeof err, "cannot open store: %s", chime_strerror(r));
  } else {
    snprintf(err, sizeof err, "%s", chime_strerror(r));
  }
  if (r < 0) {
    /* Never created: nothing to say "shut down" about. */
    s->state = CHIME_SCHEDULER_SHUTDOWN;
    s->shutdown_emitted = true;
    chime_scheduler_free(s);
    return chime__record_err(errbuf, errbuf_len, r, "%s", err);
  }
  assert(s->store && s->cfg.instance_id);
  *ret_scheduler = s;
  return 0;
}

/* Creates the workers, the own loop and the scheduler thread.  life_mu
 * held. */
static int spawn(chime_scheduler *s) {
  assert(!chime__mu_held(s) && !s->thread_started);
  int r = 0;
  if (s->nworkers == 0 && (r = chime__workers_start(s)) < 0)
    return r;
  if (uv_loop_init(&s->own_loop) != 0)
    return CHIME_EINTERNAL;
  r = chime__loop_init(s, &s->own_loop);
  if (r == 0 && pthread_create(&s->thread, NULL, chime__loop_thread, s) != 0)
    r = CHIME_ENOMEM;
  if (r < 0) {
    chime__loop_abort(s);
    return r;
  }
  chime__mu_lock(s);
  assert(s->loop_inited && s->nworkers == s->cfg.workers);
  s->thread_started = true;
  chime__mu_unlock(s);
  return 0;
}

int chime_scheduler_start(chime_scheduler *scheduler) {
  chime_scheduler *s = scheduler;
  int r = chime__api_enter(s, "chime_scheduler_start");
  if (r < 0)
    return r;
  pthread_mutex_lock(&life_mu);
  chime__mu_lock(s);
  bool attached = s->attached, need = !s->thread_started && !attached;
  chime_scheduler_state st = s->state;
  chime__mu_unlock(s);
  if (st == CHIME_SCHEDULER_STARTED) {
    pthread_mutex_unlock(&life_mu);
    return attached ? chime__fail(s, CHIME_ESTATE,
                                  "chime_scheduler_start: "
                                  "already running on a host "
                                  "loop")
                    : 0;
  }
  if (need && (r = spawn(s)) < 0) {
    pthread_mutex_unlock(&life_mu);
    return chime__fail(s, r, "chime_scheduler_start: cannot start threads");
  }
  chime__mu_lock(s);
  bool down = s->state == CHIME_SCHEDULER_SHUTDOWN;
  assert(down || s->thread_started || s->attached);
  if (!down)
    s->state = CHIME_SCHEDULER_STARTED;
  chime__loop_post(s, CHIME__CMD_MODE | CHIME__CMD_WAKE);
  chime__mu_unlock(s);
  pthread_mutex_unlock(&life_mu);
  if (down)
    return chime__fail(s, CHIME_ESHUTDOWN,
                       "chime_scheduler_start: shut down "
                       "meanwhile");
  chime__log(s, CHIME_LOG_INFO, "scheduler %s started as %s",
             s->cfg.scheduler_name, s->cfg.instance_id);
  chime__emit(s, CHIME_EVENT_SCHEDULER_STARTED, NULL, NULL, NULL, 0, NULL);
  return 0;
}

int chime_scheduler_standby(chime_scheduler *scheduler) {
  chime_scheduler *s = scheduler;
  int r = chime__api_enter(s, "chime_scheduler_standby");
  if (r < 0)
    return r;
  chime__mu_lock(s);
  bool changed = s->state == CHIME_SCHEDULER_STARTED;
  /* Started means a loop runs, or will, to hear the command. */
  assert(!changed || s->loop_inited);
  if (changed) {
    s->state = CHIME_SCHEDULER_STANDBY;
    chime__loop_post(s, CHIME__CMD_MODE);
    pthread_cond_signal(&s->done_cond); /* completions wait no longer */
  }
  chime__mu_unlock(s);
  if (changed)
    chime__emit(s, CHIME_EVENT_SCHEDULER_STANDBY, NULL, NULL, NULL, 0, NULL);
  return 0;
}

/* Joins the scheduler thread unless the caller runs it or another thread
 * is joining it (then waits for that). */
static void join_loop(chime_scheduler *s) {
  if (chime__on_loop(s))
    return; /* a listener on the loop: chime_scheduler_free joins */
  chime__mu_lock(s);
  if (!s->thread_started || s->joined) {
    chime__mu_unlock(s);
    return;
  }
  if (s->joining) {
    while (!s->joined)
      chime__mu_wait(s, &s->cond);
    chime__mu_unlock(s);
    return;
  }
  s->joining = true;
  /* The loop exits only once shut down (its handles closed). */
  assert(s->state == CHIME_SCHEDULER_SHUTDOWN);
  chime__mu_unlock(s);
  pthread_join(s->thread, NULL);
  chime__mu_lock(s);
  s->joined = true;
  pthread_cond_broadcast(&s->cond);
  chime__mu_unlock(s);
}

static int shutdown_until(chime_scheduler *s, int64_t deadline);

/* Waits for the running jobs and then their completions (completer.c),
 * until deadline (chime__mono_ms; -1: none).  Returns: 0; CHIME_ESTATE (on
 * a worker: it cannot wait for itself); CHIME_ETIMEDOUT. */
static int wait_for_runs(chime_scheduler *s, int64_t deadline) {
  if (chime__on_worker(s) || chime__on_loop(s)) {
    chime__log(s, CHIME_LOG_WARN,
               "a job or listener cannot wait for its own scheduler: "
               "shutdown does not wait for running jobs");
    return CHIME_ESTATE;
  }
  if (atomic_load(&s->abandoned))
    return CHIME_ETIMEDOUT; /* an earlier shutdown's deadline passed */
  int r = 0;
  chime__mu_lock(s);
  while (r == 0 &&
         (s->running > 0 || s->done_queued > 0 || s->done_writing > 0)) {
    if (deadline < 0) {
      chime__mu_wait(s, &s->cond);
      continue;
    }
    if (!chime__mu_wait_until(s, &s->cond, deadline))
      r = CHIME_ETIMEDOUT;
  }
  unsigned left_running = s->running, left_done = s->done_queued;
  if (r == CHIME_ETIMEDOUT)
    atomic_store(&s->abandoned, true); /* before mu: no completion slips */
  chime__mu_unlock(s);
  if (r == CHIME_ETIMEDOUT)
    chime__log(s, CHIME_LOG_WARN,
               "shutdown deadline passed with %u job(s) running and %u "
               "completion(s) unwritten: their fires are handed to the "
               "cluster",
               left_running, left_done);
  return r;
}

int chime_scheduler_shutdown(chime_scheduler *scheduler, int64_t deadline_ms) {
  chime_scheduler *s = scheduler;
  if (!s)
    return CHIME_EINVAL;
  if (deadline_ms == CHIME_SHUTDOWN_NO_WAIT ||
      deadline_ms == CHIME_SHUTDOWN_WAIT_FOREVER)
    return shutdown_until(s, deadline_ms); /* the runs are not told */
  if (deadline_ms < 0 || deadline_ms > CHIME__MAX_WAIT_MS)
    return chime__fail(s, CHIME_EINVAL,
                       "chime_scheduler_shutdown: deadline_ms %lld "
                       "out of range (0 to %lld, or CHIME_SHUTDOWN_NO_WAIT, "
                       "CHIME_SHUTDOWN_WAIT_FOREVER)",
                       (long long)deadline_ms, (long long)CHIME__MAX_WAIT_MS);
  int64_t deadline = chime__mono_ms() + deadline_ms;
  atomic_store(&s->cancelled, true);
  chime__runs_wake(s); /* jobs waiting in chime_ctx_wait_cancelled */
  int r = shutdown_until(s, deadline);
  if (r == CHIME_ETIMEDOUT)
    return chime__fail(s, r,
                       "chime_scheduler_shutdown: jobs still running "
                       "after %lld ms; their fires are left to recovery",
                       (long long)deadline_ms);
  if (r == CHIME_ESTATE)
    return chime__fail(s, r,
                       "chime_scheduler_shutdown: a job cannot wait "
                       "for its own scheduler");
  return r;
}

/* The shutdown: deadline CHIME_SHUTDOWN_NO_WAIT (-2) waits for nothing,
 * CHIME_SHUTDOWN_WAIT_FOREVER (-1) for every run, else
 * until that chime__mono_ms().  The loop stops claiming at once but goes
 * on checking in while runs go on, so that no other node takes their
 * fires (loop.c, close_when_settled); once this call stopped waiting (the
 * runs done, or the deadline passed) the loop hands over what is left and
 * closes, and this call joins it.  Without waiting (-2, or from a job or
 * listener) the loop closes by itself when the last run's completion
 * committed; chime_scheduler_free joins it. */
static int shutdown_until(chime_scheduler *s, int64_t deadline) {
  chime__mu_lock(s);
  bool first = s->state != CHIME_SCHEDULER_SHUTDOWN;
  assert(first || s->shutdown_emitted || s->attached);
  s->state = CHIME_SCHEDULER_SHUTDOWN;
  if (first)
    chime__loop_post(s, CHIME__CMD_MODE);
  pthread_cond_signal(&s->done_cond); /* completions wait no longer */
  bool emit = first || !s->shutdown_emitted;
  s->shutdown_emitted = true;
  chime__mu_unlock(s);
  int r = 0;
  if (deadline != CHIME_SHUTDOWN_NO_WAIT)
    r = wait_for_runs(s, deadline);
  if (deadline != CHIME_SHUTDOWN_NO_WAIT && r != CHIME_ESTATE) {
    chime__mu_lock(s);
    s->loop_close = true;
    chime__loop_post(s, CHIME__CMD_MODE);
    chime__mu_unlock(s);
    join_loop(s);
  }
  if (deadline == CHIME_SHUTDOWN_WAIT_FOREVER &&
      (r == CHIME_ESTATE || r == CHIME_ETIMEDOUT))
    r = 0; /* chime_scheduler_shutdown: logged, as it always was */
  if (emit) {
    chime__log(s, CHIME_LOG_INFO, "scheduler %s shut down",
               s->cfg.scheduler_name);
    chime__emit(s, CHIME_EVENT_SCHEDULER_SHUTDOWN, NULL, NULL, NULL, 0, NULL);
  }
  return r;
}

/* Attached, the scheduler runs exactly as started (its own loop thread,
 * workers and completer); the host's loop gets no handle and no work from
 * chime (chime-uv.h), so a slow or unreachable database never holds it up
 * and nothing needs the host to run its loop again. */
int chime_scheduler_attach(chime_scheduler *scheduler, uv_loop_t *loop) {
  chime_scheduler *s = scheduler;
  int r = chime__api_enter(s, "chime_scheduler_attach");
  if (r < 0)
    return r;
  if (!loop)
    return chime__fail(s, CHIME_EINVAL, "chime_scheduler_attach: NULL loop");
  pthread_mutex_lock(&life_mu);
  chime__mu_lock(s);
  bool busy = s->attached || s->thread_started || s->loop_inited;
  if (!busy)
    s->attached = true;
  chime__mu_unlock(s);
  if (busy) {
    pthread_mutex_unlock(&life_mu);
    return chime__fail(s, CHIME_ESTATE,
                       "chime_scheduler_attach: already "
                       "started or attached");
  }
  r = spawn(s);
  if (r < 0) {
    chime__mu_lock(s);
    s->attached = false;
    chime__mu_unlock(s);
    pthread_mutex_unlock(&life_mu);
    return chime__fail(s, r, "chime_scheduler_attach: cannot set up");
  }
  chime__mu_lock(s);
  assert(s->attached && s->loop_inited && s->thread_started);
  bool down = s->state == CHIME_SCHEDULER_SHUTDOWN;
  if (!down)
    s->state = CHIME_SCHEDULER_STARTED;
  chime__loop_post(s, CHIME__CMD_MODE | CHIME__CMD_WAKE);
  chime__mu_unlock(s);
  pthread_mutex_unlock(&life_mu);
  if (down)
    return chime__fail(s, CHIME_ESHUTDOWN,
                       "chime_scheduler_attach: shut down meanwhile");
  chime__log(s, CHIME_LOG_INFO, "scheduler %s started as %s (attached)",
             s->cfg.scheduler_name, s->cfg.instance_id);
  chime__emit(s, CHIME_EVENT_SCHEDULER_STARTED, NULL, NULL, NULL, 0, NULL);
  return 0;
}

int chime_scheduler_detach(chime_scheduler *scheduler, bool wait_for_jobs) {
  chime_scheduler *s = scheduler;
  if (!s)
    return CHIME_EINVAL;
  chime__mu_lock(s);
  bool attached = s->attached;
  s->attached = false;
  chime__mu_unlock(s);
  if (!attached)
    return chime__fail(s, CHIME_ESTATE, "chime_scheduler_detach: not attached");
  return chime_scheduler_shutdown(s, wait_for_jobs ? CHIME_SHUTDOWN_WAIT_FOREVER
                                                   : CHIME_SHUTDOWN_NO_WAIT);
}

void chime_scheduler_free(chime_scheduler *scheduler) {
  chime_scheduler *s = scheduler;
  if (!s)
    return;
  assert(!chime__on_worker(s) && !chime__mu_held(s));
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  if (s->thread_started && !s->joined) {
    pthread_join(s->thread, NULL);
    s->joined = true;
  }
  /* The own loop's handles (attached too: chime keeps none on a host's
   * loop) were closed before its thread exited. */
  chime__mu_lock(s);
  while (s->handles_open)
    chime__mu_wait(s, &s->cond);
  chime__mu_unlock(s);
  if (!chime__workers_stop(s)) {
    /* Jobs that ignored a missed shutdown deadline still run, their
     * fires handed over: the deadline bounds this call, so the last of
     * their workers to return frees the rest (docs/embedding.md). */
    chime__mu_lock(s);
    unsigned n = s->workers_alive;
    chime__mu_unlock(s);
    /* Said before orphaned is set: from then on the last of them may free
     * s at any moment. */
    if (n > 0)
      chime__log(s, CHIME_LOG_WARN,
                 "%u job(s) ignored the shutdown deadline and still run: "
                 "their threads are left to finish or end with the process",
                 n);
    chime__mu_lock(s);
    bool later = s->workers_alive > 0;
    s->orphaned = later;
    chime__mu_unlock(s);
    if (later)
      return; /* s may be gone already */
  }
  chime__scheduler_release(s);
}

void chime__scheduler_release(chime_scheduler *s) {
  /* Every claim was released or completed, every run returned. */
  assert(s->running == 0 && s->reserved == 0 && s->q_len == 0);
  assert(s->batch_count == 0 && s->unreleased_count == 0 && !s->async_live &&
         !s->handles_open);
  chime__registry_clear(s);
  chime__listeners_clear(s);
  chime__metrics_clear(&s->metrics);
  chime__zones_free(s);
  if (s->store)
    s->store->ops->free(s->store);
  free(s->queue);
  free(s->workers);
  free(s->loop_types);
  chime__config_clear(&s->cfg);
  pthread_cond_destroy(&s->work_cond);
  pthread_cond_destroy(&s->done_cond);
  pthread_cond_destroy(&s->cond);
  pthread_mutex_destroy(&s->mu);
  pthread_mutex_destroy(&s->err_mu);
  free(s->errs);
  free(s);
}

chime_scheduler_state chime_scheduler_get_state(const chime_scheduler *s) {
  if (!s)
    return CHIME_SCHEDULER_SHUTDOWN;
  chime__mu_lock(s);
  chime_scheduler_state st = s->state;
  chime__mu_unlock(s);
  return st;
}

const char *chime_scheduler_get_name(const chime_scheduler *s) {
  return s ? s->cfg.scheduler_name : NULL;
}

const char *chime_scheduler_get_instance_id(const chime_scheduler *s) {
  return s ? s->cfg.instance_id : NULL;
}

unsigned chime_scheduler_get_running_jobs(const chime_scheduler *s) {
  if (!s)
    return 0;
  chime__mu_lock(s);
  unsigned n = s->running;
  chime__mu_unlock(s);
  return n;
}
