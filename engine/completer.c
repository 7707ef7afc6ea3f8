/*
 * completer.c: completion off the workers.  When the store completes in
 * batches (its complete_many), a worker whose job returned hands the
 * outcome to this file's queue and is free at once; one completer thread
 * per scheduler takes everything queued and writes it with one
 * complete_many call, so under load the batches grow by themselves and no
 * worker waits for a commit.
 *
 * Terms: a *done* (chime__done) is one returned run waiting for its
 * completion; it owns its fire and what its outcome points to.
 *
 * What this changes for the cluster (docs/cluster.md, "Completion"): a run
 * that returned is still EXECUTING in the store until its batch commits.
 * A node that dies in between has its fire recovered like one that died
 * during the run (at least once); the window is one batch transaction
 * plus the retries below (at most about 1.5 s of back-off), or the queue's
 * wait while the database is down.  A FORBID job stays blocked until its
 * completion commits (the store unblocks it in the same transaction), and
 * the loop is woken after that commit, not at the job's return.
 *
 * Waiting for company: at a moderate rate the runs of one claim start at
 * their own times and return one by one, so a completer that wrote at
 * once wrote batches of one to three.  A completion therefore waits, at
 * most the claim-ahead time and never over CHIME__COMPLETE_WAIT_MAX_MS
 * (20 ms), while other runs of the node are in flight, and all that
 * returned meanwhile share its transaction.  It does not wait when nothing
 * else is in flight, when the node leaves the started state (standby,
 * shutdown: a graceful stop writes at once), or for a run whose
 * completion another fire waits for (a FORBID job's or a retrying one's:
 * the loop is woken after that commit).  The wait adds to the window above.
 *
 * Threads and locks: the queue (done_head, done_tail, done_queued,
 * done_since_ms, done_urgent, done_writing, completer_stop) is guarded by
 * s->mu; the completer waits on done_cond (signalled by the first
 * completion queued, an urgent one, a full batch, a state change or a stop,
 * not by each completion that joins a wait), workers waiting for room and
 * shutdown waiting for the queue to drain wait on s->cond.  The completer
 * never holds mu across the store call, a log line or a free.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdlib.h>

bool chime__completer_async(const chime_scheduler *s) {
  return s->store && s->store->ops->complete_many != NULL;
}

void chime__completer_push(chime_scheduler *s, chime__done *d) {
  assert(chime__mu_held(s) && s->completer_started);
  assert(d && d->fire && !d->next);
  while (s->done_queued >= CHIME__MAX_DONE_QUEUED && !s->completer_stop)
    chime__mu_wait(s, &s->cond);
  bool first = !s->done_tail;
  if (first) {
    s->done_head = d;
    s->done_since_ms = chime__mono_ms();
  } else {
    s->done_tail->next = d;
  }
  s->done_tail = d;
  s->done_queued++;
  s->done_urgent |= d->forbid;
  /* Wakes the completer only when this changes what it waits for: work at
   * all, or a batch to write now (wait_for_company).  A completion that
   * joins others waiting for company waits with them until the first one's
   * time: waking the completer for each (to find it must wait on) cost a
   * thread switch per fire at thousands of fires a second. */
  if (first || d->forbid || s->done_queued >= CHIME__DONE_BATCH)
    pthread_cond_signal(&s->done_cond);
}

void chime__completer_run_ended(chime_scheduler *s) {
  assert(chime__mu_held(s));
  if (s->running == 0 && s->done_head)
    pthread_cond_signal(&s->done_cond); /* nothing left to wait for */
}

/* How long a completion may wait for company: the claim-ahead time, at
 * most CHIME__COMPLETE_WAIT_MAX_MS. */
static int64_t wait_ms(const chime_scheduler *s) {
  int64_t ahead = s->cfg.claim_ahead_ms;
  return ahead < CHIME__COMPLETE_WAIT_MAX_MS ? ahead
                                             : CHIME__COMPLETE_WAIT_MAX_MS;
}

/* Whether the queued completions are written now rather than wait for the
 * node's other runs in flight.  mu held. */
static bool write_now(const chime_scheduler *s) {
  return s->completer_stop || s->done_urgent || s->running == 0 ||
         s->state != CHIME_SCHEDULER_STARTED ||
         s->done_queued >= CHIME__DONE_BATCH || chime__localq_to_give_back(s);
}

/* Waits, while write_now says no, until the oldest queued completion has
 * waited wait_ms (completer.c's head comment).  mu held. */
static void wait_for_company(chime_scheduler *s) {
  int64_t until = s->done_since_ms + wait_ms(s);
  while (!write_now(s) && chime__mu_wait_until(s, &s->done_cond, until))
    ;
}

static void done_free(chime__done *d) {
  chime__fire_free(d->fire);
  free(d->message);
  free(d->data);
  chime__run_writes_free(d->writes);
  free(d);
}

/* Writes n dones with complete_many, retrying the transient failures (the
 * database busy or reconnecting) with back-off; logs refusals. */
