/*
 * chimectl_metrics.c: `chimectl metrics`: the cluster-wide figures, read
 * from the database, in the Prometheus text exposition format (for a
 * scrape job's script or node_exporter's textfile collector).  Each node's
 * own counters come from chime_scheduler_metrics(); these are what the
 * tables say about the whole cluster: the runs the history holds (within
 * its retention) by job and outcome and their lateness, the triggers and
 * claimed fires by state, each node's check-in age, and what waits and
 * runs under the limits of job types.  Every series has
 * the label scheduler="NAME".  chime-web's /metrics serves the same
 * figures (ctl_metrics_write), so a scrape of either reads one set.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lateness buckets, in ms (the library's histogram buckets). */
static const int64_t bucket_ms[] = {1,    5,     10,    25,    50,
                                    100,  250,   500,   1000,  2500,
                                    5000, 10000, 30000, 60000, 300000};
#define NBUCKETS (sizeof bucket_ms / sizeof bucket_ms[0])

/* A label value, escaped as the exposition format asks. */
static void put_label(FILE *o, const char *v) {
  fputc('"', o);
  for (; v && *v; v++) {
    if (*v == '\\' || *v == '"')
      fprintf(o, "\\%c", *v);
    else if (*v == '\n')
      fputs("\\n", o);
    else
      fputc(*v, o);
  }
  fputc('"', o);
}

