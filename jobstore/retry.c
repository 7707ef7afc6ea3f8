/*
 * retry.c: what a completion decides about retrying (issue 14), the same
 * for both stores.  A failed run (an error that is not a cancellation or a
 * missed start; a timeout counts) whose retry policy (its own, else its
 * job's: chime__run_retry) wants another attempt gets a
 * durable one-shot trigger, written by the store in the same transaction
 * (or under the same lock) as the failed run's completion, so a node that
 * dies right after the failure loses no retry and none is made twice.
 */
#include "jobstore/store.h"

#include <string.h>

static bool status_is(const chime_run_result *o, const char *status) {
  return o->status && strcmp(o->status, status) == 0;
}

bool chime__outcome_retryable(const chime_run_result *outcome) {
  return outcome && outcome->error != 0 && !status_is(outcome, "CANCELLED") &&
         !status_is(outcome, "MISSED");
}

bool chime__retries(const chime_retry *p, const chime_run_result *outcome) {
  return p && chime__outcome_retryable(outcome) &&
         (p->timed_out || !status_is(outcome, "TIMED_OUT"));
}

int chime__retry_for(const chime_fire *fire, const chime_run_result *outcome,
                     int64_t now_ms, chime_trigger **ret) {
  *ret = NULL;
  const chime_retry *p = chime__run_retry(fire->job, fire->trigger);
  if (!fire->job || !fire->trigger || !chime__retries(p, outcome))
    return 0;
  int attempt = chime__run_attempt(fire->trigger);
  if (!chime__retry_wanted(p, attempt))
    return 0;
  int64_t delay = chime__retry_delay_ms(p, attempt, (uint64_t)fire->fire_id);
  return chime__trigger_retry_new(fire->trigger, fire->fire_id, attempt,
                                  chime__fire_original_ms(fire), now_ms + delay,
                                  ret);
}

int64_t chime__fire_original_ms(const chime_fire *fire) {
  return fire->trigger && fire->trigger->retry_scheduled_ms > 0
             ? fire->trigger->retry_scheduled_ms
             : fire->scheduled_ms;
}
