/*
 * workers.c: the scheduler's fixed pool of worker threads (its own
 * pthreads, never libuv's shared pool) and one run of a fire on a worker:
 * listeners, the job function, completion in the store, then waking the
 * loop because a worker is free again.
 *
 * The queue between the loop and the workers is a ring as long as the
 * pool: the loop claims fires only for reserved workers, so it never holds
 * more than the pool can start at once.  The loop puts fires in with
 * chime__workers_push (threads.c, where the threads meet); the workers
 * here take them out.
 *
 * Threads and locks (engine.h): the queue, running, reserved and
 * workers_stop are guarded by s->mu, on which the workers also wait
 * (work_cond).  A worker takes a fire and its job type's reference under
 * s->mu, then releases it for the whole run: listeners, the job and the
 * store's complete() run without it, and the replaced job type's destroy
 * function after dropping it again.  The fire is the worker's alone from
 * the moment it left the queue.
 *
 * Invariants (asserted): q_len <= running <= reserved <= workers; a fire in
 * the queue was fired (result 0) and has its job.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Completes the fire in the store; a refusal (fencing) is a warning.  A
 * transient failure (the database busy or reconnecting) is retried a few
 * times with back-off on this worker: the fire stays ours meanwhile. */
static void complete_fire(chime_scheduler *s, chime_fire *fire,
                          const chime_run_result *out) {
  assert(chime__on_worker(s) && !chime__mu_held(s));
  assert(out->error <= 0 && out->finished_ms >= out->started_ms);
  chime_store *st = s->store;
  uint64_t t0 = chime__metrics_now_us();
  int r = st->ops->complete(st, fire, out);
  chime__metrics_since(&s->metrics, CHIME_HISTOGRAM_STORE_LATENCY, t0);
  for (long pause_ms = CHIME__RETRY_FIRST_MS;
       chime__store_transient(r) && pause_ms <= CHIME__RETRY_LAST_MS;
       pause_ms *= 2) {
    chime__log(s, CHIME_LOG_WARN, "completing fire %lld: %s; retrying",
               (long long)fire->fire_id, chime_strerror(r));
    chime__sleep_ms(pause_ms);
    r = st->ops->complete(st, fire, out);
  }
  if (r == CHIME_ENOTOWNER)
    chime__fencing_refused(s, fire); /* logs it */
  else if (r < 0)
    chime__report_error(s, r, "completing a fire");
  /* Given up on: no longer run here (an operator's repair finds it). */
  if (chime__store_transient(r) && st->ops->forget)
    st->ops->forget(st, fire->fire_id);
}

/* Leaves fire, not completed, for the hand-over of a stopping node
 * (handover.c), saying why, and frees it. */
static void leave_for_hand_over(chime_scheduler *s, chime_fire *fire,
                                const char *why) {
  chime__log(s, CHIME_LOG_INFO,
             "fire %lld of trigger %s.%s %s left for the hand-over to the "
             "cluster",
             (long long)fire->fire_id, fire->trigger->group,
             fire->trigger->name, why);
  chime__mu_lock(s);
  s->cut_runs++;
  chime__mu_unlock(s);
  chime__fire_free(fire);
}

/* Whether a run that returned was cut short by its scheduler's shutdown:
 * the job was told of it (chime_ctx_is_cancelled, chime_ctx_wait_cancelled
 * answered yes) and did not complete its fire in its own transaction.  Its
 * fire is then not completed here but handed to the cluster (handover.c),
 * which runs it again when the job requests recovery; a job that never
 * asked ran to its end.  Without a cluster to hand it to (a store without
 * hand_over) it is completed CANCELLED. */
static bool cut_by_shutdown(const chime_ctx *ctx) {
  return ctx->run && atomic_load(&ctx->run->saw_stop) && !ctx->completed;
}

/* The outcome of a run that returned: failed (chime_ctx_fail), or told to
 * stop (TIMED_OUT, CANCELLED) whatever it says, with how long it went on
 * after it was told when it was reported for ignoring it. */
