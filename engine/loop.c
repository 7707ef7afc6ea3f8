/*
 * loop.c: the scheduler's libuv loop: which fires to claim and when to
 * fire them, and the maintenance timers.  Everything here runs on the
 * thread that runs the loop (the scheduler thread, also when
 * attached).  Other threads wake it through chime__loop_post (threads.c).
 *
 * Handles: an async handle other threads wake the loop with (commands are
 * coalesced into a bit set that each wake-up drains: a schedule change, a
 * freed worker, a change of mode); the fire timer, armed for the pending
 * batch's time or for the next due trigger (at most the idle wait); and
 * three maintenance timers: misfire scan (every min(threshold, 5 s)),
 * check-in (every check-in interval) and dead-node recovery (armed by each
 * check-in for when the first lease of another node runs out, so a dead
 * node is found at once and a healthy cluster costs no extra statements).
 *
 * Fencing: a node whose last successful check-in started more than a
 * lease ago (CHIME__LEASE_FACTOR check-in intervals) claims nothing and
 * gives back its pending claims until it checks in again; dead-node
 * recovery runs only after a lease of unbroken check-ins, so after an
 * outage of the database the other nodes get the time to check in again
 * before anyone declares them dead.
 *
 * One iteration ("tick") reads the store's clock once and then either
 * fires the pending batch when its time has come, or claims a new batch of
 * at most min(batch size, free workers) fires due by now + batch window,
 * or sleeps until the next due trigger.  With no batch window (the
 * default) claims are fired as they are made (store acquire_due), those
 * due within the claim-ahead time too (their workers start them at their
 * time), and no batch is ever pending.
 *
 * Threads and locks (engine.h): the loop's thread owns the handles, the
 * pending batch and every loop_* field, and touches them without a lock.
 * It takes s->mu only for short reads and writes of what other threads
 * share (state, cmds, reserved, the registry's names), and never holds it
 * across a store call, a listener or the log.  Other threads post commands
 * with chime__loop_post (threads.c) holding s->mu, which orders the command
 * bits and async_live against close_handles.
 *
 * Invariants (asserted): reserved counts the fires in the pending batch,
 * in the workers' queue and running, so batch_count <= reserved <= workers;
 * the loop's mode follows the state, and once SHUTDOWN never changes.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void loop_tick(chime_scheduler *s);
static void apply_mode(chime_scheduler *s, chime_scheduler_state mode);

/* How long before its time the loop wakes to claim a fire: the batch
 * window, or without one the claim-ahead time (the claim fires it at once
 * and a worker starts it at its time, workers.c), so that the claim's
 * commit is over by then.  The claim takes the fires due within its reach
 * (chime__claim_reach_ms: up to 100 ms past the claim-ahead time, half its
 * free places and 64 fires at most, on a node of 16 workers or more that
 * holds fewer than 64 fires and has 16 free places or more; 20 ms on any
 * other), so that one claim carries the fires of those milliseconds beyond
 * the first instead of only those that entered the window since the last
 * claim (at a steady rate, one claim transaction per fire). */
static int64_t claim_lead_ms(const chime_scheduler *s) {
  return s->cfg.batch_window_ms > 0 ? s->cfg.batch_window_ms
                                    : s->cfg.claim_ahead_ms;
}

static void on_fire_timer(uv_timer_t *t) {
  loop_tick(t->data);
}

/* Arms the fire timer delay_ms from now. */
static void arm(chime_scheduler *s, int64_t delay_ms) {
  assert(chime__on_loop(s));
  if (delay_ms < 0)
    delay_ms = 0;
  uv_update_time(s->loop);
  uv_timer_start(&s->fire_timer, on_fire_timer, (uint64_t)delay_ms, 0);
}

/* Refreshes the loop's copy of the registered type names. */
static int refresh_types(chime_scheduler *s) {
  assert(chime__on_loop(s));
  int r = 0;
  chime__mu_lock(s);
  if (!s->loop_types_valid || s->loop_types_gen != s->types_gen) {
    const char **names =
        realloc(s->loop_types, (s->ntypes ? s->ntypes : 1) * sizeof *names);
    if (!names) {
      r = CHIME_ENOMEM;
    } else {
      for (size_t i = 0; i < s->ntypes; i++) {
        names[i] = s->type_names[i]; /* live until the scheduler is freed */
        assert(i == 0 || strcmp(names[i - 1], names[i]) < 0);
      }
      s->loop_types = names;
      s->loop_ntypes = s->ntypes;
      s->loop_types_gen = s->types_gen;
      s->loop_types_valid = true;
    }
  }
  chime__mu_unlock(s);
  return r;
}

