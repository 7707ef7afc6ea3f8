/*
 * runs.c: the runs in progress and how they are told to stop.
 *
 * Terms: a *run* (chime__run) is one job function call of one fire, listed
 * from just before the job starts until it returns.  A run is *told to
 * stop* once: by an interrupt (chime_scheduler_interrupt here, or the
 * store's flag set by another node or chimectl, read at each check-in) or
 * by its job's timeout, whichever comes first; the job sees it through
 * chime_ctx_is_cancelled() and chime_ctx_wait_cancelled().  A timeout needs
 * no timer: a run whose deadline passed counts as told (chime__run_why),
 * and a waiting job wakes at its deadline.  A run told to stop that has
 * not returned after the grace (chime_config_set_cancel_grace_ms) is
 * reported once with CHIME_EVENT_JOB_CANCEL_IGNORED; it keeps its worker,
 * which stays counted until the job returns.
 *
 * Threads and locks (engine.h): s->runs and each run's links are guarded
 * by s->mu; a run's why, cancelled_ms and reported are atomics that the
 * job's thread reads without it (reported is set under s->mu, once).  Waiting
 * jobs sleep on s->cond (a monotonic condition), which is broadcast whenever a
 * run is told.  No store call, listener or log call happens under s->mu.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void chime__run_begin(chime_scheduler *s, chime__run *run,
                      const chime_fire *fire) {
  assert(!chime__mu_held(s) && fire && fire->job);
  memset(run, 0, sizeof *run);
  run->fire = fire;
  run->started_mono_ms = chime__mono_ms();
  int64_t timeout = fire->trigger->timeout_ms > 0 ? fire->trigger->timeout_ms
                                                  : fire->job->timeout_ms;
  run->timeout_ms = timeout;
  run->deadline_mono_ms =
      timeout > 0 ? run->started_mono_ms + timeout : INT64_MAX;
  atomic_init(&run->why, CHIME__CANCEL_NONE);
  atomic_init(&run->cancelled_ms, 0);
  atomic_init(&run->saw_stop, false);
  atomic_init(&run->reported, false);
  chime__mu_lock(s);
  run->next = s->runs;
  if (s->runs)
    s->runs->prev = run;
  s->runs = run;
  /* The loop arms its timer for this run's replacing fire (loop.c). */
  if (fire->job->concurrency == CHIME_CONCURRENCY_REPLACE)
    chime__loop_post(s, CHIME__CMD_WAKE);
  chime__mu_unlock(s);
}

void chime__run_end(chime_scheduler *s, chime__run *run) {
  chime__mu_lock(s);
  if (run->prev)
    run->prev->next = run->next;
  else
    s->runs = run->next;
  if (run->next)
    run->next->prev = run->prev;
  run->prev = run->next = NULL;
  chime__mu_unlock(s);
}

/* Tells run to stop for why at now_ms (monotonic), unless it was told
 * already.  Returns whether it was told now. */
static bool tell(chime__run *run, chime__cancel_why why, int64_t now_ms) {
  int none = CHIME__CANCEL_NONE;
  if (!atomic_compare_exchange_strong(&run->why, &none, (int)why))
    return false;
  atomic_store(&run->cancelled_ms, now_ms);
  return true;
}

chime__cancel_why chime__run_why(chime__run *run) {
  int why = atomic_load(&run->why);
  if (why == CHIME__CANCEL_NONE && run->deadline_mono_ms != INT64_MAX &&
      chime__mono_ms() >= run->deadline_mono_ms) {
    /* The deadline is when it was told, whenever someone noticed. */
    if (!tell(run, CHIME__CANCEL_TIMEOUT, run->deadline_mono_ms))
      return (chime__cancel_why)atomic_load(&run->why);
    return CHIME__CANCEL_TIMEOUT;
  }
  return (chime__cancel_why)why;
}

size_t chime__runs_cancel(chime_scheduler *s, const char *group,
                          const char *name, int64_t fire_id,
                          chime__cancel_why why) {
  assert(why != CHIME__CANCEL_NONE);
  assert(fire_id > 0 || (group && name));
  int64_t now = chime__mono_ms();
  size_t told = 0;
  chime__mu_lock(s);
  for (chime__run *r = s->runs; r; r = r->next) {
    const chime_job *j = r->fire->job;
    bool match = fire_id > 0 ? r->fire->fire_id == fire_id
                             : strcmp(j->group, group) == 0 &&
                                   strcmp(j->name, name) == 0;
    if (match && tell(r, why, now))
      told++;
  }
  if (told > 0)
    pthread_cond_broadcast(&s->cond);
  chime__mu_unlock(s);
  return told;
}

