/*
 * localq.c: the bound on a node's local queue (chime_config_set_local_queue).
 *
 * The loop claims up to its workers plus the local queue (loop.c), so one
 * claim transaction carries a large batch without as many threads; the
 * fires beyond the free workers wait in the workers' queue, claimed and
 * fired: they are the node's, and every other node leaves them alone.  So
 * their wait is bounded: a worker that takes a fire which waited in the
 * queue more than the claim horizon (the claim-ahead time and up to 100 ms,
 * or the batch window) plus a check-in interval gives it back to the cluster
 * instead of running it, with the overdue fires behind it, in one store
 * transaction (release_fired: each fire still this node's is ended and run
 * again at once wherever it is claimed, as a recovered fire), and the queue has
 * no room until runs end again.  The room itself follows the workers' pace
 * (update_room), so jobs slower than the bound keep the queue near empty.  A
 * fire that waited less starts without asking the store unless the node's
 * lease broke since its claim (workers.c, taken_over_meanwhile: only then
 * may another node have taken it).  A stopping node gives
 * back its whole queue at once, on the completer's thread (completer.c), in
 * transactions of CHIME__LOCALQ_RELEASE_MAX fires: the loop's thread goes on
 * checking in meanwhile, or the node would fence itself while its runs go on
 * (DESIGN.md, promise 10).
 *
 * Trade-offs (after graphile-worker's local queue, whose jobs wait up to a
 * TTL of minutes): a queued fire has a time, so the bound is short; jobs
 * slower than the bound gain nothing from a queue (its room follows the
 * workers' pace); a node
 * that dies holding queued fires leaves more fires to recovery than one
 * that claims only for free workers (the queue's length at most); a store
 * nobody else shares (memory:) has no release_fired, so no queue.
 *
 * Threads and locks: workers and the loop, under s->mu for the queue and
 * the counters; never across the store call.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdlib.h>

/* The longest a fire waits in the queue: a check-in interval (at least
 * CHIME__LOCALQ_WAIT_MIN_MS) past the claim-ahead time.  Not shorter: a burst
 * of fires every node is busy with gains nothing from going round the
 * cluster, and each release ends a fire in history and makes another. */
static int64_t wait_bound_ms(const chime_scheduler *s) {
  int64_t lead = chime__claim_horizon_ms(s);
  int64_t wait = s->cfg.checkin_interval_ms;
  return lead +
         (wait > CHIME__LOCALQ_WAIT_MIN_MS ? wait : CHIME__LOCALQ_WAIT_MIN_MS);
}

static bool releasable(const chime_scheduler *s) {
  return s->cfg.local_queue > 0 && s->store && s->store->ops->release_fired;
}

/* The room follows what the workers finish: as many fires as they ended
 * in the last half wait bound (the larger of the last two such windows),
 * at most the setting.  Fires queued so are started well within the
 * bound, so a queue of short jobs fills to the setting and one of jobs
 * slower than the bound stays near empty instead of claiming fires only to
 * give them back (each release ends a fire in history and makes another).
 * None without a store to give fires back to: the bound could not hold. */
static void update_room(chime_scheduler *s, int64_t mono) {
  assert(chime__mu_held(s));
  int64_t window = wait_bound_ms(s) / 2;
  if (mono - s->localq_window_ms >= 2 * window) {
    s->localq_ended_before = 0;
    s->localq_ended_now = 0;
    s->localq_window_ms = mono;
  } else if (mono - s->localq_window_ms >= window) {
    s->localq_ended_before = s->localq_ended_now;
    s->localq_ended_now = 0;
    s->localq_window_ms += window;
  }
  unsigned ended = s->localq_ended_before > s->localq_ended_now
                       ? s->localq_ended_before
                       : s->localq_ended_now;
  s->localq_room = !releasable(s)               ? 0
                   : ended < s->cfg.local_queue ? ended
                                                : s->cfg.local_queue;
}