static void free_fires(chime_fire **fires, size_t n) {
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
}

/* Keeps fires[0..n), whose release failed for a moment, for
 * release_unreleased: a claim nobody gives back stays ACQUIRED by a live
 * node, and its trigger never fires again.  Takes fires either way. */
static void keep_unreleased(chime_scheduler *s, chime_fire **fires, size_t n) {
  size_t m = s->unreleased_count;
  chime_fire **all = realloc(s->unreleased, (m + n) * sizeof *all);
  if (!all) {
    chime__log(s, CHIME_LOG_ERROR,
               "no memory to keep %zu claim(s) to give back: they stay "
               "claimed until this node stops",
               n);
    free_fires(fires, n);
    return;
  }
  memcpy(all + m, fires, n * sizeof *fires);
  free(fires);
  s->unreleased = all;
  s->unreleased_count = m + n;
}

/* Gives back the claims an earlier release could not (the database
 * unreachable), after a good check-in; or, when the loop stops (final),
 * tries once more and drops the rest, which a restart under this id or the
 * recovery of this node gives back. */
static void release_unreleased(chime_scheduler *s, bool final) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  size_t n = s->unreleased_count;
  if (n == 0)
    return;
  chime_store *st = s->store;
  int r = st->ops->release(st, s->unreleased, n);
  if (r < 0)
    chime__report_error(s, r, "giving back claims an outage kept");
  if (chime__store_transient(r) && !final)
    return; /* the next good check-in tries again */
  if (r == 0)
    chime__log(s, CHIME_LOG_INFO,
               "gave back %zu claim(s) whose release an outage had kept", n);
  free_fires(s->unreleased, n);
  s->unreleased = NULL;
  s->unreleased_count = 0;
}

/* Returns the pending batch's claims to the store (fenced, standby,
 * shutdown, a drain); those the database could not take are kept for the
 * next good check-in. */
static void release_batch(chime_scheduler *s) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  size_t n = s->batch_count;
  if (n == 0) {
    assert(s->batch == NULL);
    return;
  }
  chime_store *st = s->store;
  int r = st->ops->release(st, s->batch, n);
  if (r < 0)
    chime__report_error(s, r, "releasing claimed fires");
  if (chime__store_transient(r))
    keep_unreleased(s, s->batch, n);
  else
    free_fires(s->batch, n);
  s->batch = NULL;
  s->batch_count = 0;
  chime__mu_lock(s);
  /* reserved counts the batch and the fires handed to workers. */
  assert(s->reserved == n + s->running);
  s->reserved -= (unsigned)n;
  pthread_cond_broadcast(&s->cond);
  chime__mu_unlock(s);
}

/* Hands each fired fire that may run to a worker and frees the rest, and
 * the array. */
static void hand_out(chime_scheduler *s, chime_fire **b, size_t n) {
  assert(chime__on_loop(s));
  assert(b && n > 0);
  unsigned dropped = 0;
  chime__mu_lock(s);
  /* Every fire of b was reserved a worker when it was claimed, and no
   * batch is pending meanwhile. */
  assert(s->batch_count == 0 && s->reserved == n + s->running);
  int64_t queued = chime__mono_ms(); /* its local queue's wait (localq.c) */
  for (size_t i = 0; i < n; i++) {
    assert(b[i] && b[i]->trigger);
    if (b[i]->result == 0) {
      b[i]->queued_mono_ms = queued;
      chime__workers_push(s, b[i]);
      b[i] = NULL;
    } else {
      dropped++;
    }
  }
  s->reserved -= dropped;
  assert(s->running <= s->reserved &&
         s->reserved <= chime__config_capacity(&s->cfg));
  chime__mu_unlock(s);
  for (size_t i = 0; i < n; i++) {
    if (!b[i])
      continue;
    assert(b[i]->result < 0);
    /* The claim vanished (trigger removed, paused or replaced). */
    chime__log(s, CHIME_LOG_DEBUG, "fire of %s.%s dropped: %s",
               b[i]->trigger->group, b[i]->trigger->name,
               chime_strerror(b[i]->result));
    chime__fire_free(b[i]);
  }
  free(b);
}

