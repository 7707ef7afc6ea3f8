/*
 * soak-judge.c: the soak's rule for "grows without bound", applied to one
 * metric's samples at a time (soak.c chooses each metric's slack and
 * prints the verdict).
 *
 * A run of finite length cannot see "without bound"; what it can see is a
 * metric still growing once it should have settled.  The run's samples
 * fall in thirds: the first third is the warm-up (the nodes start, the
 * history fills up to its retention, the InnoDB files grow to their
 * working size) and is not judged; the middle third is the steady state's
 * reference.  A metric grows when every sample of the last third is above
 * every sample of the middle third, by more than the metric's slack:
 *   - a bounded metric that swings (the history between two trims, the
 *     fires in flight, the lateness of the minute a node was killed) has
 *     samples of both thirds at both ends of its swing, so it passes
 *     however wide the swing, and no single sample can fail it;
 *   - a metric that keeps growing faster than its swing fails, however
 *     slowly, once the run is long enough for the growth over a third to
 *     pass the slack;
 *   - the slack keeps a small, settled metric (a few pages of a table, a
 *     few hundred KiB of a process's heap, a keep-alive thread that came
 *     and went) from failing.
 * A metric that grows in steps slower than a third (a row for each node
 * killed) can sit on the same step at the end of the middle third and the
 * start of the last: only a longer run sees it.
 */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int64_t bench_median(const int64_t *v, size_t from, size_t to) {
  int64_t tmp[4096];
  size_t k = 0;
  for (size_t i = from; i < to && k < sizeof tmp / sizeof tmp[0]; i++)
    if (v[i] != BENCH_NO_SAMPLE)
      tmp[k++] = v[i];
  if (k == 0)
    return 0;
  qsort(tmp, k, sizeof tmp[0], by_value);
  /* The lower median: a figure that was measured. */
  return tmp[(k - 1) / 2];
}

/* Whether v[from, to) holds a sample; its smallest and largest. */
static bool range(const int64_t *v, size_t from, size_t to, int64_t *ret_min,
                  int64_t *ret_max) {
  bool any = false;
  for (size_t i = from; i < to; i++) {
    if (v[i] == BENCH_NO_SAMPLE)
      continue;
    if (!any || v[i] < *ret_min)
      *ret_min = v[i];
    if (!any || v[i] > *ret_max)
      *ret_max = v[i];
    any = true;
  }
  return any;
}

bool bench_judge_grows(const bench_series *s, int64_t slack, char *why,
                       size_t why_len) {
  size_t mid = s->n / 3, last = 2 * s->n / 3;
  int64_t mlo = 0, mhi = 0, llo = 0, lhi = 0;
  if (s->n < 3 || !range(s->v, mid, last, &mlo, &mhi) ||
      !range(s->v, last, s->n, &llo, &lhi)) {
    snprintf(why, why_len,
             "not judged: no sample in the middle or last "
             "third");
    return false;
  }
  bool grows = llo > mhi + slack;
  snprintf(why, why_len,
           "%" PRId64 "..%" PRId64 " in the middle third, %" PRId64 "..%" PRId64
           " in the last (grows: the last's least over the "
           "middle's largest + %" PRId64 ")",
           mlo, mhi, llo, lhi, slack);
  return grows;
}