static void run_verdict(chime_ctx *ctx, chime_run_result *out) {
  chime__cancel_why why = chime__run_why(ctx->run);
  if (why == CHIME__CANCEL_NONE && cut_by_shutdown(ctx)) {
    out->error = CHIME_ECANCELLED;
    out->status = "CANCELLED";
    out->message = "cut short by the shutdown of its node";
    return;
  } else if (why != CHIME__CANCEL_NONE) {
    bool timeout = why == CHIME__CANCEL_TIMEOUT;
    int64_t late = chime__mono_ms() - atomic_load(&ctx->run->cancelled_ms);
    char msg[160];
    int n =
        snprintf(msg, sizeof msg, "%s", timeout ? "timed out" : "cancelled");
    if (timeout)
      n += snprintf(msg + n, sizeof msg - (size_t)n, " after %lld ms",
                    (long long)ctx->run->timeout_ms);
    if (atomic_load(&ctx->run->reported))
      snprintf(msg + n, sizeof msg - (size_t)n,
               "; it ignored the cancellation for %lld ms", (long long)late);
    if (!ctx->fail_message)
      chime_ctx_fail(ctx, msg); /* no memory: the plain status says it */
    out->error = timeout ? CHIME_ETIMEDOUT : CHIME_ECANCELLED;
    out->status = timeout ? "TIMED_OUT" : "CANCELLED";
  } else if (ctx->fail_message) {
    out->error = CHIME_EJOBFAILED;
  }
  out->message = ctx->fail_message;
}

/* Whether the fire starts past its starting deadline (its trigger's, or
 * else its job's): then it is not run, and out says MISSED (the message in
 * ctx, as a failure's). */
static bool missed(chime_ctx *ctx, chime_run_result *out) {
  int64_t deadline = ctx->fire->trigger->starting_deadline_ms > 0
                         ? ctx->fire->trigger->starting_deadline_ms
                         : ctx->fire->job->starting_deadline_ms;
  int64_t late = ctx->fire_ms - ctx->fire->scheduled_ms;
  if (deadline <= 0 || late <= deadline)
    return false;
  char msg[160];
  snprintf(msg, sizeof msg,
           "not run: it could start only %lld ms after its scheduled time, "
           "past its starting deadline of %lld ms",
           (long long)late, (long long)deadline);
  chime_ctx_fail(ctx, msg); /* no memory: the plain status says it */
  out->error = CHIME_EMISSED;
  out->status = "MISSED";
  out->message = ctx->fail_message;
  return true;
}

/* Whether a run's completion wakes the loop: it may unblock a FORBID
 * job's due triggers, or store a retry due sooner than the loop's timer
 * (a store does not tell the loop of the triggers it adds). */
static bool wakes_loop(const chime_job *job, const chime_trigger *t) {
  return chime__concurrency_exclusive(job->concurrency) ||
         chime__run_retry(job, t)->max_attempts > 1;
}

/* What the completion of a run does about retries (jobstore/retry.c
 * decides the same way when it stores the retry): nothing, store one, or
 * nothing because the job's last attempt failed. */
typedef enum { RETRY_NONE, RETRY_STORED, RETRY_EXHAUSTED } retry_verdict;

static retry_verdict retry_verdict_of(const chime_fire *fire,
                                      const chime_run_result *out) {
  const chime_retry *p = chime__run_retry(fire->job, fire->trigger);
  if (!chime__retries(p, out) || p->max_attempts < 2)
    return RETRY_NONE;
  return chime__retry_wanted(p, chime__run_attempt(fire->trigger))
             ? RETRY_STORED
             : RETRY_EXHAUSTED;
}

/* Runs one fired fire of job type (NULL: not registered): listeners, the
 * job, then completion here or by the completer.  Returns whether the fire
 * was completed here. */