/* Fires the pending batch and hands each fire that may run to a worker. */
static void fire_batch(chime_scheduler *s, int64_t now) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  assert(s->batch && s->batch_count > 0 && s->batch_earliest <= now);
  chime_store *st = s->store;
  chime_fire **b = s->batch;
  size_t n = s->batch_count;
  uint64_t t0 = chime__metrics_now_us();
  int r = st->ops->fire(st, b, n, now);
  chime__metrics_since(&s->metrics, CHIME_HISTOGRAM_STORE_LATENCY, t0);
  if (r < 0) {
    chime__report_error(s, r, "firing claimed triggers");
    release_batch(s);
    return;
  }
  s->batch = NULL;
  s->batch_count = 0;
  hand_out(s, b, n);
}

/* TRIGGER_MISFIRED for one trigger the scan handled. */
static void on_misfire(void *user_data, const chime_trigger *trigger) {
  chime_scheduler *s = user_data;
  assert(chime__on_loop(s) && trigger);
  chime_fire fire = {
      .scheduled_ms = trigger->state.next_fire_ms,
      .trigger = (chime_trigger *)trigger,
  };
  chime_ctx ctx = {.sched = s, .fire = &fire};
  ctx.fire_ms = s->store->ops->now(s->store);
  chime_misfire policy = trigger->schedule.misfire;
  chime__metrics_misfire(&s->metrics, policy);
  chime__alert a = {
      .trigger_group = trigger->group,
      .trigger_name = trigger->name,
      .job_group = trigger->job_group,
      .job_name = trigger->job_name,
      .lateness_ms =
          trigger->misfired_ms > 0 && ctx.fire_ms > trigger->misfired_ms
              ? ctx.fire_ms - trigger->misfired_ms
              : 0,
      .misfire_policy = (int)policy,
  };
  char msg[512];
  if (trigger->state.next_fire_ms == CHIME_NO_FIRE_MS)
    snprintf(msg, sizeof msg,
             "trigger %s.%s (job %s.%s) misfired by %lld ms; by its misfire "
             "instruction it fires no more",
             trigger->group, trigger->name, trigger->job_group,
             trigger->job_name, (long long)a.lateness_ms);
  else
    snprintf(msg, sizeof msg,
             "trigger %s.%s (job %s.%s) misfired by %lld ms; by its misfire "
             "instruction it fires next at %lld",
             trigger->group, trigger->name, trigger->job_group,
             trigger->job_name, (long long)a.lateness_ms,
             (long long)trigger->state.next_fire_ms);
  chime__emit_alert(s, CHIME_EVENT_TRIGGER_MISFIRED, CHIME_LOG_INFO, &ctx, &a,
                    0, msg);
}

/* One bounded misfire scan.  Returns how many triggers it handled. */
static size_t misfire_scan(chime_scheduler *s, int64_t now, bool *ret_more) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  size_t handled = 0;
  bool more = false;
  chime_store *st = s->store;
  int r = st->ops->scan_misfires(st, now, CHIME__MISFIRE_BATCH, on_misfire, s,
                                 &handled, &more);
  if (r < 0) {
    chime__report_error(s, r, "scanning for misfires");
    more = false;
  } else {
    assert(handled <= CHIME__MISFIRE_BATCH);
  }
  if (handled > 0) /* each one was logged by name (on_misfire) */
    chime__log(s, CHIME_LOG_DEBUG, "handled %zu misfired trigger(s)", handled);
  *ret_more = more;
  return handled;
}

static int64_t misfire_period(const chime_scheduler *s) {
  int64_t p = s->cfg.misfire_threshold_ms;
  if (p > CHIME__MISFIRE_SCAN_MS)
    p = CHIME__MISFIRE_SCAN_MS;
  return p < 50 ? 50 : p;
}

static void on_misfire_timer(uv_timer_t *t) {
  chime_scheduler *s = t->data;
  if (s->loop_mode != CHIME_SCHEDULER_STARTED)
    return;
  bool more;
  size_t handled = misfire_scan(s, s->store->ops->now(s->store), &more);
  /* A backlog is worked off in small batches between ticks, so normal
   * firing goes on meanwhile. */
  if (more)
    uv_timer_start(&s->misfire_timer, on_misfire_timer, 0,
                   (uint64_t)misfire_period(s));
  if (handled > 0)
    loop_tick(s);
}

static int64_t lease_ms(const chime_scheduler *s) {
  return chime__lease_ms(s->cfg.checkin_interval_ms);
}

/* Whether the node lost its lease: no successful check-in started within
 * the last lease.  Others may have declared it dead and taken its fires
 * over, so it must not claim.  Logs the change. */
static bool fenced(chime_scheduler *s) {
  assert(chime__on_loop(s));
  bool lost = chime__mono_ms() - s->loop_checkin_ok_ms > lease_ms(s);
  if (lost && !s->loop_fenced)
    chime__node_fenced(s, lease_ms(s)); /* counts, logs, alerts */
  s->loop_fenced = lost;
  return lost;
}

