/*
 * metrics_export.c: chime_scheduler_metrics (a snapshot of metrics.h's
 * atomics and the gauges read under s->mu), its getters, and the
 * Prometheus text exposition format (version 0.0.4).
 */
#include "core/clock.h"
#include "engine/engine.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct snap_hist {
  uint64_t buckets[CHIME__METRICS_BUCKETS + 1]; /* not cumulative */
  uint64_t sum_us;
  uint64_t count;
} snap_hist;

typedef struct snap_job {
  char *key; /* "GROUP.NAME", or "(other)" */
  uint64_t runs[CHIME_OUTCOME_COUNT];
} snap_job;

struct chime_metrics {
  char *scheduler;
  char *node;
  uint64_t counters[CHIME_METRIC_COUNT];
  uint64_t misfires[8];
  double gauges[CHIME_GAUGE_COUNT];
  snap_hist hist[CHIME_HISTOGRAM_COUNT];
  snap_job *jobs; /* sorted by key */
  size_t njobs;
};

static const char *const misfire_names[8] = {
    "SMART",
    "IGNORE",
    "FIRE_NOW",
    "DO_NOTHING",
    "RESCHEDULE_NOW_EXISTING_COUNT",
    "RESCHEDULE_NOW_REMAINING_COUNT",
    "RESCHEDULE_NEXT_REMAINING_COUNT",
    "RESCHEDULE_NEXT_EXISTING_COUNT",
};

static int job_cmp(const void *a, const void *b) {
  return strcmp(((const snap_job *)a)->key, ((const snap_job *)b)->key);
}

static bool runs_copy(uint64_t *dst, const chime__job_runs *src) {
  bool any = false;
  for (size_t o = 0; o < CHIME_OUTCOME_COUNT; o++) {
    dst[o] = atomic_load_explicit(&src->runs[o], memory_order_relaxed);
    any = any || dst[o] > 0;
  }
  return any;
}

static int copy_jobs(chime_metrics *out, const chime__metrics *m) {
  out->jobs = calloc(CHIME__METRICS_JOBS + 1, sizeof *out->jobs);
  if (!out->jobs)
    return CHIME_ENOMEM;
  for (size_t i = 0; i < CHIME__METRICS_JOBS; i++) {
    const char *key =
        atomic_load_explicit(&m->jobs[i].key, memory_order_acquire);
    if (!key)
      continue;
    snap_job *j = &out->jobs[out->njobs];
    runs_copy(j->runs, &m->jobs[i]);
    if (!(j->key = strdup(key)))
      return CHIME_ENOMEM;
    out->njobs++;
  }
  snap_job *other = &out->jobs[out->njobs];
  if (runs_copy(other->runs, &m->other)) {
    if (!(other->key = strdup("(other)")))
      return CHIME_ENOMEM;
    out->njobs++;
  }
  qsort(out->jobs, out->njobs, sizeof *out->jobs, job_cmp);
  return 0;
}

static void copy_gauges(chime_metrics *out, chime_scheduler *s) {
  chime__mu_lock(s);
  unsigned busy = s->running - s->q_len;
  unsigned queued = s->reserved - busy;
  chime__mu_unlock(s);
  out->gauges[CHIME_GAUGE_WORKERS] = s->cfg.workers;
  out->gauges[CHIME_GAUGE_WORKERS_BUSY] = busy;
  out->gauges[CHIME_GAUGE_FIRES_QUEUED] = queued;
  int64_t ok = atomic_load(&s->metrics.checkin_ok_mono_ms);
  out->gauges[CHIME_GAUGE_LAST_CHECKIN_AGE] =
      ok == 0 ? -1.0 : (double)(chime__mono_ms() - ok) / 1000.0;
  out->gauges[CHIME_GAUGE_STORE_DOWN] = atomic_load(&s->metrics.store_down);
  out->gauges[CHIME_GAUGE_DRAIN_STATE] = atomic_load(&s->metrics.drain_state);
}

