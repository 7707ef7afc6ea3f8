/*
 * retry_def.c: a retry policy (chime_retry: a job's, chime_job_set_retry,
 * or an enqueued run's own, chime_enqueue_set_retry) and the back-off it
 * implies.  The policy travels with the job or the run into both stores; the
 * delay before attempt n + 1 is initial * multiplier^(n - 1), capped at the
 * maximum, plus a jitter in [0, jitter) derived from a seed (the failed
 * fire's id), so every node computes the same delay for the same failure.
 * The retry's own trigger is a one-shot copy of the failed one, built in
 * backfill_def.c beside the backfill's: this file is the policy alone and
 * calls no other file, so records.c can check a job's policy here.
 */
#include "model/records.h"

#include <math.h>
#include <stdlib.h>

/* The multiplier as stored: thousandths, rounded; 0 (a zeroed record)
 * means 1, no growth. */
static int64_t to_milli(double multiplier) {
  return (int64_t)llround(multiplier * 1000.0);
}

static bool delay_valid(int64_t ms) {
  return ms >= 0 && ms <= CHIME_MAX_TIMEOUT_MS;
}

void chime__retry_defaults(chime_retry *p) {
  *p = (chime_retry){
      .max_attempts = 1, .multiplier_milli = 1000, .timed_out = true};
}

int chime__retry_check(const chime_retry *p) {
  return p->max_attempts >= 0 && p->max_attempts <= CHIME_MAX_RETRY_ATTEMPTS &&
                 delay_valid(p->initial_delay_ms) &&
                 (p->multiplier_milli == 0 ||
                  (p->multiplier_milli >= 1000 &&
                   p->multiplier_milli <= 1000000)) &&
                 delay_valid(p->max_delay_ms) && delay_valid(p->jitter_ms)
             ? 0
             : CHIME_EINVAL;
}

int chime__job_retry_check(const chime_job *job) {
  return chime__retry_check(&job->retry);
}

int chime_retry_new(chime_retry **ret) {
  if (!ret)
    return CHIME_EINVAL;
  chime_retry *p = malloc(sizeof *p);
  if (!p)
    return CHIME_ENOMEM;
  chime__retry_defaults(p);
  *ret = p;
  return 0;
}

void chime_retry_free(chime_retry *policy) {
  free(policy);
}

int chime_retry_set_max_attempts(chime_retry *policy, int max_attempts) {
  if (!policy || max_attempts < 0 || max_attempts > CHIME_MAX_RETRY_ATTEMPTS)
    return CHIME_EINVAL;
  policy->max_attempts = max_attempts;
  return 0;
}

/* Sets *field to ms when it is a valid delay. */
static int set_delay(chime_retry *policy, int64_t *field, int64_t ms) {
  if (!policy || !delay_valid(ms))
    return CHIME_EINVAL;
  *field = ms;
  return 0;
}

int chime_retry_set_initial_delay_ms(chime_retry *policy, int64_t ms) {
  return set_delay(policy, policy ? &policy->initial_delay_ms : NULL, ms);
}

int chime_retry_set_max_delay_ms(chime_retry *policy, int64_t ms) {
  return set_delay(policy, policy ? &policy->max_delay_ms : NULL, ms);
}

int chime_retry_set_jitter_ms(chime_retry *policy, int64_t ms) {
  return set_delay(policy, policy ? &policy->jitter_ms : NULL, ms);
}

int chime_retry_set_multiplier(chime_retry *policy, double multiplier) {
  /* isfinite first: llround of NaN or infinity is undefined. */
  if (!policy || !isfinite(multiplier) || multiplier < 1.0 ||
      multiplier > 1000.0)
    return CHIME_EINVAL;
  policy->multiplier_milli = to_milli(multiplier);
  return 0;
}

int chime_retry_set_timed_out(chime_retry *policy, bool yes) {
  if (!policy)
    return CHIME_EINVAL;
  policy->timed_out = yes;
  return 0;
}

int chime_retry_get_max_attempts(const chime_retry *policy) {
  return policy ? (int)policy->max_attempts : 0;
}

int64_t chime_retry_get_initial_delay_ms(const chime_retry *policy) {
  return policy ? policy->initial_delay_ms : 0;
}

double chime_retry_get_multiplier(const chime_retry *policy) {
  return policy && policy->multiplier_milli > 0
             ? (double)policy->multiplier_milli / 1000.0
             : 1.0;
}

int64_t chime_retry_get_max_delay_ms(const chime_retry *policy) {
  return policy ? policy->max_delay_ms : 0;
}

int64_t chime_retry_get_jitter_ms(const chime_retry *policy) {
  return policy ? policy->jitter_ms : 0;
}

bool chime_retry_get_timed_out(const chime_retry *policy) {
  return policy ? policy->timed_out : true;
}

int chime_job_set_retry(chime_job *job, const chime_retry *policy) {
  if (!job)
    return CHIME_EINVAL;
  if (policy)
    job->retry = *policy;
  else
    chime__retry_defaults(&job->retry);
  return 0;
}

const chime_retry *chime_job_get_retry(const chime_job *job) {
  return job ? &job->retry : NULL;
}

const chime_retry *chime__run_retry(const chime_job *job,
                                    const chime_trigger *t) {
  if (t && t->retry.max_attempts > 0)
    return &t->retry;
  return job ? &job->retry : NULL;
}

bool chime__retry_wanted(const chime_retry *p, int attempt) {
  return p && attempt >= 1 && attempt < p->max_attempts;
}

/* splitmix64's finaliser: a well-mixed jitter from a small seed. */
static uint64_t mix(uint64_t x) {
  x += UINT64_C(0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}

int64_t chime__retry_delay_ms(const chime_retry *p, int attempt,
                              uint64_t seed) {
  if (!p || attempt < 1)
    return 0;
  /* Grow in integer thousandths, stopping at the cap (or at the longest
   * delay): delay < 7 days and the multiplier <= 10^6 thousandths, so the
   * product stays far below INT64_MAX however many attempts there are. */
  int64_t cap = p->max_delay_ms > 0 ? p->max_delay_ms : CHIME_MAX_TIMEOUT_MS;
  int64_t milli = p->multiplier_milli > 0 ? p->multiplier_milli : 1000;
  int64_t delay = p->initial_delay_ms;
  for (int i = 1; i < attempt && delay < cap && milli > 1000; i++)
    delay = delay * milli / 1000;
  if (delay > cap)
    delay = cap;
  if (p->jitter_ms > 0)
    delay += (int64_t)(mix(seed) % (uint64_t)p->jitter_ms);
  return delay;
}