static void on_recover_timer(uv_timer_t *t);

/* Tells the workers (workers.c, taken_over_meanwhile) that a check-in
 * begun at started succeeded.  Each check-in writes the node's time
 * somewhere between its start and its end, so when this one ended more
 * than three quarters of a lease after the last good one began, the lease
 * may have run out between them (others may have declared the node dead
 * and taken its fires, however briefly): it is held anew only from now.
 * The quarter is a margin for the database's clock and the check-in's own
 * time. */
static void lease_renewed(chime_scheduler *s, int64_t started) {
  int64_t ended = chime__mono_ms();
  if (ended - atomic_load(&s->lease_ok_mono_ms) > lease_ms(s) * 3 / 4)
    atomic_store(&s->lease_since_mono_ms, ended);
  atomic_store(&s->lease_ok_mono_ms, started);
}

/* Changes made elsewhere (another node's or chimectl's schedule, fire-now,
 * resume) reach this node at its next check-in rather than at the end of
 * an idle wait of up to idle_wait_ms: the check-in also reads the earliest
 * next fire of any WAITING trigger of the scheduler (the store's
 * checkin_next_due, in the check-in's own statement), and when that
 * changed and is sooner than the fire timer, the timer is moved to it.  At
 * that time the loop claims (or, for a trigger of a type this node does
 * not run, finds nothing and sleeps until its own next one).  A pause
 * needs nothing: claims skip paused triggers.  Only while the loop is
 * idle (the fire timer armed, no pending batch, not starved or fenced). */
static void notice_changes(chime_scheduler *s) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  chime_store *st = s->store;
  if (!st->ops->checkin_next_due)
    return; /* every change comes through this process's API */
  int64_t next = st->ops->checkin_next_due(st);
  bool changed = next != s->loop_seen_next_due;
  s->loop_seen_next_due = next;
  if (!changed || next == INT64_MAX ||
      s->loop_mode != CHIME_SCHEDULER_STARTED || s->loop_fenced ||
      chime__drain_holds(s) || s->batch_count > 0 ||
      !uv_is_active((uv_handle_t *)&s->fire_timer))
    return;
  uv_update_time(s->loop);
  uint64_t due_in = uv_timer_get_due_in(&s->fire_timer);
  int64_t delay = next - claim_lead_ms(s) - st->ops->now(st);
  if (delay < 0 || (uint64_t)delay < due_in) {
    chime__log(s, CHIME_LOG_DEBUG,
               "a trigger due at %lld was scheduled or resumed elsewhere: "
               "looking again in %lld ms",
               (long long)next, (long long)(delay < 0 ? 0 : delay));
    arm(s, delay);
  }
}

static void on_checkin_timer(uv_timer_t *t) {
  chime_scheduler *s = t->data;
  assert(chime__on_loop(s) && !chime__mu_held(s));
  chime_store *st = s->store;
  /* After a stall (a stopped process, a lost database) the lease may have
   * run out meanwhile: say so before checking in again. */
  fenced(s);
  int64_t started = chime__mono_ms();
  int64_t recover_in = -1;
  uint64_t t0 = chime__metrics_now_us();
  int r = st->ops->checkin(st, st->ops->now(st), &recover_in);
  chime__metrics_since(&s->metrics, CHIME_HISTOGRAM_STORE_LATENCY, t0);
  if (r < 0) {
    chime__report_error(s, r, "checking in");
    /* Another process holds this node's instance id (the store said so):
     * fenced at once, as after a lost lease, until a check-in succeeds. */
    if (r == CHIME_EDUPNODE) {
      s->loop_checkin_ok_ms = INT64_MIN / 2;
      atomic_store(&s->lease_ok_mono_ms, INT64_MIN / 2);
      fenced(s);
    }
    return;
  }
  chime__metrics_checkin_ok(&s->metrics, started);
  lease_renewed(s, started);
  chime__store_answered(s);
  release_unreleased(s, false);
  /* Look for dead nodes when the first lease of another node runs out
   * unless it checks in before (the next check-in moves the timer).  A
   * stopping node recovers nobody. */
  if (recover_in >= 0 && s->loop_mode == CHIME_SCHEDULER_STARTED)
    uv_timer_start(&s->recover_timer, on_recover_timer,
                   (uint64_t)recover_in + CHIME__RECOVER_MARGIN_MS, 0);
  else
    uv_timer_stop(&s->recover_timer);
  /* After a gap (a stall, an unreachable database) other nodes may not
   * have checked in either: dead-node recovery waits a lease. */
  if (started - s->loop_checkin_ok_ms > lease_ms(s))
    s->loop_healthy_since = started;
  s->loop_checkin_ok_ms = started;
  chime__runs_poll(s); /* interrupts from other nodes, ignored ones */
  /* Zone files changed under a running node (tzdata): zones.c. */
  if ((r = chime__zones_tick(s)) < 0)
    chime__report_error(s, r, "recomputing triggers after a zone update");
  /* A drain asked from outside (drain.c). */
  chime__drain_step drain = chime__drain_tick(s);
  if (drain == CHIME__DRAIN_STOP) {
    release_batch(s);
    uv_timer_stop(&s->fire_timer);
  }
  if (s->loop_fenced) {
    s->loop_fenced = false;
    chime__log(s, CHIME_LOG_WARN, "checked in again: claiming fires again");
    if (s->loop_mode == CHIME_SCHEDULER_STARTED)
      loop_tick(s);
    return;
  }
  if (drain == CHIME__DRAIN_GO && s->loop_mode == CHIME_SCHEDULER_STARTED &&
      s->batch_count == 0) {
    loop_tick(s);
    return;
  }
  notice_changes(s);
}

