/*
 * workers.c: the scheduler's fixed pool of worker threads (its own
 * pthreads, never libuv's shared pool) and one run of a fire on a worker:
 * listeners, the job function, completion in the store, then waking the
 * loop because a worker is free again.
 *
 * The queue between the loop and the workers is a ring as long as the
 * pool: the loop claims fires only for reserved workers, so it never holds
 * more than the pool can start at once.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <errno.h>
#include <time.h>
#include <stdlib.h>

/* The scheduler whose worker the calling thread is, or NULL. */
static _Thread_local const chime_scheduler *tls_worker_of;

bool chime__on_worker(const chime_scheduler *s) { return tls_worker_of == s; }

void chime__workers_push(chime_scheduler *s, chime_fire *fire) {
  assert(s->q_len < s->cfg.workers);
  s->queue[(s->q_head + s->q_len) % s->cfg.workers] = fire;
  s->q_len++;
  s->running++;
  pthread_cond_signal(&s->work_cond);
}

/* Completes the fire in the store; a refusal (fencing) is a warning.  A
 * transient failure (the database busy or reconnecting) is retried a few
 * times with back-off on this worker: the fire stays ours meanwhile. */
static void complete_fire(chime_scheduler *s, chime_fire *fire,
                          const chime_outcome *out) {
  chime_store *st = s->store;
  int r = st->ops->complete(st, fire, out);
  for (long pause_ms = CHIME__RETRY_FIRST_MS;
       (r == CHIME_EBUSY || r == CHIME_ECONNECT) &&
       pause_ms <= CHIME__RETRY_LAST_MS;
       pause_ms *= 2) {
    chime__log(s, CHIME_LOG_WARN, "completing fire %lld: %s; retrying",
               (long long)fire->fire_id, chime_strerror(r));
    chime__sleep_ms(pause_ms);
    r = st->ops->complete(st, fire, out);
  }
  if (r == CHIME_ENOTOWNER)
    chime__log(s, CHIME_LOG_WARN,
               "fire %lld of trigger %s.%s was taken over by another node; "
               "its completion was refused",
               (long long)fire->fire_id, fire->trigger->group,
               fire->trigger->name);
  else if (r < 0)
    chime__report_error(s, r, "completing a fire");
}

/* Runs one fired fire of job type (NULL: not registered): listeners, the
 * job, completion. */
static void run_fire(chime_scheduler *s, chime_fire *fire,
                     chime_jobtype *type) {
  chime_store *st = s->store;
  chime_ctx ctx = {.sched = s, .fire = fire};
  ctx.fire_ms = st->ops->now(st);
  chime_outcome out = {.started_ms = ctx.fire_ms};
  if (!type) {
    /* Never claimed by design (acquire filters on the registered types);
     * kept as a defence. */
    out.error = CHIME_EINTERNAL;
    out.message = "job type not registered on this node";
  } else if (chime__emit(s, CHIME_EVENT_TRIGGER_FIRED, &ctx, NULL, NULL, 0,
                         NULL)) {
    chime__emit(s, CHIME_EVENT_JOB_VETOED, &ctx, NULL, NULL, 0, NULL);
    out.message = "vetoed by a listener";
  } else {
    chime__emit(s, CHIME_EVENT_JOB_TO_BE_EXECUTED, &ctx, NULL, NULL, 0, NULL);
    type->fn(&ctx, type->user_data);
    if (ctx.fail_message) {
      out.error = CHIME_EJOBFAILED;
      out.message = ctx.fail_message;
    }
    chime__emit(s, CHIME_EVENT_JOB_WAS_EXECUTED, &ctx, NULL, NULL, out.error,
                out.message);
    chime__emit(s, CHIME_EVENT_TRIGGER_COMPLETED, &ctx, NULL, NULL, out.error,
                out.message);
  }
  out.finished_ms = st->ops->now(st);
  out.set_data = ctx.set_data;
  out.data = ctx.data;
  out.data_len = ctx.data_len;
  complete_fire(s, fire, &out);
  chime__ctx_clear(&ctx);
  chime__fire_free(fire);
}

static void *worker_main(void *arg) {
  chime_scheduler *s = arg;
  tls_worker_of = s;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->q_len == 0 && !s->workers_stop)
      pthread_cond_wait(&s->work_cond, &s->mu);
    if (s->q_len == 0)
      break; /* stopping, and nothing left to run */
    chime_fire *fire = s->queue[s->q_head];
    s->q_head = (s->q_head + 1) % s->cfg.workers;
    s->q_len--;
    chime_jobtype *type = chime__registry_acquire_locked(s, fire->job->type);
    bool forbid = fire->job->concurrency == CHIME_CONCURRENCY_FORBID;
    pthread_mutex_unlock(&s->mu);
    run_fire(s, fire, type);
    pthread_mutex_lock(&s->mu);
    chime_jobtype *unused = chime__registry_release_locked(type);
    if (unused) { /* re-registered while it ran: its destroy runs now */
      pthread_mutex_unlock(&s->mu);
      chime__registry_free(unused);
      pthread_mutex_lock(&s->mu);
    }
    assert(s->running > 0 && s->reserved > 0);
    s->running--;
    s->reserved--;
    pthread_cond_broadcast(&s->cond);
    /* Wake the loop when it waits for free workers and a quarter of a
     * batch is free (claiming for each worker as it frees would make
     * batches of one), or when the completion may have unblocked a FORBID
     * job's triggers that are due already; otherwise its own timer comes
     * (waking it after every run would cost a wake-up per fire). */
    if ((s->loop_starved &&
         s->cfg.workers - s->reserved >= chime__config_wake_at(&s->cfg)) ||
        forbid) {
      s->loop_starved = false;
      chime__loop_post(s, CHIME__CMD_WAKE);
    }
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

int chime__workers_start(chime_scheduler *s) {
  unsigned n = s->cfg.workers;
  s->queue = calloc(n, sizeof *s->queue);
  s->workers = calloc(n, sizeof *s->workers);
  if (!s->queue || !s->workers)
    return CHIME_ENOMEM;
  for (unsigned i = 0; i < n; i++) {
    if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0) {
      chime__workers_stop(s);
      s->workers_stop = false; /* a later start may try again */
      return CHIME_ENOMEM;
    }
    s->nworkers++;
  }
  return 0;
}

void chime__workers_stop(chime_scheduler *s) {
  pthread_mutex_lock(&s->mu);
  s->workers_stop = true;
  pthread_cond_broadcast(&s->work_cond);
  pthread_mutex_unlock(&s->mu);
  for (unsigned i = 0; i < s->nworkers; i++)
    pthread_join(s->workers[i], NULL);
  s->nworkers = 0;
}
