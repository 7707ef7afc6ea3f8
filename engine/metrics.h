/*
 * metrics.h: the scheduler's own figures (counters, gauges, histograms and
 * the runs of each job by outcome), kept with atomic operations only so that
 * the hot path (a claim, a run, a completion) never takes a lock for them,
 * and the snapshot chime_scheduler_metrics() copies out of them.
 *
 * Every chime__metrics_* call below may be made from any thread, with or
 * without s->mu: none of them blocks, takes a lock or calls out.  The
 * engine's files call them as one-line hooks where the thing they count
 * happens; features that add outcomes (time limits, retries, skips) count
 * their runs with chime__metrics_run.
 */
#ifndef CHIME_ENGINE_METRICS_H
#define CHIME_ENGINE_METRICS_H

#include "chime.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Histogram bucket upper bounds, in microseconds (the last is +Inf). */
#define CHIME__METRICS_BUCKETS 15
extern const uint64_t chime__metrics_bucket_us[CHIME__METRICS_BUCKETS];

/* Jobs with their own runs_total series; the runs of more jobs than this
 * are counted under the job "(other)". */
#define CHIME__METRICS_JOBS 512u

typedef struct chime__histogram {
  _Atomic uint64_t buckets[CHIME__METRICS_BUCKETS + 1]; /* not cumulative */
  _Atomic uint64_t sum_us;
  _Atomic uint64_t count;
} chime__histogram;

/* One job's slot: key is "GROUP.NAME" (malloc'd; set once by CAS). */
typedef struct chime__job_runs {
  _Atomic(char *) key;
  _Atomic uint64_t runs[CHIME_OUTCOME_COUNT];
} chime__job_runs;

typedef struct chime__metrics {
  _Atomic uint64_t counters[CHIME_METRIC_COUNT];
  _Atomic uint64_t misfires[8]; /* by chime_misfire */
  chime__histogram hist[CHIME_HISTOGRAM_COUNT];
  chime__job_runs jobs[CHIME__METRICS_JOBS];
  chime__job_runs other; /* key unused: the jobs that found no slot */
  _Atomic int64_t checkin_ok_mono_ms; /* 0: never checked in */
  atomic_bool store_down;
  atomic_int drain_state; /* chime_node_state, set by drain.c */
} chime__metrics;

/* Frees the job keys (the scheduler is being freed). */
void chime__metrics_clear(chime__metrics *m);

/* Adds n to a counter. */
static inline void chime__metrics_add(chime__metrics *m, chime_metric which,
                                      uint64_t n) {
  atomic_fetch_add_explicit(&m->counters[which], n, memory_order_relaxed);
}

/* Records one value (milliseconds; a negative one counts as 0). */
void chime__metrics_observe_ms(chime__metrics *m, chime_histogram which,
                               int64_t ms);
/* A monotonic clock in microseconds, for chime__metrics_since. */
static inline uint64_t chime__metrics_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Records the time since start_us (chime__metrics_now_us). */
#define chime__metrics_since(m, which, start_us)                               \
  chime__metrics_observe_us((m), (which), chime__metrics_now_us() - (start_us))

/* Records one value in microseconds. */
void chime__metrics_observe_us(chime__metrics *m, chime_histogram which,
                               uint64_t us);

/* One finished run of job (group, name) with outcome: runs_total. */
void chime__metrics_run(chime__metrics *m, const char *job_group,
                        const char *job_name, chime_outcome outcome);

/* One misfire handled by instruction policy (counts MISFIRES too). */
void chime__metrics_misfire(chime__metrics *m, chime_misfire policy);

/* A check-in succeeded, started at mono_ms (chime__mono_ms). */
static inline void chime__metrics_checkin_ok(chime__metrics *m,
                                             int64_t mono_ms) {
  atomic_store_explicit(&m->checkin_ok_mono_ms, mono_ms, memory_order_relaxed);
}

/* chime__metrics_store_down: records whether the store is unreachable.
 * Returns: true when this call changed it (an outage began or ended; the
 * caller raises the event), and counts STORE_OUTAGES or RECONNECTS. */
bool chime__metrics_store_down(chime__metrics *m, bool down);

#endif /* CHIME_ENGINE_METRICS_H */