static bool run_fire(chime_scheduler *s, chime_fire *fire,
                     chime_jobtype *type) {
  assert(chime__on_worker(s) && !chime__mu_held(s));
  assert(!type || strcmp(type->name, fire->job->type) == 0);
  chime_store *st = s->store;
  chime_ctx ctx = {.sched = s, .fire = fire};
  ctx.fire_ms = st->ops->now(st);
  chime_run_result out = {.started_ms = ctx.fire_ms};
  bool cut = false; /* cut short by the shutdown, left for the hand-over */
  if (!type) {
    /* Never claimed by design (acquire filters on the registered types);
     * kept as a defence. */
    out.error = CHIME_EINTERNAL;
    out.message = "job type not registered on this node";
    chime__metrics_run(&s->metrics, fire->job->group, fire->job->name,
                       CHIME_OUTCOME_FAILED);
  } else if (missed(&ctx, &out)) {
    chime__metrics_run(&s->metrics, fire->job->group, fire->job->name,
                       CHIME_OUTCOME_MISSED);
    chime__emit(s, CHIME_EVENT_JOB_MISSED, &ctx, NULL, NULL, out.error,
                out.message);
  } else if (chime__emit(s, CHIME_EVENT_TRIGGER_FIRED, &ctx, NULL, NULL, 0,
                         NULL)) {
    chime__emit(s, CHIME_EVENT_JOB_VETOED, &ctx, NULL, NULL, 0, NULL);
    out.message = "vetoed by a listener";
    chime__metrics_run(&s->metrics, fire->job->group, fire->job->name,
                       CHIME_OUTCOME_SKIPPED);
  } else if (chime__fire_splits(fire)) {
    /* Its shards run as fires of their own (engine/shards.c). */
    chime__ctx_clear(&ctx);
    chime__shards_split(s, fire);
    return true;
  } else {
    chime__emit(s, CHIME_EVENT_JOB_TO_BE_EXECUTED, &ctx, NULL, NULL, 0, NULL);
    chime__metrics_run_started(s, fire, ctx.fire_ms);
    uint64_t t0 = chime__metrics_now_us();
    chime__run run;
    chime__run_begin(s, &run, fire);
    ctx.run = &run;
    type->fn(&ctx, type->user_data);
    chime__metrics_since(&s->metrics, CHIME_HISTOGRAM_RUN_DURATION, t0);
    chime__ctx_tx_end(&ctx);
    run_verdict(&ctx, &out);
    cut = out.error == CHIME_ECANCELLED && cut_by_shutdown(&ctx) &&
          st->ops->hand_over;
    ctx.run = NULL;
    chime__run_end(s, &run);
    chime_outcome outcome = out.error ? CHIME_OUTCOME_FAILED : CHIME_OUTCOME_OK;
    if (out.status)
      (void)chime_outcome_from_string(out.status, &outcome);
    retry_verdict verdict = cut ? RETRY_NONE : retry_verdict_of(fire, &out);
    if (verdict == RETRY_STORED)
      outcome = CHIME_OUTCOME_RETRIED;
    chime__metrics_run(&s->metrics, fire->job->group, fire->job->name, outcome);
    if (out.error)
      chime__run_failed(s, fire, out.error, out.message);
    chime__emit(s, CHIME_EVENT_JOB_WAS_EXECUTED, &ctx, NULL, NULL, out.error,
                out.message);
    chime__emit(s, CHIME_EVENT_TRIGGER_COMPLETED, &ctx, NULL, NULL, out.error,
                out.message);
    if (verdict == RETRY_EXHAUSTED)
      chime__emit(s, CHIME_EVENT_JOB_RETRIES_EXHAUSTED, &ctx, NULL, NULL,
                  out.error, out.message);
  }
  /* The store's clock follows the database's and may step back when the
   * offset is measured again (a database restart): a run never lasts less
   * than nothing. */
  out.finished_ms = st->ops->now(st);
  if (out.finished_ms < out.started_ms)
    out.finished_ms = out.started_ms;
  out.set_data = ctx.set_data;
  out.data = ctx.data;
  out.data_len = ctx.data_len;
  out.checkpointed = ctx.checkpointed;
  out.writes = ctx.writes;
  chime__done *d = NULL;
  if (cut && !atomic_load(&s->abandoned)) {
    chime__ctx_clear(&ctx);
    leave_for_hand_over(s, fire, "was cut short by the shutdown:");
    return true;
  }
  if (atomic_load(&s->abandoned)) {
    /* chime_scheduler_shutdown's deadline gave up on this run: its fire is
     * left to recovery, as if the node had died. */
    chime__log(s, CHIME_LOG_WARN,
               "fire %lld of trigger %s.%s returned after the shutdown "
               "deadline: not completed, left to recovery",
               (long long)fire->fire_id, fire->trigger->group,
               fire->trigger->name);
    chime__ctx_clear(&ctx);
    chime__fire_free(fire);
    return true;
  }
  if (ctx.completed) {
    /* The job's commit (chime-mysql.h) completed its fire already. */
    chime__ctx_clear(&ctx);
    chime__fire_free(fire);
    return true;
  }
  if (chime__completer_async(s) && (d = calloc(1, sizeof *d)) != NULL) {
    /* The completer writes it (completer.c); the worker is free now. */
    d->fire = fire;
    d->out = out;
    d->message = ctx.fail_message;
    d->data = ctx.data;
    d->writes = ctx.writes;
    d->forbid = wakes_loop(fire->job, fire->trigger);
    ctx.fail_message = NULL;
    ctx.data = NULL;
    ctx.writes = NULL;
    chime__ctx_clear(&ctx); /* what the done did not take (a transaction) */
    chime__mu_lock(s);
    chime__completer_push(s, d);
    chime__mu_unlock(s);
    return false;
  }
  /* The store completes inline (or no memory for a done). */
  complete_fire(s, fire, &out);
  chime__ctx_clear(&ctx);
  chime__fire_free(fire);
  return true;
}

