/*
 * chimectl_metrics.c: `chimectl metrics`: the cluster-wide figures, read
 * from the database, in the Prometheus text exposition format (for a
 * scrape job's script or node_exporter's textfile collector).  Each node's
 * own counters come from chime_scheduler_metrics(); these are what the
 * tables say about the whole cluster: the runs the history holds (within
 * its retention) by job and outcome and their lateness, the triggers and
 * claimed fires by state, each node's check-in age, and what waits and
 * runs under the limits of job types.  Every series has
 * the label scheduler="NAME".  The figures are chime-admin.h's lists, so
 * this file names no table.  chime-web's /metrics serves the same
 * figures (ctl_metrics_write), so a scrape of either reads one set.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* The rows of list kind (chime-admin.h), or a failure said. */
static int list(ctl *c, chime_admin_kind kind, chime_admin_table **ret) {
  return ctl_list(c, ctl_list_query(kind), ret);
}

#define TEXT(t, i, col) chime_admin_table_get_text(t, i, col)
#define INT(t, i, col) chime_admin_table_get_int64(t, i, col)

/* chime_cluster_runs{job,outcome} from the history. */
static int runs(ctl *c, FILE *o) {
  chime_admin_table *t = NULL;
  int r = list(c, CHIME_ADMIN_RUN_COUNTS, &t);
  if (r)
    return r;
  head(o, "chime_cluster_runs",
       "Runs the history table holds (within its retention), by job and "
       "outcome.",
       "gauge");
  for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++) {
    char job[400];
    snprintf(job, sizeof job, "%s.%s", TEXT(t, i, "job_group"),
             TEXT(t, i, "job_name"));
    series(o, c, "chime_cluster_runs");
    fputs(",job=", o);
    put_label(o, job);
    fputs(",outcome=", o);
    put_label(o, TEXT(t, i, "outcome"));
    fprintf(o, "} %s\n", TEXT(t, i, "runs"));
  }
  chime_admin_table_free(t);
  return 0;
}

/* chime_cluster_fire_lateness_seconds: started - scheduled of the history's
 * scheduled runs (no fire-now, backfill, retry or recovery), as a
 * histogram: the store's buckets (CHIME_ADMIN_LATENESS), the last row every
 * run. */
static int lateness(ctl *c, FILE *o) {
  chime_admin_table *t = NULL;
  int r = list(c, CHIME_ADMIN_LATENESS, &t);
  if (r)
    return r;
  size_t n = chime_admin_table_get_row_count(t);
  if (n == 0) {
    chime_admin_table_free(t);
    return ctl_fail(CHIME_ESTORE, "lateness: no rows");
  }
  head(o, "chime_cluster_fire_lateness_seconds",
       "How late the history's scheduled runs (no fire-now, backfill, retry "
       "or recovery) started after their scheduled time.",
       "histogram");
  for (size_t b = 0; b < n; b++) {
    series(o, c, "chime_cluster_fire_lateness_seconds_bucket");
    if (!chime_admin_table_is_null(t, b, "le_ms"))
      fprintf(o, ",le=\"%g\"} %s\n", (double)INT(t, b, "le_ms") / 1000.0,
              TEXT(t, b, "runs"));
    else
      fprintf(o, ",le=\"+Inf\"} %s\n", TEXT(t, b, "runs"));
  }
  series(o, c, "chime_cluster_fire_lateness_seconds_sum");
  fprintf(o, "} %.3f\n", (double)INT(t, n - 1, "late_ms") / 1000.0);
  series(o, c, "chime_cluster_fire_lateness_seconds_count");
  fprintf(o, "} %s\n", TEXT(t, n - 1, "runs"));
  chime_admin_table_free(t);
  return 0;
}

/* A gauge by state: the triggers' or the fires' counts by state. */
static int by_state(ctl *c, FILE *o, chime_admin_kind kind, const char *name,
                    const char *help) {
  chime_admin_table *t = NULL;
  int r = list(c, kind, &t);
  if (r)
    return r;
  head(o, name, help, "gauge");
  for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++) {
    series(o, c, name);
    fputs(",state=", o);
    put_label(o, TEXT(t, i, "state"));
    fprintf(o, "} %s\n", TEXT(t, i, "count"));
  }
  chime_admin_table_free(t);
  return 0;
}

/* chime_cluster_nodes and each node's check-in age (chimectl's own session
 * is not listed). */