/* Checks in now unless the last check-in is recent, and counts the next
 * interval from here. */
static void check_in_early(chime_scheduler *s) {
  assert(chime__on_loop(s));
  if (chime__mono_ms() - s->loop_checkin_ok_ms < s->cfg.checkin_interval_ms / 2)
    return;
  uv_timer_again(&s->checkin_timer);
  on_checkin_timer(&s->checkin_timer);
}

static void on_recover_timer(uv_timer_t *t) {
  chime_scheduler *s = t->data;
  assert(chime__on_loop(s) && !chime__mu_held(s));
  chime_store *st = s->store;
  if (s->loop_mode != CHIME_SCHEDULER_STARTED || fenced(s) ||
      chime__mono_ms() - s->loop_healthy_since < lease_ms(s))
    return;
  /* A recovery holds this loop for a while (under load a second or more:
   * a few statements per fire, the dead node's sessions ended, a durable
   * commit).  Started right after a check-in, it cannot push the next one
   * past this node's own lease, which would fence it (cluster/stop). */
  check_in_early(s);
  size_t n = 0;
  int r = st->ops->recover_dead_nodes(st, st->ops->now(st), &n);
  if (r < 0) {
    chime__report_error(s, r, "recovering dead nodes");
  } else if (n > 0) {
    chime__log(s, CHIME_LOG_INFO, "recovered %zu fire(s) of dead nodes", n);
    loop_tick(s);
  }
}

/* How long to sleep when nothing was claimed.  A trigger that is due but
 * was not claimed is one whose row another session holds (a DBA's SELECT
 * ... FOR UPDATE, a stuck client, another node's claim under way: acquire
 * and the misfire scan skip such rows), or a misfired one the scan did not
 * handle for that reason: the loop neither polls nor backs off for it, it
 * sleeps until the first trigger after the due ones, so that one held row
 * delays only its own trigger.  It looks again within a misfire period at
 * most, when the row may be free. */
static int64_t idle_delay(chime_scheduler *s, int64_t now,
                          const chime_type_set *types, bool claimed,
                          int64_t reach) {
  assert(chime__on_loop(s) && types->count > 0);
  chime_store *st = s->store;
  int64_t next;
  int r = st->ops->next_due(st, types, INT64_MIN, &next);
  if (r == CHIME_ENOTFOUND)
    return s->cfg.idle_wait_ms;
  if (r < 0) {
    chime__report_error(s, r, "looking for the next due trigger");
    return CHIME__RETRY_MS;
  }
  int64_t mono = chime__mono_ms();
  if (next <= now - s->cfg.misfire_threshold_ms &&
      mono - s->loop_idle_scan_ms >= misfire_period(s)) {
    /* Overdue: apply its misfire instruction now rather than at the next
     * periodic scan (once a misfire period: a held row stays overdue). */
    s->loop_idle_scan_ms = mono;
    bool more;
    if (misfire_scan(s, now, &more) > 0)
      return 0;
  }
  int64_t cap = s->cfg.idle_wait_ms;
  if (next - reach - now <= 0) {
    /* After a claim that took fires: still one due (a trigger behind its
     * time fires once per claim), claim again at once. */
    if (claimed)
      return 0;
    /* Due, not claimed: look past it (and past every other due one). */
    if (cap > misfire_period(s))
      cap = misfire_period(s);
    r = st->ops->next_due(st, types, now + reach, &next);
    if (r == CHIME_ENOTFOUND)
      return cap;
    if (r < 0) {
      chime__report_error(s, r, "looking for the next due trigger");
      return CHIME__RETRY_MS;
    }
  }
  int64_t delay = next - claim_lead_ms(s) - now;
  if (delay <= 0)
    return CHIME__BACKOFF_MS; /* came due meanwhile */
  return delay < cap ? delay : cap;
}

