/*
 * metrics.c: recording the scheduler's metrics (metrics.h) and the names of
 * run outcomes.  Everything here is a relaxed atomic operation: counting
 * must cost next to nothing on the paths of a claim and a run, so there is
 * no lock, and a snapshot read while runs go on may see one counter
 * updated and another not yet (each value is exact on its own).
 *
 * A job's runs are counted in a fixed open-addressing table keyed by
 * "GROUP.NAME": a slot is taken once with a compare-and-swap of its key
 * and never given back, so a lookup needs no lock and a key read once stays
 * valid until the scheduler is freed.
 */
#include "engine/metrics.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint64_t chime__metrics_bucket_us[CHIME__METRICS_BUCKETS] = {
    1000,    5000,    10000,   25000,    50000,    100000,   250000,   500000,
    1000000, 2500000, 5000000, 10000000, 30000000, 60000000, 300000000};

static const char *const outcome_names[CHIME_OUTCOME_COUNT] = {
#define CHIME_XX_OUTCOME(name, value, text) [value] = #name,
    CHIME_OUTCOME_MAP(CHIME_XX_OUTCOME)
#undef CHIME_XX_OUTCOME
};

const char *chime_outcome_to_string(chime_outcome outcome) {
  if ((unsigned)outcome >= CHIME_OUTCOME_COUNT)
    return NULL;
  return outcome_names[outcome];
}

int chime_outcome_from_string(const char *text, chime_outcome *ret_outcome) {
  if (!text || !ret_outcome)
    return CHIME_EINVAL;
  for (unsigned i = 0; i < CHIME_OUTCOME_COUNT; i++) {
    if (strcmp(outcome_names[i], text) == 0) {
      *ret_outcome = (chime_outcome)i;
      return 0;
    }
  }
  return CHIME_EINVAL;
}

void chime__metrics_clear(chime__metrics *m) {
  for (size_t i = 0; i < CHIME__METRICS_JOBS; i++) {
    free(atomic_load(&m->jobs[i].key));
    atomic_store(&m->jobs[i].key, NULL);
  }
}

void chime__metrics_observe_us(chime__metrics *m, chime_histogram which,
                               uint64_t us) {
  assert((unsigned)which < CHIME_HISTOGRAM_COUNT);
  chime__histogram *h = &m->hist[which];
  size_t b = 0;
  while (b < CHIME__METRICS_BUCKETS && us > chime__metrics_bucket_us[b])
    b++;
  atomic_fetch_add_explicit(&h->buckets[b], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&h->sum_us, us, memory_order_relaxed);
  atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
}

void chime__metrics_observe_ms(chime__metrics *m, chime_histogram which,
                               int64_t ms) {
  chime__metrics_observe_us(m, which, ms > 0 ? (uint64_t)ms * 1000u : 0);
}

/* Whether key is "group.name". */
static bool key_is(const char *key, const char *group, const char *name) {
  size_t glen = strlen(group);
  return strncmp(key, group, glen) == 0 && key[glen] == '.' &&
         strcmp(key + glen + 1, name) == 0;
}

/* FNV-1a over "group.name" without building it. */
static uint64_t key_hash(const char *group, const char *name) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (const char *p = group; *p; p++)
    h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
  h = (h ^ (unsigned char)'.') * UINT64_C(1099511628211);
  for (const char *p = name; *p; p++)
    h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
  return h;
}

/* The slot of job (group, name), taking a free one the first time; the
 * overflow slot when the table is full or memory is short. */
static chime__job_runs *job_slot(chime__metrics *m, const char *group,
                                 const char *name) {
  uint64_t h = key_hash(group, name);
  char *mine = NULL;
  for (size_t i = 0; i < CHIME__METRICS_JOBS; i++) {
    chime__job_runs *slot = &m->jobs[(h + i) % CHIME__METRICS_JOBS];
    char *key = atomic_load_explicit(&slot->key, memory_order_acquire);
    if (!key) {
      if (!mine) {
        size_t len = strlen(group) + strlen(name) + 2;
        mine = malloc(len);
        if (!mine)
          return &m->other;
        snprintf(mine, len, "%s.%s", group, name);
      }
      if (atomic_compare_exchange_strong_explicit(&slot->key, &key, mine,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire))
        return slot;
      /* Another thread took it: key is its key now. */
    }
    if (key_is(key, group, name)) {
      free(mine);
      return slot;
    }
  }
  free(mine);
  return &m->other;
}

void chime__metrics_run(chime__metrics *m, const char *job_group,
                        const char *job_name, chime_outcome outcome) {
  assert((unsigned)outcome < CHIME_OUTCOME_COUNT);
  chime__job_runs *slot =
      job_group && job_name ? job_slot(m, job_group, job_name) : &m->other;
  atomic_fetch_add_explicit(&slot->runs[outcome], 1, memory_order_relaxed);
}

void chime__metrics_misfire(chime__metrics *m, chime_misfire policy) {
  size_t n = sizeof m->misfires / sizeof m->misfires[0];
  if ((unsigned)policy < n)
    atomic_fetch_add_explicit(&m->misfires[policy], 1, memory_order_relaxed);
  chime__metrics_add(m, CHIME_METRIC_MISFIRES, 1);
}

bool chime__metrics_store_down(chime__metrics *m, bool down) {
  if (atomic_exchange_explicit(&m->store_down, down, memory_order_relaxed) ==
      down)
    return false;
  chime__metrics_add(
      m, down ? CHIME_METRIC_STORE_OUTAGES : CHIME_METRIC_RECONNECTS, 1);
  return true;
}