static void head(FILE *o, const char *name, const char *help,
                 const char *type) {
  fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void series(FILE *o, const ctl *c, const char *name) {
  fprintf(o, "%s{scheduler=", name);
  put_label(o, c->sched);
}

/* chime_cluster_runs{job,outcome} from the history. */
static int runs(ctl *c, FILE *o) {
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c,
                    "SELECT job_group, job_name, outcome, COUNT(*) FROM "
                    "{P}history WHERE sched_name = ? GROUP BY job_group, "
                    "job_name, outcome ORDER BY job_group, job_name, outcome",
                    args, 1, &rows);
  if (r)
    return r;
  head(o, "chime_cluster_runs",
       "Runs the history table holds (within its retention), by job and "
       "outcome.",
       "gauge");
  for (size_t i = 0; i < rows.nrows; i++) {
    char job[400];
    snprintf(job, sizeof job, "%s.%s", chime__mysql_rows_text(&rows, i, 0),
             chime__mysql_rows_text(&rows, i, 1));
    series(o, c, "chime_cluster_runs");
    fputs(",job=", o);
    put_label(o, job);
    fputs(",outcome=", o);
    put_label(o, chime__mysql_rows_text(&rows, i, 2));
    fprintf(o, "} %s\n", chime__mysql_rows_text(&rows, i, 3));
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

/* chime_cluster_fire_lateness_seconds: started - scheduled of the history's
 * scheduled runs (CTL_SCHEDULED_RUN_SQL: no fire-now, backfill, retry or
 * recovery), as a histogram. */
static int lateness(ctl *c, FILE *o) {
  char sql[2048];
  size_t k = (size_t)snprintf(sql, sizeof sql,
                              "SELECT COUNT(*), COALESCE(SUM(late), 0)");
  for (size_t b = 0; b < NBUCKETS; b++)
    k += (size_t)snprintf(sql + k, sizeof sql - k,
                          ", COALESCE(SUM(late <= %" PRId64 "), 0)",
                          bucket_ms[b]);
  snprintf(sql + k, sizeof sql - k,
           " FROM (SELECT GREATEST(started_ms - scheduled_ms, 0) AS late "
           "FROM {P}history WHERE sched_name = ? AND " CTL_SCHEDULED_RUN_SQL
           ") h");
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c, sql, args, 1, &rows);
  if (r)
    return r;
  head(o, "chime_cluster_fire_lateness_seconds",
       "How late the history's scheduled runs (no fire-now, backfill, retry "
       "or recovery) started after their scheduled time.",
       "histogram");
  for (size_t b = 0; b <= NBUCKETS; b++) {
    series(o, c, "chime_cluster_fire_lateness_seconds_bucket");
    if (b < NBUCKETS)
      fprintf(o, ",le=\"%g\"} %s\n", (double)bucket_ms[b] / 1000.0,
              chime__mysql_rows_text(&rows, 0, 2 + b));
    else
      fprintf(o, ",le=\"+Inf\"} %s\n", chime__mysql_rows_text(&rows, 0, 0));
  }
  series(o, c, "chime_cluster_fire_lateness_seconds_sum");
  fprintf(o, "} %.3f\n", (double)chime__mysql_rows_int64(&rows, 0, 1) / 1000.0);
  series(o, c, "chime_cluster_fire_lateness_seconds_count");
  fprintf(o, "} %s\n", chime__mysql_rows_text(&rows, 0, 0));
  chime__mysql_rows_free(&rows);
  return 0;
}

/* A gauge by state: SELECT state, COUNT(*) of one table. */
static int by_state(ctl *c, FILE *o, const char *table, const char *name,
                    const char *help) {
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT state, COUNT(*) FROM {P}%s WHERE sched_name = ? GROUP BY "
           "state ORDER BY state",
           table);
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c, sql, args, 1, &rows);
  if (r)
    return r;
  head(o, name, help, "gauge");
  for (size_t i = 0; i < rows.nrows; i++) {
    series(o, c, name);
    fputs(",state=", o);
    put_label(o, chime__mysql_rows_text(&rows, i, 0));
    fprintf(o, "} %s\n", chime__mysql_rows_text(&rows, i, 1));
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

/* chime_cluster_nodes and each node's check-in age. */
static int nodes(ctl *c, FILE *o) {
  /* Not chimectl's own session, which the store registers too. */
  const char *args[] = {c->sched, c->node};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c,
                    "SELECT instance_id, last_checkin_ms FROM {P}nodes WHERE "
                    "sched_name = ? AND instance_id <> ? ORDER BY instance_id",
                    args, 2, &rows);
  if (r)
    return r;
  int64_t now = ctl_now(c);
  head(o, "chime_cluster_nodes",
       "Nodes registered (alive or not recovered yet).", "gauge");
  series(o, c, "chime_cluster_nodes");
  fprintf(o, "} %zu\n", rows.nrows);
  head(o, "chime_cluster_node_checkin_age_seconds",
       "Seconds since each node's last check-in, by the database's clock.",
       "gauge");
  for (size_t i = 0; i < rows.nrows; i++) {
    series(o, c, "chime_cluster_node_checkin_age_seconds");
    fputs(",node=", o);
    put_label(o, chime__mysql_rows_text(&rows, i, 0));
    fprintf(o, "} %.3f\n",
            (double)(now - chime__mysql_rows_int64(&rows, i, 1)) / 1000.0);
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

/* chime_cluster_node_drain_state: each node asked to drain, 1 draining
 * or 2 drained (a node not listed is active). */
static int drains(ctl *c, FILE *o) {
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c,
                    "SELECT instance_id, state FROM {P}node_drains WHERE "
                    "sched_name = ? ORDER BY instance_id",
                    args, 1, &rows);
  if (r)
    return r;
  head(o, "chime_cluster_node_drain_state",
       "Nodes asked to drain: 1 draining, 2 drained (others are active).",
       "gauge");
  for (size_t i = 0; i < rows.nrows; i++) {
    series(o, c, "chime_cluster_node_drain_state");
    fputs(",node=", o);
    put_label(o, chime__mysql_rows_text(&rows, i, 0));
    fprintf(o, "} %d\n",
            strcmp(chime__mysql_rows_text(&rows, i, 1), "DRAINED") == 0 ? 2
                                                                        : 1);
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

/* One gauge of the limits: per limited type (partition "" for the type as
 * a whole) the figure field picks. */
static void limit_gauge(FILE *o, const ctl *c, const char *name,
                        const char *help, const chime__mysql_admin_limit *v,
                        size_t n, int which) {
  head(o, name, help, "gauge");
  for (size_t i = 0; i < n; i++) {
    int64_t x = which == 0       ? v[i].waiting
                : which == 1     ? v[i].running
                : v[i].partition ? v[i].max_per_partition
                                 : v[i].max_running;
    /* which 3: the rate, starts a second (the type's, or per key). */
    int count = v[i].partition ? v[i].key_rate_count : v[i].rate_count;
    int64_t period =
        v[i].partition ? v[i].key_rate_period_ms : v[i].rate_period_ms;
    if ((which == 2 && x == 0) || (which == 3 && count == 0))
      continue; /* no such limit */
    series(o, c, name);
    fputs(",type=", o);
    put_label(o, v[i].job_type);
    fputs(",partition=", o);
    put_label(o, v[i].partition ? v[i].partition : "");
    if (which == 3)
      fprintf(o, "} %.6g\n", (double)count * 1000.0 / (double)period);
    else
      fprintf(o, "} %" PRId64 "\n", x);
  }
}

/* The limits of job types (docs/queue.md, "Limits"): what waits and runs
 * per limited type and partition, and the limits. */
static int limits(ctl *c, FILE *o) {
  chime__mysql_admin_limit *v = NULL;
  size_t n = 0;
  int r = chime__mysql_admin_limits(c->admin, &v, &n);
  if (r < 0)
    return ctl_fail(r, "limits: %s", chime_strerror(r));
  limit_gauge(o, c, "chime_cluster_limit_waiting",
              "Due fires of a limited job type (partition) not claimed.", v, n,
              0);
  limit_gauge(o, c, "chime_cluster_limit_running",
              "Claimed or running fires of a limited job type (partition).", v,
              n, 1);
  limit_gauge(o, c, "chime_cluster_limit_max_running",
              "The concurrency limit of a job type (partition: per key).", v, n,
              2);
  limit_gauge(o, c, "chime_cluster_limit_rate_per_second",
              "The rate limit of a job type, starts a second (partition: per "
              "key).",
              v, n, 3);
  chime__mysql_admin_limits_free(v, n);
  return 0;
}

int ctl_metrics_write(ctl *c, FILE *o) {
  int r = runs(c, o);
  if (r == 0)
    r = lateness(c, o);
  if (r == 0)
    r = by_state(c, o, "triggers", "chime_cluster_triggers",
                 "Triggers by state.");
  if (r == 0)
    r = by_state(c, o, "fired", "chime_cluster_fires",
                 "Claimed fires by state (ACQUIRED, EXECUTING).");
  if (r == 0)
    r = nodes(c, o);
  if (r == 0)
    r = drains(c, o);
  if (r == 0)
    r = limits(c, o);
  return r;
}

int ctl_cmd_metrics(ctl *c) {
  if (c->argc > 0) {
    fprintf(stderr, "chimectl: usage: chimectl metrics\n");
    return CTL_USAGE;
  }
  int r = ctl_open(c, NULL);
  return r ? r : ctl_metrics_write(c, stdout);
}