/* A fire claimed ahead of its time (chime_config_set_claim_ahead_ms) starts
 * at its time, on the store's clock (the one the claim compared with).  A
 * recovered or late fire does not wait; none waits longer than the claim
 * horizon (the claim-ahead time and up to 100 ms), also when the store's clock
 * steps back meanwhile (its offset measured again). */
static void wait_for_time(chime_scheduler *s, const chime_fire *fire) {
  chime_store *st = s->store;
  int64_t left = s->cfg.batch_window_ms > 0 ? s->cfg.claim_ahead_ms
                                            : chime__claim_horizon_ms(s);
  int64_t early;
  while (left > 0 && (early = fire->scheduled_ms - st->ops->now(st)) > 0) {
    if (early > left)
      early = left;
    chime__sleep_ms(early);
    left -= early;
  }
}

/* After the scheduler was told to stop, a fire not yet started is not
 * started: a shutdown with a deadline cancels the runs (so a new one would be
 * cut at once), and past its deadline the node's fires were handed over.  It is
 * left for the hand-over (or, without one, completed CANCELLED as a cut run
 * is). */
static bool start_refused(chime_scheduler *s, chime_fire *fire) {
  if (!atomic_load(&s->cancelled) && !atomic_load(&s->abandoned))
    return false;
  chime_store *st = s->store;
  if (st->ops->hand_over || atomic_load(&s->abandoned)) {
    leave_for_hand_over(s, fire, "not started: its node is stopping;");
    return true;
  }
  int64_t now = st->ops->now(st);
  chime_run_result out = {.started_ms = now,
                          .finished_ms = now,
                          .error = CHIME_ECANCELLED,
                          .status = "CANCELLED",
                          .message = "not started: its node was stopping"};
  complete_fire(s, fire, &out);
  chime__fire_free(fire);
  return true;
}

/* Whether the node's lease was held without a break from mono since until
 * now, a quarter of a lease to spare (loop.c, lease_renewed): then no other
 * node can have declared it dead and taken over a fire it claimed then. */
static bool lease_held_since(chime_scheduler *s, int64_t since) {
  int64_t ok = atomic_load(&s->lease_ok_mono_ms); /* first: see engine.h */
  int64_t held = atomic_load(&s->lease_since_mono_ms);
  int64_t lease = chime__lease_ms(s->cfg.checkin_interval_ms);
  return held <= since && chime__mono_ms() - ok < lease * 3 / 4;
}

/* Whether the scheduler was told to stop (any thread). */
static bool stopping(chime_scheduler *s) {
  if (atomic_load(&s->cancelled) || atomic_load(&s->abandoned))
    return true;
  chime__mu_lock(s);
  bool stop = s->workers_stop;
  chime__mu_unlock(s);
  return stop;
}

/* Asks the store whether this node still holds fire, until it can tell:
 * a fire that may have been taken over is never started on a guess (the
 * answer waits for the database; a run would too).  Returns 1 (held), 0
 * (taken over) or -1 (the scheduler is stopping and the store still cannot
 * tell). */