bool chime__localq_overdue(const chime_scheduler *s, const chime_fire *fire,
                           int64_t mono) {
  return releasable(s) && mono - fire->queued_mono_ms > wait_bound_ms(s);
}

/* Gives fires[0..n) back (mu not held).  Returns whether the store took
 * them (freed then). */
static bool give_back(chime_scheduler *s, chime_fire **fires, size_t n,
                      const char *why) {
  assert(!chime__mu_held(s) && n > 0);
  chime_store *st = s->store;
  size_t released = 0;
  int r = st->ops->release_fired(st, fires, n, &released);
  if (r < 0) {
    chime__report_error(s, r, "releasing fires of the local queue");
    return false;
  }
  chime__log(s, CHIME_LOG_INFO,
             "released %zu fire(s) of the local queue to the cluster (%s)%s",
             released, why,
             released < n ? "; the others had been taken over meanwhile" : "");
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  return true;
}

/* n places are free again (mu held): as a finished run frees one. */
static void places_freed(chime_scheduler *s, unsigned n) {
  assert(chime__mu_held(s));
  assert(s->running >= n && s->reserved >= n);
  s->running -= n;
  s->reserved -= n;
  /* Fires had to go back: claim only for free workers until runs end
   * again. */
  s->localq_ended_before = 0;
  s->localq_ended_now = 0;
  s->localq_room = 0;
  assert(s->q_len <= s->running && s->running <= s->reserved);
  chime__stop_progress(s); /* broadcasts cond */
  if (s->loop_starved) {
    s->loop_starved = false;
    chime__loop_post(s, CHIME__CMD_WAKE);
  }
}

void chime__localq_run_ended(chime_scheduler *s) {
  assert(chime__mu_held(s));
  s->localq_ended_now++;
  update_room(s, chime__mono_ms());
}

void chime__localq_refresh(chime_scheduler *s) {
  update_room(s, chime__mono_ms());
}

bool chime__localq_release_overdue(chime_scheduler *s, chime_fire *first,
                                   chime_fire **ret_late, size_t max,
                                   size_t *ret_count) {
  assert(chime__mu_held(s) && first && max > 0);
  int64_t mono = chime__mono_ms();
  size_t n = 0;
  ret_late[n++] = first;
  while (n < max && s->q_len > 0 &&
         chime__localq_overdue(s, s->queue[s->q_head], mono))
    ret_late[n++] = chime__workers_pop(s);
  chime__mu_unlock(s);
  bool gone = give_back(s, ret_late, n, "no worker could start them in time");
  chime__mu_lock(s);
  *ret_count = gone ? 0 : n;
  if (gone)
    places_freed(s, (unsigned)n);
  return gone;
}

void chime__localq_stop(chime_scheduler *s) {
  assert(chime__mu_held(s));
  s->localq_stopping = true;
  pthread_cond_signal(&s->done_cond); /* the completer (completer.c) */
}

bool chime__localq_to_give_back(const chime_scheduler *s) {
  assert(chime__mu_held(s));
  return s->localq_stopping && s->q_len > 0 && releasable(s);
}

void chime__localq_give_back_queued(chime_scheduler *s) {
  assert(chime__mu_held(s) && chime__localq_to_give_back(s));
  chime_fire *fires[CHIME__LOCALQ_RELEASE_MAX];
  size_t n = 0;
  while (n < CHIME__LOCALQ_RELEASE_MAX && s->q_len > 0)
    fires[n++] = chime__workers_pop(s);
  chime__mu_unlock(s);
  bool gone = give_back(s, fires, n, "its node is stopping");
  if (!gone) {
    /* Not given back (the database?): the hand-over at the end of the
     * stop takes them, or recovery when that fails too. */
    for (size_t i = 0; i < n; i++)
      chime__fire_free(fires[i]);
  }
  chime__mu_lock(s);
  if (!gone)
    s->cut_runs += (unsigned)n;
  places_freed(s, (unsigned)n);
}