/* delay_ms, shortened to the time left until the next trigger of a REPLACE
 * run on this node comes due (its run is cancelled at that tick: REPLACE
 * on one node is at once, not at the next check-in); -1 stays "no timer"
 * unless such a trigger is coming. */
static int64_t replace_delay(chime_scheduler *s, int64_t now,
                             int64_t delay_ms) {
  int64_t due;
  if (!chime__runs_replacing(s, &due) || due == INT64_MAX || due <= now)
    return delay_ms;
  return delay_ms < 0 || due - now < delay_ms ? due - now : delay_ms;
}

/* Arms the fire timer for the next claim after one that took fewer fires
 * than it could (claimed: some; or none): at the next fire's time less the
 * wake lead, at once when a fire is still due after a claim that took
 * some, sooner when a fire passed over for a limit (wait_ms >= 0) may have
 * room. */
static void sleep_until_due(chime_scheduler *s, int64_t now,
                            const chime_type_set *types, bool claimed,
                            int64_t reach, int64_t wait_ms) {
  int64_t delay =
      replace_delay(s, now, idle_delay(s, now, types, claimed, reach));
  /* Look again when a passed-over fire may have room (a run elsewhere
   * may end any time; a rate's next start). */
  if (wait_ms >= 0 && (delay < 0 || wait_ms < delay))
    delay = wait_ms > 0 ? wait_ms : CHIME__BACKOFF_MS;
  chime__log(s, CHIME_LOG_DEBUG, "nothing due at %lld: sleeping %lld ms",
             (long long)now, (long long)delay);
  arm(s, delay);
}

/* Claims a batch due by now + batch window and fires it when due, or arms
 * the fire timer for the next due trigger. */
static void claim(chime_scheduler *s, int64_t now) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  assert(s->batch_count == 0 && s->loop_mode == CHIME_SCHEDULER_STARTED);
  if (refresh_types(s) < 0) {
    arm(s, CHIME__RETRY_MS);
    return;
  }
  if (chime__drain_holds(s)) {
    /* Draining (or its state not read yet): the check-in that ends it
     * ticks again. */
    uv_timer_stop(&s->fire_timer);
    return;
  }
  if (s->loop_ntypes == 0) {
    /* Nothing to run: a registration wakes the loop. */
    uv_timer_stop(&s->fire_timer);
    return;
  }
  chime__mu_lock(s);
  chime__localq_refresh(s);
  unsigned cap = chime__claim_capacity(s);
  assert(s->reserved <= chime__config_capacity(&s->cfg));
  /* Places for claims: free workers and the local queue's room. */
  unsigned free_places = s->reserved < cap ? cap - s->reserved : 0;
  s->loop_starved = free_places == 0;
  unsigned most;
  int64_t reach = chime__claim_reach_ms(s, &most);
  chime__mu_unlock(s);
  if (free_places == 0) {
    /* The next finishing run wakes the loop, or a REPLACE run's next fire. */
    int64_t delay = replace_delay(s, now, -1);
    if (delay < 0)
      uv_timer_stop(&s->fire_timer);
    else
      arm(s, delay);
    return;
  }
  size_t max = chime__config_batch_size(&s->cfg);
  if (max > free_places)
    max = free_places;
  /* Reaching far, a claim takes the fires a tenth of a second brings where
   * they are sparse, not all those of a busy cluster (engine.h). */
  if (max > most)
    max = most;
  chime_type_set types = {.names = s->loop_types, .count = s->loop_ntypes};
  chime_store *st = s->store;
  chime_fire **fires = NULL;
  size_t n = 0;
  /* Without a batch window claiming and firing is one step (one
   * transaction in the MySQL store), also for fires due within the
   * claim-ahead time: their workers start them at their time. */
  bool ahead = s->cfg.batch_window_ms > 0;
  int64_t claim_began = chime__mono_ms(); /* workers.c: a pause since? */
  uint64_t t0 = chime__metrics_now_us();
  int r = ahead ? st->ops->acquire(st, now, now + s->cfg.batch_window_ms, max,
                                   &types, &fires, &n)
                : st->ops->acquire_due(st, now, now + reach, max, &types,
                                       &fires, &n);
  chime__metrics_since(&s->metrics, CHIME_HISTOGRAM_STORE_LATENCY, t0);
  if (r < 0) {
    chime__report_error(s, r, "claiming due triggers");
    arm(s, CHIME__RETRY_MS);
    return;
  }
  chime__metrics_add(&s->metrics, CHIME_METRIC_FIRES_CLAIMED, n);
  /* Fires passed over for a limit (docs/queue.md, "Limits"). */
  int64_t wait = st->ops->limit_wait_ms ? st->ops->limit_wait_ms(st) : -1;
  if (wait >= 0)
    chime__metrics_add(&s->metrics, CHIME_METRIC_LIMIT_WAITS, 1);
  if (n == 0) {
    free(fires);
    sleep_until_due(s, now, &types, false, reach, wait);
    return;
  }
  assert(n <= max && fires);
  for (size_t i = 0; i < n; i++)
    fires[i]->claimed_mono_ms = claim_began;
  chime__mu_lock(s);
  s->reserved += (unsigned)n;
  /* Only this thread reserves, so the places found free are still free. */
  assert(s->reserved <= chime__config_capacity(&s->cfg));
  chime__mu_unlock(s);
  if (!ahead) {
    hand_out(s, fires, n);
    if (n == max)
      arm(s, 0); /* more may be due: claim at once if places are left */
    else
      sleep_until_due(s, now, &types, true, reach, wait);
    return;
  }
  s->batch = fires;
  s->batch_count = n;
  s->batch_earliest = fires[0]->scheduled_ms;
  for (size_t i = 1; i < n; i++)
    if (fires[i]->scheduled_ms < s->batch_earliest)
      s->batch_earliest = fires[i]->scheduled_ms;
  if (s->batch_earliest <= now) {
    fire_batch(s, now);
    arm(s, 0); /* claim more at once if workers are left */
  } else {
    arm(s, s->batch_earliest - now);
  }
}

