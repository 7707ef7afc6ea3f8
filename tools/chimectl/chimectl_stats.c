/*
 * chimectl_stats.c: `chimectl stats [--job GROUP.NAME] [--since TIME]`:
 * per job over a window (default the last 24 hours): runs, failures,
 * recovered runs, lateness p50 and p99 (started - scheduled, of scheduled
 * runs only), the last run, and the job's next fire time: the store's
 * CHIME_ADMIN_JOB_STATS list (chime-admin.h), which covers every node of
 * the cluster.  What counts as a run, a failure, a recovered run and a
 * scheduled run is the store's rule (chime-admin(3); chimectl.h's "history
 * rules" says it in words): a REQUEUED row (a dead node's
 * record) is counted as recovered, not as a run or a failure; fire-now,
 * backfill, retry and recovery runs have no lateness.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int stats_row(const ctl *c, ctl_table *t, const chime_admin_table *l,
                     size_t i) {
#define TEXT(col) chime_admin_table_get_text(l, i, col)
  char job[400], last[48], next[48];
  snprintf(job, sizeof job, "%s.%s", TEXT("job_group"), TEXT("job_name"));
  ctl_format_time(chime_admin_table_get_int64(l, i, "last_started_ms"), c->zone,
                  last, sizeof last);
  const char *next_ms = TEXT("next_fire_ms");
  if (next_ms)
    ctl_format_time(chime_admin_table_get_int64(l, i, "next_fire_ms"), c->zone,
                    next, sizeof next);
  else
    snprintf(next, sizeof next, "-");
  const char *cells[] = {job,
                         TEXT("runs"),
                         TEXT("failures"),
                         TEXT("recovered"),
                         TEXT("late_p50_ms"),
                         TEXT("late_p99_ms"),
                         last,
                         next,
                         TEXT("last_started_ms"),
                         next_ms};
#undef TEXT
  return ctl_table_add(t, cells) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory")
                                     : 0;
}

int ctl_cmd_stats(ctl *c) {
  if (c->argc > 0) {
    fprintf(stderr, "chimectl: usage: chimectl stats [--job GROUP.NAME] "
                    "[--since TIME]\n");
    return CTL_USAGE;
  }
  char group[256], name[256];
  int64_t from = 0;
  int r = ctl_job_and_since(c, group, name, sizeof group, &from);
  if (r)
    return r;
  if (!c->since)
    from = ctl_now(c) - INT64_C(86400000);
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_JOB_STATS);
  /* A time before the epoch: the whole history (0 is the open end). */
  if (q && (chime_admin_query_set_started(q, from > 0 ? from : 1, 0) < 0 ||
            (c->job && chime_admin_query_set_job(q, group, name) < 0))) {
    chime_admin_query_free(q);
    return ctl_usage("'%s' is not a key GROUP.NAME", c->job);
  }
  chime_admin_table *l = NULL;
  if ((r = ctl_list(c, q, &l)))
    return r;
  static const char *const heads[] = {
      "job",         "runs",     "failures",  "recovered",   "late_p50_ms",
      "late_p99_ms", "last_run", "next_fire", "last_run_ms", "next_fire_ms"};
  static const bool num[] = {false, true,  true,  true, true,
                             true,  false, false, true, true};
  ctl_table t;
  ctl_table_init(&t, heads, num, 10);
  t.shown = 8;
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++)
    r = stats_row(c, &t, l, i);
  chime_admin_table_free(l);
  return ctl_table_end(c, &t, r);
}
