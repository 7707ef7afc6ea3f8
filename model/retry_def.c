/*
 * retry_def.c: a job's retry policy (chime_job_set_retry) and the back-off
 * it implies.  The policy travels with the job into both stores; the delay
 * before attempt n + 1 is initial * multiplier^(n - 1), capped at the
 * maximum, plus a jitter in [0, jitter) derived from a seed (the failed
 * fire's id), so every node computes the same delay for the same failure.
 * The retry's own trigger is a one-shot copy of the failed one, built in
 * backfill_def.c beside the backfill's: this file is the policy alone and
 * calls no other file, so records.c can check a job's policy here.
 */
#include "model/records.h"

#include <math.h>

/* The multiplier as stored: thousandths, rounded; 0 (a zeroed job) means
 * 1, no growth. */
static int64_t to_milli(double multiplier) {
  return (int64_t)llround(multiplier * 1000.0);
}

static bool retry_valid(int64_t max_attempts, int64_t initial_delay_ms,
                        int64_t multiplier_milli, int64_t max_delay_ms,
                        int64_t jitter_ms) {
  return max_attempts >= 0 && max_attempts <= CHIME_MAX_RETRY_ATTEMPTS &&
         initial_delay_ms >= 0 && initial_delay_ms <= CHIME_MAX_TIMEOUT_MS &&
         (multiplier_milli == 0 ||
          (multiplier_milli >= 1000 && multiplier_milli <= 1000000)) &&
         max_delay_ms >= 0 && max_delay_ms <= CHIME_MAX_TIMEOUT_MS &&
         jitter_ms >= 0 && jitter_ms <= CHIME_MAX_TIMEOUT_MS;
}

int chime__job_retry_check(const chime_job *job) {
  return retry_valid(job->retry_max_attempts, job->retry_initial_delay_ms,
                     job->retry_multiplier_milli, job->retry_max_delay_ms,
                     job->retry_jitter_ms)
             ? 0
             : CHIME_EINVAL;
}

int chime_job_set_retry(chime_job *job, int max_attempts,
                        int64_t initial_delay_ms, double multiplier,
                        int64_t max_delay_ms, int64_t jitter_ms) {
  /* isfinite first: llround of NaN or infinity is undefined. */
  if (!job || !isfinite(multiplier) || multiplier < 1.0 || multiplier > 1000.0)
    return CHIME_EINVAL;
  int64_t milli = to_milli(multiplier);
  if (!retry_valid(max_attempts, initial_delay_ms, milli, max_delay_ms,
                   jitter_ms))
    return CHIME_EINVAL;
  job->retry_max_attempts = max_attempts;
  job->retry_initial_delay_ms = initial_delay_ms;
  job->retry_multiplier_milli = milli;
  job->retry_max_delay_ms = max_delay_ms;
  job->retry_jitter_ms = jitter_ms;
  return 0;
}

int chime_job_get_retry_max_attempts(const chime_job *job) {
  return job ? (int)job->retry_max_attempts : 0;
}

int64_t chime_job_get_retry_initial_delay_ms(const chime_job *job) {
  return job ? job->retry_initial_delay_ms : 0;
}

double chime_job_get_retry_multiplier(const chime_job *job) {
  return job && job->retry_multiplier_milli > 0
             ? (double)job->retry_multiplier_milli / 1000.0
             : 1.0;
}

int64_t chime_job_get_retry_max_delay_ms(const chime_job *job) {
  return job ? job->retry_max_delay_ms : 0;
}

int64_t chime_job_get_retry_jitter_ms(const chime_job *job) {
  return job ? job->retry_jitter_ms : 0;
}

bool chime__retry_wanted(const chime_job *job, int attempt) {
  return job && attempt >= 1 && attempt < job->retry_max_attempts;
}

/* splitmix64's finaliser: a well-mixed jitter from a small seed. */
static uint64_t mix(uint64_t x) {
  x += UINT64_C(0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}

int64_t chime__retry_delay_ms(const chime_job *job, int attempt,
                              uint64_t seed) {
  if (!job || attempt < 1)
    return 0;
  /* Grow in integer thousandths, stopping at the cap (or at the longest
   * delay): delay < 7 days and the multiplier <= 10^6 thousandths, so the
   * product stays far below INT64_MAX however many attempts there are. */
  int64_t cap = job->retry_max_delay_ms > 0 ? job->retry_max_delay_ms
                                            : CHIME_MAX_TIMEOUT_MS;
  int64_t milli =
      job->retry_multiplier_milli > 0 ? job->retry_multiplier_milli : 1000;
  int64_t delay = job->retry_initial_delay_ms;
  for (int i = 1; i < attempt && delay < cap && milli > 1000; i++)
    delay = delay * milli / 1000;
  if (delay > cap)
    delay = cap;
  if (job->retry_jitter_ms > 0)
    delay += (int64_t)(mix(seed) % (uint64_t)job->retry_jitter_ms);
  return delay;
}