static int ask_still_owned(chime_scheduler *s, const chime_fire *fire) {
  chime_store *st = s->store;
  int64_t pause = 50;
  for (bool told = false;; told = true) {
    bool owned = true;
    int r = st->ops->still_owned(st, fire, &owned);
    if (r == 0)
      return owned ? 1 : 0;
    if (!told)
      chime__log(s, CHIME_LOG_WARN,
                 "cannot tell whether fire %lld of trigger %s.%s is still "
                 "this node's (%s): it starts once the store answers",
                 (long long)fire->fire_id, fire->trigger->group,
                 fire->trigger->name, chime_strerror(r));
    if (stopping(s))
      return -1;
    chime__sleep_ms(pause);
    if (pause < s->cfg.checkin_interval_ms)
      pause *= 2;
  }
}

/* A fire claimed a while ago (a pause of the process, or a worker that
 * started late) may have been taken over meanwhile: its node's lease could
 * have run out and a survivor recovered it.  Before starting it, a worker
 * asks the store whether it still holds it, unless the node's lease was
 * held without a break since the claim (the normal case: no extra
 * statement, however long the fire waited for its time or in the local
 * queue; a short pause right after a claim can outlast the lease that its
 * last check-in began) and it was not claimed before a drain handed this
 * node's fires over.  How long it waited does not matter: only a broken
 * lease lets another node take it (asking after every wait longer than
 * the claim-ahead time and 250 ms, as this did, cost a transaction per
 * fire that waited in a busy node's local queue).  Returns whether the
 * fire was dropped (not ours). */
static bool taken_over_meanwhile(chime_scheduler *s, chime_fire *fire) {
  int64_t waited = chime__mono_ms() - fire->claimed_mono_ms;
  /* Claimed before a drain's hand-over (drain.c): it may be gone. */
  bool handed = fire->claimed_mono_ms <= atomic_load(&s->drain_handed_mono_ms);
  if (!handed && lease_held_since(s, fire->claimed_mono_ms))
    return false;
  chime__log(s, CHIME_LOG_DEBUG,
             "asking whether fire %lld of trigger %s.%s is still this node's "
             "(claimed %lld ms ago)",
             (long long)fire->fire_id, fire->trigger->group,
             fire->trigger->name, (long long)waited);
  int held = ask_still_owned(s, fire);
  if (held == 1)
    return false;
  if (held < 0) {
    leave_for_hand_over(s, fire,
                        "not started: its node is stopping and the "
                        "store could not say whether it is its own;");
    return true;
  }
  chime__log(s, CHIME_LOG_WARN,
             "fire %lld of trigger %s.%s was taken over by another node "
             "while this one waited %lld ms to start it (a pause?): not run",
             (long long)fire->fire_id, fire->trigger->group,
             fire->trigger->name, (long long)waited);
  chime__metrics_add(&s->metrics, CHIME_METRIC_FENCING_REFUSALS, 1);
  chime_store *st = s->store;
  if (st->ops->forget) /* not this node's: not listed as held */
    st->ops->forget(st, fire->fire_id);
  chime__fire_free(fire);
  return true;
}

/* Runs fire, taken from the queue, on this worker, and frees its place.
 * mu held on entry and return, not across the run. */
static void work(chime_scheduler *s, chime_fire *fire) {
  chime_jobtype *type = chime__registry_acquire_locked(s, fire->job->type);
  bool forbid = wakes_loop(fire->job, fire->trigger);
  chime__mu_unlock(s);
  wait_for_time(s, fire);
  bool completed = start_refused(s, fire) || taken_over_meanwhile(s, fire) ||
                   run_fire(s, fire, type);
  if (!completed)
    forbid = false; /* the completer wakes the loop after the commit */
  chime__mu_lock(s);
  chime_jobtype *unused = chime__registry_release_locked(type);
  if (unused) { /* re-registered while it ran: its destroy runs now */
    chime__mu_unlock(s);
    chime__registry_free(unused);
    chime__mu_lock(s);
  }
  assert(s->running > 0 && s->reserved > 0);
  s->running--;
  s->reserved--;
  chime__localq_run_ended(s);
  chime__completer_run_ended(s);
  assert(s->q_len <= s->running && s->running <= s->reserved);
  chime__stop_progress(s); /* broadcasts cond */
  /* Wake the loop when it waits for free workers and a quarter of a
   * batch is free (claiming for each worker as it frees would make
   * batches of one), or when the completion may have unblocked a FORBID
   * job's triggers that are due already; otherwise its own timer comes
   * (waking it after every run would cost a wake-up per fire). */
  if ((s->loop_starved && s->reserved < chime__claim_capacity(s) &&
       chime__claim_capacity(s) - s->reserved >= chime__claim_wake_at(s)) ||
      forbid) {
    s->loop_starved = false;
    chime__loop_post(s, CHIME__CMD_WAKE);
  }
}