static void loop_tick(chime_scheduler *s) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  /* The state may have changed since the last command was drained: never
   * fire for a scheduler that is no longer started. */
  chime__mu_lock(s);
  chime_scheduler_state state = s->state;
  chime__mu_unlock(s);
  apply_mode(s, state);
  if (s->loop_mode != CHIME_SCHEDULER_STARTED)
    return;
  if (fenced(s)) {
    /* Claims held now may already be someone else's: give them back and
     * wait for a check-in (which ticks again). */
    release_batch(s);
    arm(s, s->cfg.checkin_interval_ms);
    return;
  }
  chime_store *st = s->store;
  int64_t now = st->ops->now(st);
  int64_t replace_due;
  if (chime__runs_replacing(s, &replace_due))
    chime__runs_poll(s); /* a fire of a REPLACE job running here came due */
  if (s->batch_count > 0) {
    if (s->batch_earliest > now) {
      arm(s, s->batch_earliest - now);
      return;
    }
    fire_batch(s, now);
  }
  claim(s, now);
}

static void on_closed(uv_handle_t *h) {
  chime_scheduler *s = h->data;
  assert(s->handles_closing > 0);
  if (--s->handles_closing > 0)
    return;
  chime__mu_lock(s);
  s->handles_open = false;
  pthread_cond_broadcast(&s->cond);
  chime__mu_unlock(s);
}

static void close_handles(chime_scheduler *s) {
  chime__mu_lock(s);
  bool open = s->async_live;
  s->async_live = false; /* no uv_async_send once closing starts */
  chime__mu_unlock(s);
  if (!open)
    return;
  s->handles_closing = 5;
  uv_close((uv_handle_t *)&s->async, on_closed);
  uv_close((uv_handle_t *)&s->fire_timer, on_closed);
  uv_close((uv_handle_t *)&s->misfire_timer, on_closed);
  uv_close((uv_handle_t *)&s->checkin_timer, on_closed);
  uv_close((uv_handle_t *)&s->recover_timer, on_closed);
}

