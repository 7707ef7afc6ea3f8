/*
 * drain.c: a node asked to drain (include/chime.h: chime_scheduler_drain;
 * docs/operations.md, "A maintenance window").  The request lives in the
 * store (its drain_* ops), so with a clustered store it can come from
 * anywhere: chimectl, chime-web, another node's API call (the memory
 * store's come from this process's API).  This node reads it with
 * every check-in and acts on it here:
 *
 *   ACTIVE -> DRAINING  claims nothing more (loop.c asks
 *                       chime__drain_holds before each claim; the pending
 *                       batch is given back), its runs go on;
 *   DRAINING -> DRAINED once it runs nothing (or its timeout passed and
 *                       it handed the rest over, as a stopping node does:
 *                       handover.c's path without leaving the cluster, the
 *                       runs here asked to stop), it says so in the store;
 *   any -> ACTIVE       when the request is gone (undrained): claims again.
 *
 * A store that drains claims nothing before its first check-in has read
 * the node's state, so a node restarted while drained never claims.
 *
 * Threads: chime__drain_tick and chime__drain_holds on the loop's thread;
 * the public calls on any (one store call, without s->mu).
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <stdio.h>

static const char *const state_names[] = {"active", "draining", "drained"};

bool chime__drain_holds(const chime_scheduler *s) {
  assert(chime__on_loop(s));
  if (!s->store->ops->checkin_drain)
    return false;
  return !s->loop_drain_known || s->loop_drain != CHIME_NODE_ACTIVE;
}

static void set_state(chime_scheduler *s, int state) {
  s->loop_drain = state;
  atomic_store(&s->metrics.drain_state, state);
}

/* A fire the drain's timeout handed over: its run here is asked to stop
 * (its completion would be refused). */
static void on_handed(void *user_data, const chime_recovery *rec) {
  chime_scheduler *s = user_data;
  chime__runs_cancel(s, NULL, NULL, rec->fire_id, CHIME__CANCEL_INTERRUPT);
  chime__alert a = chime__recovery_alert(rec);
  a.node = NULL; /* this node */
  chime__log_about(
      s, CHIME_LOG_WARN, "FIRE_HANDED_OVER", &a, 0,
      "fire %lld of trigger %s.%s handed to the cluster: this node's drain "
      "timeout passed before its run ended (%s)",
      (long long)rec->fire_id, a.trigger_group ? a.trigger_group : "?",
      a.trigger_name ? a.trigger_name : "?",
      rec->requeued ? "it runs again on another node"
                    : "recorded as not run to its end");
}