static int nodes(ctl *c, FILE *o) {
  chime_admin_table *t = NULL;
  int r = list(c, CHIME_ADMIN_NODES, &t);
  if (r)
    return r;
  size_t n = chime_admin_table_get_row_count(t);
  head(o, "chime_cluster_nodes",
       "Nodes registered (alive or not recovered yet).", "gauge");
  series(o, c, "chime_cluster_nodes");
  fprintf(o, "} %zu\n", n);
  head(o, "chime_cluster_node_checkin_age_seconds",
       "Seconds since each node's last check-in, by the database's clock.",
       "gauge");
  for (size_t i = 0; i < n; i++) {
    series(o, c, "chime_cluster_node_checkin_age_seconds");
    fputs(",node=", o);
    put_label(o, TEXT(t, i, "id"));
    fprintf(o, "} %.3f\n", (double)INT(t, i, "checkin_age_ms") / 1000.0);
  }
  chime_admin_table_free(t);
  return 0;
}

/* chime_cluster_node_drain_state: each node asked to drain, 1 draining
 * or 2 drained (a node not listed is active). */
static int drains(ctl *c, FILE *o) {
  chime_admin_table *t = NULL;
  int r = list(c, CHIME_ADMIN_DRAINS, &t);
  if (r)
    return r;
  head(o, "chime_cluster_node_drain_state",
       "Nodes asked to drain: 1 draining, 2 drained (others are active).",
       "gauge");
  for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++) {
    series(o, c, "chime_cluster_node_drain_state");
    fputs(",node=", o);
    put_label(o, TEXT(t, i, "node"));
    fprintf(o, "} %d\n", strcmp(TEXT(t, i, "state"), "drained") == 0 ? 2 : 1);
  }
  chime_admin_table_free(t);
  return 0;
}

/* One gauge of the limits (CHIME_ADMIN_LIMITS): per limited type
 * (partition "" for the type as a whole) the figure which picks. */
static void limit_gauge(FILE *o, const ctl *c, const char *name,
                        const char *help, const chime_admin_table *t,
                        int which) {
  head(o, name, help, "gauge");
  for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++) {
    bool part = !chime_admin_table_is_null(t, i, "partition");
    int64_t x = which == 0 ? INT(t, i, "waiting")
                : which == 1
                    ? INT(t, i, "running")
                    : INT(t, i, part ? "max_per_partition" : "max_running");
    /* which 3: the rate, starts a second (the type's, or per key). */
    int64_t count = INT(t, i, part ? "key_rate_count" : "rate_count");
    int64_t period = INT(t, i, part ? "key_rate_period_ms" : "rate_period_ms");
    if ((which == 2 && x == 0) || (which == 3 && count == 0))
      continue; /* no such limit */
    series(o, c, name);
    fputs(",type=", o);
    put_label(o, TEXT(t, i, "job_type"));
    fputs(",partition=", o);
    put_label(o, part ? TEXT(t, i, "partition") : "");
    if (which == 3)
      fprintf(o, "} %.6g\n", (double)count * 1000.0 / (double)period);
    else
      fprintf(o, "} %" PRId64 "\n", x);
  }
}

/* The limits of job types (docs/queue.md, "Limits"): what waits and runs
 * per limited type and partition, and the limits. */
static int limits(ctl *c, FILE *o) {
  chime_admin_table *t = NULL;
  int r = list(c, CHIME_ADMIN_LIMITS, &t);
  if (r)
    return r;
  limit_gauge(o, c, "chime_cluster_limit_waiting",
              "Due fires of a limited job type (partition) not claimed.", t, 0);
  limit_gauge(o, c, "chime_cluster_limit_running",
              "Claimed or running fires of a limited job type (partition).", t,
              1);
  limit_gauge(o, c, "chime_cluster_limit_max_running",
              "The concurrency limit of a job type (partition: per key).", t,
              2);
  limit_gauge(o, c, "chime_cluster_limit_rate_per_second",
              "The rate limit of a job type, starts a second (partition: per "
              "key).",
              t, 3);
  chime_admin_table_free(t);
  return 0;
}

#undef INT
#undef TEXT

int ctl_metrics_write(ctl *c, FILE *o) {
  int r = runs(c, o);
  if (r == 0)
    r = lateness(c, o);
  if (r == 0)
    r = by_state(c, o, CHIME_ADMIN_TRIGGER_STATES, "chime_cluster_triggers",
                 "Triggers by state.");
  if (r == 0)
    r = by_state(c, o, CHIME_ADMIN_FIRE_STATES, "chime_cluster_fires",
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
