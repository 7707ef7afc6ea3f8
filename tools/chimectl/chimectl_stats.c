/*
 * chimectl_stats.c: `chimectl stats [--job GROUP.NAME] [--since TIME]`:
 * per job over a window (default the last 24 hours): runs, failures,
 * recovered runs, lateness p50 and p99 (started - scheduled, of scheduled
 * runs only), the last run, and the job's next fire time.  Read from the
 * history and triggers tables, so it covers every node of the cluster.
 * What counts as a run, a failure, a recovered run and a scheduled run is
 * chimectl.h's rule (CTL_SCHEDULED_RUN_SQL and beside it): a REQUEUED row
 * (a dead node's record) is counted as recovered, not as a run or a
 * failure; fire-now, backfill, retry and recovery runs have no lateness.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The window of one job (a named WINDOW does not take PERCENTILE_CONT). */
#define PER_JOB "OVER (PARTITION BY job_group, job_name)"

/* Per job, its window's figures (window functions: MariaDB 10.3+), then
 * the earliest next fire of its waiting triggers. */
#define STATS_SQL                                                              \
  "SELECT h.job_group, h.job_name, h.runs, h.failures, h.recovered, "          \
  "ROUND(h.p50), ROUND(h.p99), h.last_ms, "                                    \
  "(SELECT MIN(t.next_fire_ms) FROM {P}triggers t WHERE t.sched_name = "       \
  "h.sched_name AND t.job_group = h.job_group AND t.job_name = h.job_name "    \
  "AND t.state IN ('WAITING', 'ACQUIRED', 'EXECUTING', 'BLOCKED')) "           \
  "FROM (SELECT DISTINCT sched_name, job_group, job_name, "                    \
  "SUM(NOT " CTL_REQUEUED_SQL ") " PER_JOB " AS runs, "                        \
  "SUM(" CTL_FAILURE_SQL ") " PER_JOB " AS failures, "                         \
  "SUM(" CTL_REQUEUED_SQL ") " PER_JOB " AS recovered, "                       \
  "PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY late) " PER_JOB " AS p50, "     \
  "PERCENTILE_CONT(0.99) WITHIN GROUP (ORDER BY late) " PER_JOB " AS p99, "    \
  "MAX(started_ms) " PER_JOB " AS last_ms "                                    \
  "FROM (SELECT sched_name, job_group, job_name, outcome, started_ms, "        \
  "CASE WHEN " CTL_SCHEDULED_RUN_SQL " THEN GREATEST(started_ms - "            \
  "scheduled_ms, 0) END AS late FROM {P}history "                              \
  "WHERE sched_name = ? AND started_ms >= CAST(? AS SIGNED)%s) x "             \
  ") h "                                                                       \
  "ORDER BY h.job_group, h.job_name"

enum {
  S_GROUP,
  S_NAME,
  S_RUNS,
  S_FAILURES,
  S_RECOVERED,
  S_P50,
  S_P99,
  S_LAST,
  S_NEXT
};

static int stats_row(const ctl *c, ctl_table *t, const chime__mysql_rows *rows,
                     size_t i) {
#define TEXT(col) chime__mysql_rows_text(rows, i, col)
  char job[400], last[48], next[48];
  snprintf(job, sizeof job, "%s.%s", TEXT(S_GROUP), TEXT(S_NAME));
  ctl_format_time(chime__mysql_rows_int64(rows, i, S_LAST), c->zone, last,
                  sizeof last);
  const char *next_ms = TEXT(S_NEXT);
  if (next_ms)
    ctl_format_time(chime__mysql_rows_int64(rows, i, S_NEXT), c->zone, next,
                    sizeof next);
  else
    snprintf(next, sizeof next, "-");
  const char *cells[] = {job,
                         TEXT(S_RUNS),
                         TEXT(S_FAILURES),
                         TEXT(S_RECOVERED),
                         TEXT(S_P50),
                         TEXT(S_P99),
                         last,
                         next,
                         TEXT(S_LAST),
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
  char group[256], name[256], since[32];
  int64_t from = 0;
  int r = ctl_job_and_since(c, group, name, sizeof group, &from);
  if (r)
    return r;
  if (!c->since)
    from = ctl_now(c) - INT64_C(86400000);
  snprintf(since, sizeof since, "%" PRId64, from);
  char sql[3072];
  snprintf(sql, sizeof sql, STATS_SQL,
           c->job ? " AND job_group = ? AND job_name = ?" : "");
  const char *args[] = {c->sched, since, group, name};
  chime__mysql_rows rows = {0};
  if ((r = ctl_query(c, sql, args, c->job ? 4 : 2, &rows)))
    return r;
  static const char *const heads[] = {
      "job",         "runs",     "failures",  "recovered",   "late_p50_ms",
      "late_p99_ms", "last_run", "next_fire", "last_run_ms", "next_fire_ms"};
  static const bool num[] = {false, true,  true,  true, true,
                             true,  false, false, true, true};
  ctl_table t;
  ctl_table_init(&t, heads, num, 10);
  t.shown = 8;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++)
    r = stats_row(c, &t, &rows, i);
  return ctl_table_done(c, &t, &rows, r);
}
