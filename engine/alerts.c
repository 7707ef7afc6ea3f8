/*
 * alerts.c: the situations an operator is alerted to, each counted in the
 * metrics, logged with its fields and raised as a listener event at once:
 * a completion refused (fencing), this node fencing itself, a store outage
 * beginning and ending, and (recovery) a node declared dead and the fires
 * that failed with it.  Plus the count and lateness of a run's start, and
 * the count of the store's lock waits (the store logs each).
 *
 * Threads: any (each names its caller in engine.h); never with s->mu held.
 */
#include "engine/engine.h"

#include <assert.h>
#include <stdio.h>

void chime__metrics_run_started(chime_scheduler *s, const chime_fire *fire,
                                int64_t now_ms) {
  chime__metrics_add(&s->metrics, CHIME_METRIC_RUNS_STARTED, 1);
  if (fire->recovering)
    chime__metrics_add(&s->metrics, CHIME_METRIC_RECOVERIES_RECEIVED, 1);
  chime__metrics_observe_ms(&s->metrics, CHIME_HISTOGRAM_FIRE_LATENESS,
                            now_ms - fire->scheduled_ms);
}

/* The alert naming fire. */
static chime__alert fire_alert(const chime_fire *fire) {
  return (chime__alert){
      .trigger_group = fire->trigger ? fire->trigger->group : NULL,
      .trigger_name = fire->trigger ? fire->trigger->name : NULL,
      .job_group = fire->job ? fire->job->group : NULL,
      .job_name = fire->job ? fire->job->name : NULL,
      .fire_id = fire->fire_id,
      .misfire_policy = -1,
  };
}

void chime__run_failed(chime_scheduler *s, const chime_fire *fire, int error,
                       const char *message) {
  chime__alert a = fire_alert(fire);
  chime__log_about(
      s, CHIME_LOG_INFO, "RUN_FAILED", &a, error,
      "job %s.%s failed (fire %lld of trigger %s.%s): %s",
      a.job_group ? a.job_group : "?", a.job_name ? a.job_name : "?",
      (long long)fire->fire_id, a.trigger_group ? a.trigger_group : "?",
      a.trigger_name ? a.trigger_name : "?", message ? message : "failed");
}

void chime__fencing_refused(chime_scheduler *s, const chime_fire *fire) {
  assert(!chime__mu_held(s) && fire);
  chime__metrics_add(&s->metrics, CHIME_METRIC_FENCING_REFUSALS, 1);
  chime__alert a = fire_alert(fire);
  char msg[512];
  snprintf(msg, sizeof msg,
           "fire %lld of trigger %s.%s (job %s.%s) was taken over by another "
           "node; its completion was refused",
           (long long)fire->fire_id, a.trigger_group ? a.trigger_group : "?",
           a.trigger_name ? a.trigger_name : "?",
           a.job_group ? a.job_group : "?", a.job_name ? a.job_name : "?");
  chime__emit_alert(s, CHIME_EVENT_COMPLETION_REFUSED, CHIME_LOG_WARN, NULL, &a,
                    CHIME_ENOTOWNER, msg);
}

void chime__node_fenced(chime_scheduler *s, int64_t lease_ms) {
  chime__metrics_add(&s->metrics, CHIME_METRIC_SELF_FENCES, 1);
  chime__alert a = {.misfire_policy = -1};
  char msg[256];
  snprintf(msg, sizeof msg,
           "no check-in for over %lld ms: this node fenced itself and stops "
           "claiming fires; running fires may be taken over",
           (long long)lease_ms);
  chime__emit_alert(s, CHIME_EVENT_NODE_FENCED, CHIME_LOG_WARN, NULL, &a,
                    CHIME_ENOTOWNER, msg);
}

bool chime__store_failed(chime_scheduler *s, int code) {
  assert(code < 0);
  chime__metrics_add(&s->metrics, CHIME_METRIC_STORE_ERRORS, 1);
  /* Only a lost connection is an outage; a refused statement is not. */
  if (code != CHIME_ECONNECT)
    return false;
  if (!chime__metrics_store_down(&s->metrics, true))
    return true; /* said when it began */
  chime__alert a = {.misfire_policy = -1};
  chime__emit_alert(s, CHIME_EVENT_STORE_OUTAGE_BEGAN, CHIME_LOG_ERROR, NULL,
                    &a, code,
                    "store outage began: the database cannot be reached");
  return false;
}

void chime__store_answered(chime_scheduler *s) {
  if (!chime__metrics_store_down(&s->metrics, false))
    return;
  chime__alert a = {.misfire_policy = -1};
  chime__emit_alert(s, CHIME_EVENT_STORE_OUTAGE_ENDED, CHIME_LOG_WARN, NULL, &a,
                    0, "store outage ended: the database answers again");
}

void chime__on_lock_wait(void *user_data) {
  chime_scheduler *s = user_data;
  chime__metrics_add(&s->metrics, CHIME_METRIC_LOCK_WAITS, 1);
}

chime__alert chime__recovery_alert(const chime_recovery *rec) {
  return (chime__alert){
      .trigger_group = rec->trigger_group,
      .trigger_name = rec->trigger_name,
      .job_group = rec->job_group,
      .job_name = rec->job_name,
      .fire_id = rec->fire_id,
      .node = rec->node,
      .misfire_policy = -1,
  };
}

void chime__on_recovery(void *user_data, const chime_recovery *rec) {
  chime_scheduler *s = user_data;
  assert(rec && rec->node);
  chime__alert a = chime__recovery_alert(rec);
  char msg[512];
  if (rec->fire_id == 0) {
    chime__metrics_add(&s->metrics, CHIME_METRIC_NODES_DEAD, 1);
    snprintf(msg, sizeof msg, "node %s declared dead (its lease ran out)",
             rec->node);
    chime__emit_alert(s, CHIME_EVENT_NODE_DEAD, CHIME_LOG_WARN, NULL, &a, 0,
                      msg);
    return;
  }
  chime__metrics_add(&s->metrics, CHIME_METRIC_RECOVERIES_DONE, 1);
  snprintf(msg, sizeof msg,
           "fire %lld of trigger %s.%s (job %s.%s) failed: node %s died while "
           "it ran; %s",
           (long long)rec->fire_id, a.trigger_group ? a.trigger_group : "?",
           a.trigger_name ? a.trigger_name : "?",
           a.job_group ? a.job_group : "?", a.job_name ? a.job_name : "?",
           rec->node,
           rec->requeued ? "it runs again (the job requests recovery)"
                         : "recorded as failed");
  /* A fire run again is a fail-over that worked (the node's death was
   * said at WARN); a fire recorded as failed is work nobody will redo
   * unless an operator does. */
  chime__emit_alert(s, CHIME_EVENT_FIRE_NODE_DIED,
                    rec->requeued ? CHIME_LOG_WARN : CHIME_LOG_ERROR, NULL, &a,
                    CHIME_ENOTOWNER, msg);
}