int chime_scheduler_metrics(chime_scheduler *scheduler,
                            chime_metrics **ret_metrics) {
  chime_scheduler *s = scheduler;
  if (!s || !ret_metrics)
    return CHIME_EINVAL;
  chime_metrics *out = calloc(1, sizeof *out);
  if (!out)
    return CHIME_ENOMEM;
  const chime__metrics *m = &s->metrics;
  for (size_t i = 0; i < CHIME_METRIC_COUNT; i++)
    out->counters[i] =
        atomic_load_explicit(&m->counters[i], memory_order_relaxed);
  for (size_t i = 0; i < 8; i++)
    out->misfires[i] =
        atomic_load_explicit(&m->misfires[i], memory_order_relaxed);
  for (size_t h = 0; h < CHIME_HISTOGRAM_COUNT; h++) {
    for (size_t b = 0; b <= CHIME__METRICS_BUCKETS; b++)
      out->hist[h].buckets[b] =
          atomic_load_explicit(&m->hist[h].buckets[b], memory_order_relaxed);
    out->hist[h].sum_us =
        atomic_load_explicit(&m->hist[h].sum_us, memory_order_relaxed);
    /* The count is the buckets' sum, so the two always agree. */
    for (size_t b = 0; b <= CHIME__METRICS_BUCKETS; b++)
      out->hist[h].count += out->hist[h].buckets[b];
  }
  copy_gauges(out, s);
  out->scheduler = strdup(s->cfg.scheduler_name);
  out->node = strdup(s->cfg.instance_id);
  if (!out->scheduler || !out->node || copy_jobs(out, m) < 0) {
    chime_metrics_free(out);
    return CHIME_ENOMEM;
  }
  *ret_metrics = out;
  return 0;
}

void chime_metrics_free(chime_metrics *metrics) {
  if (!metrics)
    return;
  for (size_t i = 0; i < metrics->njobs; i++)
    free(metrics->jobs[i].key);
  free(metrics->jobs);
  free(metrics->scheduler);
  free(metrics->node);
  free(metrics);
}

uint64_t chime_metrics_get_counter(const chime_metrics *metrics,
                                   chime_metric which) {
  if (!metrics || (unsigned)which >= CHIME_METRIC_COUNT)
    return 0;
  return metrics->counters[which];
}

double chime_metrics_get_gauge(const chime_metrics *metrics,
                               chime_gauge which) {
  if (!metrics || (unsigned)which >= CHIME_GAUGE_COUNT)
    return 0;
  return metrics->gauges[which];
}

uint64_t chime_metrics_get_misfires(const chime_metrics *metrics,
                                    chime_misfire policy) {
  if (!metrics || (unsigned)policy >= 8)
    return 0;
  return metrics->misfires[policy];
}

uint64_t chime_metrics_get_runs(const chime_metrics *metrics,
                                const char *job_group, const char *job_name,
                                chime_outcome outcome) {
  if (!metrics || (unsigned)outcome >= CHIME_OUTCOME_COUNT ||
      (!job_group) != (!job_name))
    return 0;
  uint64_t n = 0;
  size_t glen = job_group ? strlen(job_group) : 0;
  for (size_t i = 0; i < metrics->njobs; i++) {
    const char *key = metrics->jobs[i].key;
    if (!job_group || (strncmp(key, job_group, glen) == 0 && key[glen] == '.' &&
                       strcmp(key + glen + 1, job_name) == 0))
      n += metrics->jobs[i].runs[outcome];
  }
  return n;
}

int chime_metrics_get_histogram(const chime_metrics *metrics,
                                chime_histogram which, uint64_t *ret_count,
                                double *ret_sum_seconds) {
  if (!metrics || (unsigned)which >= CHIME_HISTOGRAM_COUNT)
    return CHIME_EINVAL;
  if (ret_count)
    *ret_count = metrics->hist[which].count;
  if (ret_sum_seconds)
    *ret_sum_seconds = (double)metrics->hist[which].sum_us / 1e6;
  return 0;
}

/* ------------------------------------------------------------ Prometheus */

/* One series family: its name and help text. */
typedef struct series {
  const char *name;
  const char *help;
} series;

/* A label value, escaped as the exposition format asks (\\, \", \n). */
static void put_label(FILE *f, const char *v) {
  putc('"', f);
  for (; *v; v++) {
    if (*v == '\\' || *v == '"')
      fprintf(f, "\\%c", *v);
    else if (*v == '\n')
      fputs("\\n", f);
    else
      putc(*v, f);
  }
  putc('"', f);
}

/* The labels every series carries, without braces. */
static void put_base(FILE *f, const chime_metrics *m) {
  fputs("scheduler=", f);
  put_label(f, m->scheduler);
  fputs(",node=", f);
  put_label(f, m->node);
}

static void put_head(FILE *f, const char *name, const char *help,
                     const char *type) {
  fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The counter family's name without its _total (the TYPE line's). */
