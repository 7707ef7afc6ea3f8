/*
 * memory/admin_job_stats.c: chime-admin.h's CHIME_ADMIN_JOB_STATS on the
 * memory store, from the runs it keeps (its last CHIME__MEM_HISTORY_CAP):
 * the rules of the MySQL store's queries/job_stats.sql.  A run is any run
 * but a REQUEUED record, a failure one neither OK nor REQUEUED, recovered a
 * REQUEUED one; lateness (started - scheduled, at least 0) counts for
 * scheduled runs only (not fire-now, backfill, retry or recovery runs, not
 * a recovering run), its p50 and p99 interpolated between the two nearest
 * values as PERCENTILE_CONT does, rounded to the nearest (half to even, as
 * the server rounds a double).
 *
 * Threads: the store's lock held (admin.c).
 */
#include "jobstore/admin.h"
#include "jobstore/memory/memory.h"
#include "model/records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether a run of trigger group (recovering or not) is a schedule's own. */
static bool scheduled_run(const chime_history_entry *e) {
  static const char *const not_scheduled[] = {
      CHIME__MANUAL_GROUP, CHIME_BACKFILL_GROUP, CHIME__RETRY_GROUP,
      "CHIME_RECOVERING"};
  for (size_t i = 0; i < sizeof not_scheduled / sizeof not_scheduled[0]; i++)
    if (strcmp(e->trigger_group, not_scheduled[i]) == 0)
      return false;
  return !e->recovering;
}

static bool in_window(const chime_admin_query *q,
                      const chime_history_entry *e) {
  if (q->job_group && (strcmp(q->job_group, e->job_group) != 0 ||
                       strcmp(q->job_name, e->job_name) != 0))
    return false;
  return e->started_ms >= q->from_ms && (!q->to_ms || e->started_ms < q->to_ms);
}

static int by_job(const void *a, const void *b) {
  const chime_history_entry *x = *(const chime_history_entry *const *)a;
  const chime_history_entry *y = *(const chime_history_entry *const *)b;
  int c = strcmp(x->job_group, y->job_group);
  return c ? c : strcmp(x->job_name, y->job_name);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* PERCENTILE_CONT(p) of the n sorted values v, rounded. */
static int64_t percentile(const double *v, size_t n, double p) {
  double at = p * (double)(n - 1);
  size_t lo = (size_t)floor(at), hi = (size_t)ceil(at);
  return (int64_t)rint(v[lo] + (at - (double)lo) * (v[hi] - v[lo]));
}

/* The earliest next fire of the job's triggers waiting or running
 * (*ret_found false: none). */
static int64_t next_fire(mem_store *s, const char *group, const char *name,
                         bool *ret_found) {
  mem_job *mj = chime__mem_job_find(s, group, name);
  int64_t next = 0;
  *ret_found = false;
  for (mem_trigger *mt = mj ? mj->triggers : NULL; mt; mt = mt->next_of_job) {
    chime_store_state st = mt->t->store_state;
    if (st != CHIME_STATE_WAITING && st != CHIME_STATE_ACQUIRED &&
        st != CHIME_STATE_EXECUTING && st != CHIME_STATE_BLOCKED)
      continue;
    if (!*ret_found || mt->t->state.next_fire_ms < next)
      next = mt->t->state.next_fire_ms;
    *ret_found = true;
  }
  return next;
}

/* The row of the runs e[0 .. n) of one job; late a buffer of n. */
static void job_row(mem_store *s, const chime_history_entry *const *e, size_t n,
                    double *late, chime_admin_table *t) {
  int64_t runs = 0, failures = 0, recovered = 0, last = e[0]->started_ms;
  size_t nlate = 0;
  for (size_t i = 0; i < n; i++) {
    bool requeued = strcmp(e[i]->outcome, "REQUEUED") == 0;
    runs += !requeued;
    recovered += requeued;
    failures += !requeued && strcmp(e[i]->outcome, "OK") != 0;
    if (e[i]->started_ms > last)
      last = e[i]->started_ms;
    if (scheduled_run(e[i])) {
      int64_t l = e[i]->started_ms - e[i]->scheduled_ms;
      late[nlate++] = (double)(l > 0 ? l : 0);
    }
  }
  if (chime__admin_row_add(t) < 0)
    return;
  chime__admin_set_text(t, CHIME__AC_JSTAT_JOB_GROUP, e[0]->job_group);
  chime__admin_set_text(t, CHIME__AC_JSTAT_JOB_NAME, e[0]->job_name);
  chime__admin_set_int(t, CHIME__AC_JSTAT_RUNS, runs);
  chime__admin_set_int(t, CHIME__AC_JSTAT_FAILURES, failures);
  chime__admin_set_int(t, CHIME__AC_JSTAT_RECOVERED, recovered);
  if (nlate > 0) {
    qsort(late, nlate, sizeof *late, by_value);
    chime__admin_set_int(t, CHIME__AC_JSTAT_LATE_P50_MS,
                         percentile(late, nlate, 0.5));
    chime__admin_set_int(t, CHIME__AC_JSTAT_LATE_P99_MS,
                         percentile(late, nlate, 0.99));
  }
  chime__admin_set_int(t, CHIME__AC_JSTAT_LAST_STARTED_MS, last);
  bool found;
  int64_t next = next_fire(s, e[0]->job_group, e[0]->job_name, &found);
  if (found)
    chime__admin_set_int(t, CHIME__AC_JSTAT_NEXT_FIRE_MS, next);
}

int chime__mem_admin_job_stats(mem_store *s, const chime_admin_query *q,
                               chime_admin_table *t) {
  const chime_history_entry **e =
      malloc(CHIME__MEM_HISTORY_CAP * sizeof *e + 1);
  double *late = malloc(CHIME__MEM_HISTORY_CAP * sizeof *late + 1);
  if (!e || !late) {
    free(e);
    free(late);
    return CHIME_ENOMEM;
  }
  size_t n = 0;
  int64_t oldest = s->history_next_id - (int64_t)CHIME__MEM_HISTORY_CAP + 1;
  for (int64_t id = oldest < 1 ? 1 : oldest;
       s->history && id <= s->history_next_id; id++) {
    const chime_history_entry *h =
        &s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)];
    if (in_window(q, h))
      e[n++] = h;
  }
  qsort(e, n, sizeof *e, by_job);
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && by_job(&e[i], &e[j]) == 0; j++)
      ;
    job_row(s, e + i, j - i, late, t);
  }
  free(e);
  free(late);
  return 0;
}