bool chime__runs_replacing(chime_scheduler *s, int64_t *ret_due) {
  assert(ret_due);
  bool any = false;
  int64_t due = INT64_MAX;
  chime__mu_lock(s);
  for (chime__run *r = s->runs; r; r = r->next) {
    if (r->fire->job->concurrency != CHIME_CONCURRENCY_REPLACE ||
        atomic_load(&r->why) != CHIME__CANCEL_NONE)
      continue;
    any = true;
    int64_t next = r->fire->trigger->state.next_fire_ms;
    if (next != CHIME_NO_FIRE && next < due)
      due = next;
  }
  chime__mu_unlock(s);
  *ret_due = due;
  return any;
}

void chime__runs_wake(chime_scheduler *s) {
  chime__mu_lock(s);
  pthread_cond_broadcast(&s->cond);
  chime__mu_unlock(s);
}

bool chime__runs_wait(chime_scheduler *s, chime__run *run, int64_t timeout_ms) {
  assert(!chime__mu_held(s) && timeout_ms >= 0);
  int64_t until = chime__mono_ms() + timeout_ms;
  if (run->deadline_mono_ms < until)
    until = run->deadline_mono_ms; /* the timeout tells it then */
  chime__mu_lock(s);
  for (;;) {
    if (atomic_load(&s->cancelled) || chime__run_why(run) != CHIME__CANCEL_NONE)
      break;
    if (!chime__mu_wait_until(s, &s->cond, until))
      break;
  }
  chime__mu_unlock(s);
  if (chime__run_why(run) != CHIME__CANCEL_NONE)
    return true;
  if (!atomic_load(&s->cancelled))
    return false;
  atomic_store(&run->saw_stop, true); /* told: see chime_ctx_is_cancelled */
  return true;
}

/* A run that ignored its cancellation, copied for reporting after mu. */
typedef struct ignored {
  char *group, *name;
  int64_t fire_id;
  int64_t for_ms;
  chime__cancel_why why;
} ignored;

/* Tells the runs of the ids the store flagged, and collects (into *out,
 * *nout) the runs past their grace that were not reported yet.  mu held. */
static void poll_locked(chime_scheduler *s, const int64_t *ids, size_t nids,
                        ignored **out, size_t *nout) {
  assert(chime__mu_held(s));
  int64_t now = chime__mono_ms();
  bool told = false;
  for (chime__run *r = s->runs; r; r = r->next) {
    for (size_t i = 0; i < nids; i++)
      if (ids[i] == r->fire->fire_id)
        told |= tell(r, CHIME__CANCEL_INTERRUPT, now);
    chime__cancel_why why = chime__run_why(r);
    int64_t since = atomic_load(&r->cancelled_ms);
    if (why == CHIME__CANCEL_NONE || atomic_load(&r->reported) ||
        now - since < s->cfg.cancel_grace_ms)
      continue;
    ignored *grown = realloc(*out, (*nout + 1) * sizeof **out);
    if (!grown)
      break; /* reported at the next check-in */
    *out = grown;
    ignored *ig = &grown[*nout];
    ig->group = strdup(r->fire->job->group);
    ig->name = strdup(r->fire->job->name);
    if (!ig->group || !ig->name) {
      free(ig->group);
      free(ig->name);
      break;
    }
    ig->fire_id = r->fire->fire_id;
    ig->for_ms = now - since;
    ig->why = why;
    atomic_store(&r->reported, true);
    (*nout)++;
  }
  if (told)
    pthread_cond_broadcast(&s->cond);
}

void chime__runs_poll(chime_scheduler *s) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  chime__mu_lock(s);
  bool any = s->runs != NULL;
  chime__mu_unlock(s);
  if (!any)
    return;
  chime_store *st = s->store;
  int64_t *ids = NULL;
  size_t nids = 0;
  int r = st->ops->interrupted ? st->ops->interrupted(st, &ids, &nids) : 0;
  if (r < 0) {
    chime__report_error(s, r, "reading interrupted fires");
    ids = NULL;
    nids = 0;
  }
  ignored *out = NULL;
  size_t nout = 0;
  chime__mu_lock(s);
  poll_locked(s, ids, nids, &out, &nout);
  chime__mu_unlock(s);
  free(ids);
  for (size_t i = 0; i < nout; i++) {
    char msg[160];
    snprintf(msg, sizeof msg,
             "fire %lld was %s %lld ms ago and has not returned; it keeps "
             "its worker",
             (long long)out[i].fire_id,
             out[i].why == CHIME__CANCEL_TIMEOUT ? "timed out" : "cancelled",
             (long long)out[i].for_ms);
    chime__log(s, CHIME_LOG_WARN, "job %s.%s: %s", out[i].group, out[i].name,
               msg);
    chime__emit(s, CHIME_EVENT_JOB_CANCEL_IGNORED, NULL, out[i].group,
                out[i].name, CHIME_ECANCELLED, msg);
    free(out[i].group);
    free(out[i].name);
  }
  free(out);
}