static void put_counter_head(FILE *f, const char *name, const char *help) {
  size_t len = strlen(name);
  assert(len > 6 && strcmp(name + len - 6, "_total") == 0);
  fprintf(f, "# HELP %.*s %s\n# TYPE %.*s counter\n", (int)(len - 6), name,
          help, (int)(len - 6), name);
}

static void put_counters(FILE *f, const chime_metrics *m) {
  static const series all[] = {
#define CHIME_XX_METRIC(name, value, prom, help) [value] = {prom, help},
      CHIME_METRIC_MAP(CHIME_XX_METRIC)
#undef CHIME_XX_METRIC
  };
  for (size_t i = 0; i < CHIME_METRIC_COUNT; i++) {
    put_counter_head(f, all[i].name, all[i].help);
    if (i == CHIME_METRIC_MISFIRES) {
      for (size_t p = 0; p < 8; p++) {
        fprintf(f, "%s{", all[i].name);
        put_base(f, m);
        fprintf(f, ",policy=\"%s\"} %llu\n", misfire_names[p],
                (unsigned long long)m->misfires[p]);
      }
      continue;
    }
    fprintf(f, "%s{", all[i].name);
    put_base(f, m);
    fprintf(f, "} %llu\n", (unsigned long long)m->counters[i]);
  }
}

static void put_runs(FILE *f, const chime_metrics *m) {
  put_counter_head(f, "chime_runs_total",
                   "Runs that ended, by job and outcome.");
  for (size_t i = 0; i < m->njobs; i++) {
    for (size_t o = 0; o < CHIME_OUTCOME_COUNT; o++) {
      fputs("chime_runs_total{", f);
      put_base(f, m);
      fputs(",job=", f);
      put_label(f, m->jobs[i].key);
      fprintf(f, ",outcome=\"%s\"} %llu\n",
              chime_outcome_to_string((chime_outcome)o),
              (unsigned long long)m->jobs[i].runs[o]);
    }
  }
}

static void put_gauges(FILE *f, const chime_metrics *m) {
  static const series all[] = {
#define CHIME_XX_GAUGE(name, value, prom, help) [value] = {prom, help},
      CHIME_GAUGE_MAP(CHIME_XX_GAUGE)
#undef CHIME_XX_GAUGE
  };
  for (size_t i = 0; i < CHIME_GAUGE_COUNT; i++) {
    put_head(f, all[i].name, all[i].help, "gauge");
    fprintf(f, "%s{", all[i].name);
    put_base(f, m);
    fprintf(f, "} %.3f\n", m->gauges[i]);
  }
}

static void put_histograms(FILE *f, const chime_metrics *m) {
  static const series all[] = {
#define CHIME_XX_HISTOGRAM(name, value, prom, help) [value] = {prom, help},
      CHIME_HISTOGRAM_MAP(CHIME_XX_HISTOGRAM)
#undef CHIME_XX_HISTOGRAM
  };
  for (size_t h = 0; h < CHIME_HISTOGRAM_COUNT; h++) {
    const snap_hist *sh = &m->hist[h];
    put_head(f, all[h].name, all[h].help, "histogram");
    uint64_t cum = 0;
    for (size_t b = 0; b <= CHIME__METRICS_BUCKETS; b++) {
      cum += sh->buckets[b];
      fprintf(f, "%s_bucket{", all[h].name);
      put_base(f, m);
      if (b < CHIME__METRICS_BUCKETS)
        fprintf(f, ",le=\"%g\"} %llu\n",
                (double)chime__metrics_bucket_us[b] / 1e6,
                (unsigned long long)cum);
      else
        fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
    }
    fprintf(f, "%s_sum{", all[h].name);
    put_base(f, m);
    fprintf(f, "} %.6f\n", (double)sh->sum_us / 1e6);
    fprintf(f, "%s_count{", all[h].name);
    put_base(f, m);
    fprintf(f, "} %llu\n", (unsigned long long)sh->count);
  }
}

int chime_metrics_to_prometheus(const chime_metrics *metrics, char **ret_text) {
  if (!metrics || !ret_text)
    return CHIME_EINVAL;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return CHIME_ENOMEM;
  put_head(f, "chime_node_info", "This node: scheduler and instance id.",
           "gauge");
  fputs("chime_node_info{", f);
  put_base(f, metrics);
  fputs("} 1\n", f);
  put_counters(f, metrics);
  put_runs(f, metrics);
  put_gauges(f, metrics);
  put_histograms(f, metrics);
  bool failed = ferror(f) != 0;
  if (fclose(f) != 0 || failed) {
    free(text);
    return CHIME_ENOMEM;
  }
  *ret_text = text;
  return 0;
}