static void *worker_main(void *arg) {
  chime_scheduler *s = arg;
  pthread_setname_np(pthread_self(), "chime-worker");
  chime__worker_enter(s);
  chime__mu_lock(s);
  for (;;) {
    while (s->q_len == 0 && !s->workers_stop)
      chime__mu_wait(s, &s->work_cond);
    if (s->q_len == 0)
      break; /* stopping, and nothing left to run */
    chime_fire *fire = chime__workers_pop(s);
    if (chime__localq_overdue(s, fire, chime__mono_ms())) {
      /* Waited too long in the local queue: back to the cluster (localq.c),
       * or, when the store could not take them, run here as usual. */
      chime_fire *late[CHIME__LOCALQ_RELEASE_MAX];
      size_t n = 0;
      if (!chime__localq_release_overdue(s, fire, late,
                                         CHIME__LOCALQ_RELEASE_MAX, &n))
        for (size_t i = 0; i < n; i++)
          work(s, late[i]);
      continue;
    }
    work(s, fire);
  }
  assert(s->workers_alive > 0);
  bool last_orphan = --s->workers_alive == 0 && s->orphaned;
  pthread_cond_broadcast(&s->cond);
  chime__mu_unlock(s);
  if (last_orphan)
    chime__scheduler_release(s); /* chime_scheduler_free returned */
  return NULL;
}

int chime__workers_start(chime_scheduler *s) {
  assert(!chime__mu_held(s));
  assert(s->nworkers == 0 && !s->workers_stop && s->q_len == 0);
  unsigned n = s->cfg.workers;
  assert(n >= 1 && n <= CHIME__MAX_WORKERS);
  /* A failed earlier start left its arrays: reuse nothing. */
  free(s->queue);
  free(s->workers);
  s->queue = calloc(chime__config_capacity(&s->cfg), sizeof *s->queue);
  s->localq_room = 0; /* until runs end (localq.c) */
  s->localq_ended_now = s->localq_ended_before = 0;
  s->localq_window_ms = chime__mono_ms();
  s->workers = calloc(n, sizeof *s->workers);
  if (!s->queue || !s->workers)
    return CHIME_ENOMEM;
  for (unsigned i = 0; i < n; i++) {
    chime__mu_lock(s);
    s->workers_alive++;
    chime__mu_unlock(s);
    if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0) {
      chime__mu_lock(s);
      s->workers_alive--;
      chime__mu_unlock(s);
      chime__workers_stop(s);
      s->workers_stop = false; /* a later start may try again */
      return CHIME_ENOMEM;
    }
    s->nworkers++;
  }
  int r = chime__completer_start(s);
  if (r < 0) {
    chime__workers_stop(s);
    s->workers_stop = false;
    return r;
  }
  return 0;
}

bool chime__workers_stop(chime_scheduler *s) {
  assert(!chime__on_worker(s));
  chime__mu_lock(s);
  s->workers_stop = true;
  pthread_cond_broadcast(&s->work_cond);
  /* Past a missed deadline, the workers still running a job are not
   * waited for: the others exit at once (the queue drains without
   * running anything, start_refused). */
  bool abandoned = atomic_load(&s->abandoned);
  while (s->workers_alive > (abandoned ? s->running : 0))
    chime__mu_wait(s, &s->cond);
  bool orphans = s->workers_alive > 0;
  chime__mu_unlock(s);
  for (unsigned i = 0; i < s->nworkers; i++)
    if (orphans)
      pthread_detach(s->workers[i]); /* the last one releases s */
    else
      pthread_join(s->workers[i], NULL);
  s->nworkers = 0;
  /* The workers drain the queue before they exit; the completer writes
   * what they handed it. */
  assert(orphans || s->q_len == 0);
  chime__completer_stop(s);
  return !orphans;
}