chime__drain_step chime__drain_tick(chime_scheduler *s) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  chime_store *st = s->store;
  if (!st->ops->checkin_drain)
    return CHIME__DRAIN_NONE;
  bool overdue = false;
  int asked = st->ops->checkin_drain(st, &overdue);
  bool first = !s->loop_drain_known;
  s->loop_drain_known = true;
  if (asked == CHIME_NODE_ACTIVE) {
    if (s->loop_drain == CHIME_NODE_ACTIVE)
      return first ? CHIME__DRAIN_GO : CHIME__DRAIN_NONE;
    chime__log(s, CHIME_LOG_INFO,
               "node undrained: claiming fires again (was %s)",
               state_names[s->loop_drain]);
    set_state(s, CHIME_NODE_ACTIVE);
    s->loop_drain_handed = false;
    return CHIME__DRAIN_GO;
  }
  chime__drain_step step = CHIME__DRAIN_NONE;
  chime__mu_lock(s);
  /* Claimed, queued or running here, or run and not yet completed in the
   * store (the completer's): empty means the store has none of them. */
  unsigned held = s->reserved + s->done_queued + s->done_writing;
  chime__mu_unlock(s);
  if (s->loop_drain == CHIME_NODE_ACTIVE ||
      (s->loop_drain == CHIME_NODE_DRAINED && asked == CHIME_NODE_DRAINING)) {
    /* Asked (again: undrained and drained between two check-ins). */
    chime__log(s, CHIME_LOG_INFO,
               "node draining: it claims no more fires; %u claimed or "
               "running here finish%s",
               held,
               overdue ? " (the drain's timeout has passed already)" : "");
    set_state(s, CHIME_NODE_DRAINING);
    s->loop_drain_handed = false;
    step = CHIME__DRAIN_STOP;
  }
  if (s->loop_drain == CHIME_NODE_DRAINED)
    return step;
  size_t handed = 0;
  if (held > 0 && overdue && !s->loop_drain_handed &&
      st->ops->drain_hand_over) {
    atomic_store(&s->drain_handed_mono_ms, chime__mono_ms());
    int r = st->ops->drain_hand_over(st, CHIME__HAND_OVER_BUDGET_MS, on_handed,
                                     s, &handed);
    if (r < 0) {
      chime__report_error(s, r, "handing a draining node's fires over");
      return step;
    }
    s->loop_drain_handed = true;
    chime__log(s, CHIME_LOG_WARN,
               "drain timeout passed: handed %zu fire(s) to the cluster",
               handed);
  }
  if (held > 0 && !s->loop_drain_handed)
    return step; /* runs go on: the next check-in looks again */
  int r = st->ops->drain_report ? st->ops->drain_report(st, handed) : 0;
  if (r < 0) {
    chime__report_error(s, r, "reporting this node drained");
    return step;
  }
  set_state(s, CHIME_NODE_DRAINED);
  chime__log(s, CHIME_LOG_INFO,
             "node drained: it claims nothing and runs nothing (undrain it to "
             "claim again)");
  return step;
}

/* Checks the id (NULL: this node's) for a public call. */
static int check_id(chime_scheduler *s, const char *fn, const char *id) {
  if (id && chime__name_check(id, "instance id", NULL, 0) < 0)
    return chime__fail(s, CHIME_EINVAL, "%s: invalid instance id", fn);
  if (!s->store->ops->drain_set)
    return chime__fail(s, CHIME_EUNSUPPORTED,
                       "%s: this store does not drain its nodes", fn);
  return 0;
}

int chime_scheduler_drain(chime_scheduler *s, const char *instance_id,
                          int64_t timeout_ms) {
  static const char fn[] = "chime_scheduler_drain";
  int r = chime__api_enter(s, fn);
  if (r < 0 || (r = check_id(s, fn, instance_id)) < 0)
    return r;
  if (timeout_ms < 0)
    return chime__fail(s, CHIME_EINVAL, "%s: negative timeout %lld ms", fn,
                       (long long)timeout_ms);
  r = s->store->ops->drain_set(s->store, instance_id, true, timeout_ms, NULL,
                               NULL);
  if (r == CHIME_ENOTFOUND)
    return chime__fail(s, r, "%s: no node '%s' in the cluster", fn,
                       instance_id ? instance_id : "(this one)");
  return r < 0 ? chime__fail(s, r, "%s: %s", fn, chime_strerror(r)) : 0;
}

int chime_scheduler_undrain(chime_scheduler *s, const char *instance_id) {
  static const char fn[] = "chime_scheduler_undrain";
  int r = chime__api_enter(s, fn);
  if (r < 0 || (r = check_id(s, fn, instance_id)) < 0)
    return r;
  r = s->store->ops->drain_set(s->store, instance_id, false, 0, NULL, NULL);
  if (r == CHIME_ENOTFOUND)
    return chime__fail(s, r, "%s: node '%s' is not drained", fn,
                       instance_id ? instance_id : "(this one)");
  return r < 0 ? chime__fail(s, r, "%s: %s", fn, chime_strerror(r)) : 0;
}

int chime_scheduler_node_state(chime_scheduler *s, const char *instance_id,
                               chime_node_state *ret_state) {
  static const char fn[] = "chime_scheduler_node_state";
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if (!ret_state)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL ret_state", fn);
  if ((r = check_id(s, fn, instance_id)) < 0)
    return r;
  int state = CHIME_NODE_ACTIVE;
  r = s->store->ops->drain_get(s->store, instance_id, &state);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  *ret_state = (chime_node_state)state;
  return 0;
}