static void write_batch(chime_scheduler *s, chime__done **dones, size_t n) {
  assert(!chime__mu_held(s) && n > 0 && n <= CHIME__DONE_BATCH);
  const chime_fire *fires[CHIME__DONE_BATCH];
  const chime_run_result *outs[CHIME__DONE_BATCH];
  int results[CHIME__DONE_BATCH];
  chime_store *st = s->store;
  for (size_t i = 0; i < n; i++) {
    fires[i] = dones[i]->fire;
    outs[i] = &dones[i]->out;
  }
  uint64_t t0 = chime__metrics_now_us();
  st->ops->complete_many(st, fires, outs, n, results);
  chime__metrics_since(&s->metrics, CHIME_HISTOGRAM_STORE_LATENCY, t0);
  for (long pause_ms = CHIME__RETRY_FIRST_MS; pause_ms <= CHIME__RETRY_LAST_MS;
       pause_ms *= 2) {
    /* The ones to retry, packed at the front. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (chime__store_transient(results[i])) {
        fires[m] = dones[i]->fire;
        outs[m] = &dones[i]->out;
        m++;
      }
    if (m == 0)
      break;
    chime__log(s, CHIME_LOG_WARN,
               "completing %zu fire(s): the database is busy or "
               "reconnecting; retrying in %ld ms",
               m, pause_ms);
    chime__sleep_ms(pause_ms);
    int again[CHIME__DONE_BATCH];
    st->ops->complete_many(st, fires, outs, m, again);
    for (size_t i = 0, k = 0; i < n; i++)
      if (chime__store_transient(results[i]))
        results[i] = again[k++];
  }
  for (size_t i = 0; i < n; i++) {
    const chime_fire *f = dones[i]->fire;
    if (results[i] == CHIME_ENOTOWNER)
      chime__fencing_refused(s, f); /* logs it */
    else if (results[i] < 0)
      chime__report_error(s, results[i], "completing a fire");
    /* Given up on: no longer run here (an operator's repair finds it). */
    if (chime__store_transient(results[i]) && st->ops->forget)
      st->ops->forget(st, f->fire_id);
  }
}

static void *completer_main(void *arg) {
  chime_scheduler *s = arg;
  /* Names show in top -H, perf and gdb (at most 15 bytes). */
  pthread_setname_np(pthread_self(), "chime-complete");
  chime__done *dones[CHIME__DONE_BATCH];
  chime__mu_lock(s);
  for (;;) {
    while (!s->done_head && !s->completer_stop &&
           !chime__localq_to_give_back(s))
      chime__mu_wait(s, &s->done_cond);
    if (chime__localq_to_give_back(s)) {
      /* A stopping node's local queue goes back first (localq.c). */
      chime__localq_give_back_queued(s);
      continue;
    }
    if (!s->done_head)
      break; /* stopping, and everything written */
    wait_for_company(s);
    if (chime__localq_to_give_back(s))
      continue;
    size_t n = 0;
    while (s->done_head && n < CHIME__DONE_BATCH) {
      dones[n] = s->done_head;
      s->done_head = s->done_head->next;
      dones[n]->next = NULL;
      n++;
    }
    if (!s->done_head) {
      s->done_tail = NULL;
      s->done_urgent = false;
    } else {
      s->done_since_ms = chime__mono_ms();
    }
    assert(s->done_queued >= n);
    s->done_queued -= (unsigned)n;
    s->done_writing = (unsigned)n;
    pthread_cond_broadcast(&s->cond); /* room for waiting workers */
    chime__mu_unlock(s);
    /* After a missed shutdown deadline nothing more is completed: the
     * fires are left to recovery (chime_scheduler_shutdown with a deadline). */
    if (!atomic_load(&s->abandoned))
      write_batch(s, dones, n);
    bool forbid = false;
    for (size_t i = 0; i < n; i++) {
      forbid |= dones[i]->forbid;
      done_free(dones[i]);
    }
    chime__mu_lock(s);
    s->done_writing = 0;
    chime__stop_progress(s); /* broadcasts cond */
    /* A FORBID job's other triggers may be due now that it is unblocked. */
    if (forbid)
      chime__loop_post(s, CHIME__CMD_WAKE);
  }
  chime__mu_unlock(s);
  return NULL;
}

int chime__completer_start(chime_scheduler *s) {
  assert(!chime__mu_held(s));
  if (!chime__completer_async(s) || s->completer_started)
    return 0;
  chime__mu_lock(s);
  s->completer_stop = false;
  chime__mu_unlock(s);
  if (pthread_create(&s->completer, NULL, completer_main, s) != 0)
    return CHIME_ENOMEM;
  s->completer_started = true;
  return 0;
}

void chime__completer_stop(chime_scheduler *s) {
  assert(!chime__mu_held(s) && s->nworkers == 0);
  if (!s->completer_started)
    return;
  chime__mu_lock(s);
  s->completer_stop = true;
  pthread_cond_signal(&s->done_cond);
  chime__mu_unlock(s);
  pthread_join(s->completer, NULL);
  s->completer_started = false;
  assert(!s->done_head && s->done_queued == 0 && s->done_writing == 0);
}