/* Moves the loop to mode (the scheduler's state). */
static void apply_mode(chime_scheduler *s, chime_scheduler_state mode) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  assert(mode == CHIME_SCHEDULER_STANDBY || mode == CHIME_SCHEDULER_STARTED ||
         mode == CHIME_SCHEDULER_SHUTDOWN);
  if (mode == s->loop_mode)
    return;
  /* A shut-down scheduler's state never changes again. */
  assert(s->loop_mode != CHIME_SCHEDULER_SHUTDOWN);
  if (mode == CHIME_SCHEDULER_STARTED) {
    s->loop_mode = mode;
    /* Times missed while in standby: their misfire instructions first. */
    uv_timer_start(&s->misfire_timer, on_misfire_timer, 0,
                   (uint64_t)misfire_period(s));
    return;
  }
  release_batch(s);
  assert(s->batch_count == 0);
  uv_timer_stop(&s->fire_timer);
  uv_timer_stop(&s->misfire_timer);
  s->loop_mode = mode;
  if (mode == CHIME_SCHEDULER_SHUTDOWN) {
    release_unreleased(s, true);
    uv_timer_stop(&s->recover_timer);
    /* The fires waiting in the local queue are not started: other nodes
     * run them rather than this one before it can stop (localq.c). */
    chime__mu_lock(s);
    chime__localq_stop(s);
    chime__mu_unlock(s);
  }
}

/* A stopping node's loop goes on checking in (its fires stay its own)
 * until its runs returned and their completions committed, or until the
 * shutdown stopped waiting for them (loop_close); then it hands over what
 * the node still holds and closes. */
static void close_when_settled(chime_scheduler *s) {
  assert(chime__on_loop(s) && s->loop_mode == CHIME_SCHEDULER_SHUTDOWN);
  chime__mu_lock(s);
  bool close = s->loop_close || chime__stop_settled(s);
  bool left = s->cut_runs > 0 || atomic_load(&s->abandoned);
  chime__mu_unlock(s);
  if (!close)
    return;
  if (left)
    chime__hand_over(s);
  close_handles(s);
}

static void on_async(uv_async_t *h) {
  chime_scheduler *s = h->data;
  assert(chime__on_loop(s));
  chime__mu_lock(s);
  unsigned cmds = s->cmds;
  s->cmds = 0;
  chime_scheduler_state state = s->state;
  chime__mu_unlock(s);
  if (cmds & CHIME__CMD_MODE)
    apply_mode(s, state);
  if (cmds & CHIME__CMD_WAKE)
    loop_tick(s);
  if (s->loop_mode == CHIME_SCHEDULER_SHUTDOWN)
    close_when_settled(s);
}

int chime__loop_init(chime_scheduler *s, uv_loop_t *loop) {
  assert(loop && !chime__mu_held(s));
  assert(!s->loop_inited && !s->handles_open && s->batch_count == 0);
  s->loop = loop;
  s->loop_mode = CHIME_SCHEDULER_STANDBY;
  if (uv_async_init(loop, &s->async, on_async) != 0)
    return CHIME_EINTERNAL;
  uv_timer_init(loop, &s->fire_timer);
  uv_timer_init(loop, &s->misfire_timer);
  uv_timer_init(loop, &s->checkin_timer);
  uv_timer_init(loop, &s->recover_timer);
  s->async.data = s->fire_timer.data = s->misfire_timer.data = s;
  s->checkin_timer.data = s->recover_timer.data = s;
  uint64_t every = (uint64_t)s->cfg.checkin_interval_ms;
  s->loop_checkin_ok_ms = s->loop_healthy_since = chime__mono_ms();
  atomic_store(&s->lease_since_mono_ms, INT64_MAX); /* not yet held */
  atomic_store(&s->lease_ok_mono_ms, INT64_MIN / 2);
  s->loop_fenced = false;
  s->loop_seen_next_due = INT64_MIN; /* the first check-in is news */
  uv_timer_start(&s->checkin_timer, on_checkin_timer, 0, every);
  chime__mu_lock(s);
  s->async_live = true;
  s->handles_open = true;
  s->loop_inited = true;
  chime__mu_unlock(s);
  return 0;
}

void *chime__loop_thread(void *arg) {
  chime_scheduler *s = arg;
  pthread_setname_np(pthread_self(), "chime-loop");
  chime__loop_enter(s);
  uv_run(s->loop, UV_RUN_DEFAULT);
  /* Nothing is left on the loop: the handles were closed at shutdown. */
  assert(!s->async_live && s->handles_closing == 0);
  int r = uv_loop_close(s->loop);
  assert(r == 0);
  (void)r;
  return NULL;
}

void chime__loop_abort(chime_scheduler *s) {
  assert(!chime__mu_held(s) && s->batch_count == 0);
  close_handles(s);
  uv_run(s->loop, UV_RUN_DEFAULT); /* only the close callbacks are left */
  uv_loop_close(s->loop);
  s->loop_inited = false;
}
