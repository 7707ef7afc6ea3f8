/*
 * soak.c: the --soak mode (issue 34): N nodes at a steady rate of a mixed
 * load for MINUTES, one node SIGKILLed and started again under its id
 * every --kill-every seconds, and every --sample-s seconds a sample of
 * what must stay bounded (DESIGN.md promise 11): each chime table's rows
 * and bytes, each node's RSS, threads, connections, the lateness over the
 * sample's period, the database's CPU.  At the end soak-judge.c's rules
 * say whether any of them grew; the verdict is the exit status.
 *
 * The mix, for a rate R (fires a second, every job together):
 *   bench    R - R/20 - 8 simple triggers firing every second, spread
 *            evenly over it;
 *   cron     R/20 cron triggers "* * * * * ?" (every second, together);
 *   forbid   a FORBID job, two triggers every second 100 ms apart, runs of
 *            200 ms: the second waits for the first;
 *   flaky    five triggers every second, retries (3 attempts, 200 ms
 *            back-off doubling): some fires fail once, some every time;
 *   shard    one trigger every 2 s, 3 shards with a checkpoint each;
 *   leases   every node: chime_lease_run on 8 shared names, 10 a second,
 *            and a "leader" lease kept alive by its holder.
 * soak-node.c runs them.  Lateness counts the bench and cron jobs' runs
 * (the others wait on purpose: FORBID, back-off).
 *
 * The store URL given gets history_retention_ms=--retention-ms: the nodes
 * trim their history by it.
 *
 * Samples (all real time of this process, from the nodes' readiness),
 * the store's through its operators' lists (chime-admin.h: this tool
 * names no table of the store and runs no statement on it):
 *   rows     each table's COUNT(*) (exact; TABLE_ROWS, InnoDB's estimate,
 *            is printed as est_rows): CHIME_ADMIN_STORAGE;
 *   bytes    DATA_LENGTH + INDEX_LENGTH of information_schema.TABLES
 *            (InnoDB's figures, refreshed by its statistics): the same;
 *   node     /proc/PID/status VmRSS and Threads, /proc/PID/fd's sockets,
 *            and conns: the node's sessions the server has
 *            (CHIME_ADMIN_SESSIONS);
 *   late     the nodes' lateness histograms (soak-node.c), the runs since
 *            the last sample: p50, p99, max;
 *   db_cpu   mariadbd's utime + stime over the period, % of one core.
 */
#include "bench.h"

#include "chime-admin.h"
#include "chime.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most tables the store's CHIME_ADMIN_STORAGE may list, and the
 * longest name kept. */
#define SOAK_TABLES 32
#define SOAK_TABLE_NAME 64

/* A process is judged from this long after its start. */
#define WARM_MS 30000
/* From a kill to the start of the node again. */
#define RESTART_DELAY_MS 2000
#define STOP_TIMEOUT_MS 60000
/* The fixed part of the mix. */
#define FORBID_TRIGGERS 2
#define FLAKY_TRIGGERS 5
#define SHARDS 3
#define SHARD_EVERY_MS 2000

/* Each metric's slack (soak-judge.c's rule; the help text and
 * docs/performance.md say them). */
#define ROWS_SLACK 100
#define BYTES_SLACK (INT64_C(8) << 20)
#define RSS_SLACK_KIB 4096
#define COUNT_SLACK 1
#define P99_SLACK_MS 100
#define CPU_SLACK_TENTHS 200

typedef struct node_sample {
  int incarnation; /* 0: not running */
  int64_t age_ms;
  int64_t rss_kib, threads, sockets, conns;
} node_sample;

typedef struct sample {
  int64_t t_s;
  /* The tables in the store's order (soak's tables). */
  int64_t rows[SOAK_TABLES], est_rows[SOAK_TABLES], bytes[SOAK_TABLES];
  node_sample node[BENCH_MAX_NODES];
  int64_t fires, p50, p99, max;
  int kills;             /* nodes killed in the sample's period */
  int64_t db_cpu_tenths; /* -1: unknown */
} sample;

typedef struct soak {
  const bench_opts *o;
  MYSQL *db;
  chime_admin *admin; /* the store's figures (chime-admin.h) */
  /* The store's tables, named by its first CHIME_ADMIN_STORAGE list. */
  char tables[SOAK_TABLES][SOAK_TABLE_NAME];
  int ntables;
  pid_t db_pid;
  bench_node nodes[BENCH_MAX_NODES];
  int64_t *prev[BENCH_MAX_NODES]; /* each node's histogram last read */
  int64_t window[BENCH_LAT_BUCKETS];
  int64_t cur[BENCH_LAT_BUCKETS];
  sample *samples;
  size_t nsamples;
  int64_t db_ticks, db_wall_ms, start_ms;
  int kills, kills_in_period;
  long n_simple, n_cron;
} soak;

static int64_t align_up(int64_t t, int64_t step) {
  return (t + step - 1) / step * step;
}

/* ------------------------------------------------------------ set-up */

/* Adds job name (type "bench", in group "bench"), configured by kind. */
static int add_job(chime_scheduler *s, const char *name) {
  chime_job *job = NULL;
  int r = chime_job_new(BENCH_JOB, name, BENCH_JOB, &job, NULL, 0);
  if (r == 0)
    r = chime_job_set_durable(job, true);
  if (r == 0)
    r = chime_job_set_requests_recovery(job, true);
  if (r == 0 && strcmp(name, "forbid") == 0)
    r = chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID);
  chime_retry *retry = NULL; /* "flaky": 3 attempts, 200 ms doubling */
  if (r == 0 && strcmp(name, "flaky") == 0 &&
      (r = chime_retry_new(&retry)) == 0 &&
      (r = chime_retry_set_max_attempts(retry, 3)) == 0 &&
      (r = chime_retry_set_initial_delay_ms(retry, 200)) == 0 &&
      (r = chime_retry_set_multiplier(retry, 2.0)) == 0 &&
      (r = chime_retry_set_max_delay_ms(retry, 1000)) == 0)
    r = chime_job_set_retry(job, retry);
  chime_retry_free(retry);
  if (r == 0 && strcmp(name, "shard") == 0)
    r = chime_job_set_shards(job, SHARDS, NULL);
  if (r == 0)
    r = chime_scheduler_add_job(s, job, false);
  chime_job_free(job);
  if (r < 0)
    fprintf(stderr, "chime-bench: adding job %s: %s (%s)\n", name,
            chime_scheduler_errmsg(s), chime_err_name(r));
  return r;
}

/* Schedules trigger name of job: cron when cron is not NULL, else simple
 * every interval_ms from start_ms. */
static int add_trigger(chime_scheduler *s, const char *job, const char *name,
                       const char *cron, int64_t start_ms,
                       int64_t interval_ms) {
  chime_trigger *t = NULL;
  char err[256] = "";
  int r = cron ? chime_trigger_cron_new("soak", name, cron, "UTC", &t, err,
                                        sizeof err)
               : chime_trigger_simple_new("soak", name, interval_ms,
                                          CHIME_REPEAT_INDEFINITELY, &t, err,
                                          sizeof err);
  if (r == 0)
    r = chime_trigger_set_job(t, BENCH_JOB, job);
  if (r == 0 && !cron)
    r = chime_trigger_set_start_ms(t, start_ms);
  if (r == 0)
    r = chime_scheduler_schedule(s, NULL, t, 0, NULL);
  chime_trigger_free(t);
  if (r < 0)
    fprintf(stderr, "chime-bench: scheduling %s: %s (%s)\n", name,
            err[0] ? err : chime_scheduler_errmsg(s), chime_err_name(r));
  return r;
}

/* The set-up scheduler never runs a job. */
static void never_runs(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
}

/* The rest of the mix, after bench_setup_store made the schema, the bench
 * job and its simple triggers.  Returns 0 or -1. */
static int setup_mix(soak *k, int64_t t0_ms) {
  chime_scheduler *s = bench_setup_open(k->o->url, false, 2);
  if (!s)
    return -1;
  int r =
      chime_scheduler_register_job_type(s, BENCH_JOB, never_runs, NULL, NULL);
  static const char *const jobs[] = {"cron", "forbid", "flaky", "shard"};
  for (size_t i = 0; r == 0 && i < sizeof jobs / sizeof jobs[0]; i++)
    r = add_job(s, jobs[i]);
  char name[32];
  for (long i = 0; r == 0 && i < k->n_cron; i++) {
    snprintf(name, sizeof name, "c%ld", i);
    r = add_trigger(s, "cron", name, "* * * * * ?", 0, 0);
  }
  for (int i = 0; r == 0 && i < FORBID_TRIGGERS; i++) {
    snprintf(name, sizeof name, "q%d", i);
    r = add_trigger(s, "forbid", name, NULL, t0_ms + 100 * i, 1000);
  }
  for (int i = 0; r == 0 && i < FLAKY_TRIGGERS; i++) {
    snprintf(name, sizeof name, "r%d", i);
    r = add_trigger(s, "flaky", name, NULL, t0_ms + 50 + 200 * i, 1000);
  }
  if (r == 0)
    r = add_trigger(s, "shard", "s0", NULL, t0_ms + 150, SHARD_EVERY_MS);
  chime_scheduler_free(s);
  return r < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ samples */

/* Reads node i's lateness file into k->cur (zero when it has none). */
static void read_hist(soak *k, int i) {
  memset(k->cur, 0, sizeof k->cur);
  FILE *f = fopen(k->nodes[i].lat_path, "r");
  if (!f)
    return;
  long long b, c;
  while (fscanf(f, "%lld %lld", &b, &c) == 2)
    if (b >= 0 && b < BENCH_LAT_BUCKETS)
      k->cur[b] = c;
  fclose(f);
}

/* Adds node i's runs since the last reading to the window. */
static void take_runs(soak *k, int i) {
  read_hist(k, i);
  for (int b = 0; b < BENCH_LAT_BUCKETS; b++) {
    int64_t d = k->cur[b] - k->prev[i][b];
    if (d > 0)
      k->window[b] += d;
    k->prev[i][b] = k->cur[b];
  }
}

/* The window's percentile p (nearest rank); -1 when empty. */
static int64_t window_pct(const soak *k, int64_t total, int p) {
  if (total == 0)
    return -1;
  int64_t rank = (total * p + 99) / 100, seen = 0;
  for (int b = 0; b < BENCH_LAT_BUCKETS; b++) {
    seen += k->window[b];
    if (seen >= rank)
      return b;
  }
  return BENCH_LAT_BUCKETS - 1;
}

/* The store's list kind into *ret (the caller frees it).  Returns: 0;
 * -1, said on stderr. */
static int admin_list(soak *k, chime_admin_kind kind, const char *what,
                      chime_admin_table **ret) {
  chime_admin_query *q = NULL;
  *ret = NULL;
  int r = chime_admin_query_new(kind, &q);
  if (r == 0)
    r = chime_admin_list(k->admin, q, ret);
  chime_admin_query_free(q);
  if (r < 0) {
    fprintf(stderr, "chime-bench: soak: the store's %s: %s\n", what,
            chime_admin_errmsg(k->admin));
    return -1;
  }
  return 0;
}

/* A figure of the store's, -1 when it has none. */
static int64_t cell_int(const chime_admin_table *t, size_t row,
                        const char *column) {
  return chime_admin_table_is_null(t, row, column)
             ? -1
             : chime_admin_table_get_int64(t, row, column);
}

/* rows, est_rows, bytes: each table of the store; the first sample
 * learns their names, the later ones must list the same. */
static int sample_tables(soak *k, sample *sm) {
  chime_admin_table *t = NULL;
  if (admin_list(k, CHIME_ADMIN_STORAGE, "tables", &t) < 0)
    return -1;
  size_t n = chime_admin_table_get_row_count(t);
  int r = 0;
  if (k->ntables == 0) {
    for (size_t i = 0; i < n && i < SOAK_TABLES; i++)
      snprintf(k->tables[i], sizeof k->tables[i], "%s",
               chime_admin_table_get_text(t, i, "table"));
    k->ntables = n < SOAK_TABLES ? (int)n : SOAK_TABLES;
  }
  if (n != (size_t)k->ntables) {
    fprintf(stderr,
            "chime-bench: soak: the store lists %zu tables, %d before\n", n,
            k->ntables);
    r = -1;
  }
  for (int i = 0; r == 0 && i < k->ntables; i++) {
    const char *name = chime_admin_table_get_text(t, (size_t)i, "table");
    if (!name || strcmp(name, k->tables[i]) != 0) {
      fprintf(stderr, "chime-bench: soak: the store's table %d is %s, was %s\n",
              i, name ? name : "(null)", k->tables[i]);
      r = -1;
      break;
    }
    sm->rows[i] = cell_int(t, (size_t)i, "rows");
    sm->est_rows[i] = cell_int(t, (size_t)i, "est_rows");
    sm->bytes[i] = cell_int(t, (size_t)i, "bytes");
  }
  chime_admin_table_free(t);
  return r;
}

/* conns: each node's sessions the server has now. */
static int sample_conns(soak *k, sample *sm) {
  chime_admin_table *t = NULL;
  if (admin_list(k, CHIME_ADMIN_SESSIONS, "sessions", &t) < 0)
    return -1;
  for (size_t r = 0; r < chime_admin_table_get_row_count(t); r++) {
    const char *node = chime_admin_table_get_text(t, r, "node");
    for (int i = 0; node && i < k->o->nodes; i++)
      if (strcmp(node, k->nodes[i].id) == 0)
        sm->node[i].conns = cell_int(t, r, "sessions");
  }
  chime_admin_table_free(t);
  return 0;
}

/* The index of the store's table name (of its storage list), -1 when it
 * lists none such. */
static int table_index(const soak *k, const char *name) {
  for (int t = 0; t < k->ntables; t++)
    if (strcmp(k->tables[t], name) == 0)
      return t;
  return -1;
}

static void print_sample(const soak *k, const sample *sm) {
  for (int t = 0; t < k->ntables; t++)
    fprintf(stderr,
            "soak\tt_s=%" PRId64 "\ttable=%s\trows=%" PRId64
            "\test_rows=%" PRId64 "\tbytes=%" PRId64 "\n",
            sm->t_s, k->tables[t], sm->rows[t], sm->est_rows[t], sm->bytes[t]);
  for (int i = 0; i < k->o->nodes; i++) {
    const node_sample *ns = &sm->node[i];
    if (ns->incarnation == 0) {
      fprintf(stderr, "soak\tt_s=%" PRId64 "\tnode=%s\tnot running\n", sm->t_s,
              k->nodes[i].id);
      continue;
    }
    fprintf(stderr,
            "soak\tt_s=%" PRId64 "\tnode=%s\tprocess=%d\tage_s=%" PRId64
            "\trss_kib=%" PRId64 "\tthreads=%" PRId64 "\tconns=%" PRId64
            "\tsockets=%" PRId64 "\n",
            sm->t_s, k->nodes[i].id, ns->incarnation, ns->age_ms / 1000,
            ns->rss_kib, ns->threads, ns->conns, ns->sockets);
  }
  fprintf(stderr,
          "soak\tt_s=%" PRId64 "\tfires=%" PRId64 "\tfires_per_s=%.1f"
          "\tlate_p50_ms=%" PRId64 "\tlate_p99_ms=%" PRId64
          "\tlate_max_ms=%" PRId64 "\tkills=%d\n",
          sm->t_s, sm->fires, (double)sm->fires / k->o->sample_s, sm->p50,
          sm->p99, sm->max, sm->kills);
  if (sm->db_cpu_tenths >= 0)
    fprintf(stderr, "soak\tt_s=%" PRId64 "\tdb_cpu_pct=%.1f\n", sm->t_s,
            (double)sm->db_cpu_tenths / 10.0);
  else
    fprintf(stderr, "soak\tt_s=%" PRId64 "\tdb_cpu_pct=NA\n", sm->t_s);
}

static int take_sample(soak *k) {
  sample *sm = &k->samples[k->nsamples];
  *sm = (sample){.t_s = (bench_real_ms() - k->start_ms + 500) / 1000,
                 .kills = k->kills_in_period,
                 .db_cpu_tenths = -1};
  k->kills_in_period = 0;
  int64_t now = bench_real_ms();
  if (k->db_pid > 0) {
    int64_t ticks = bench_proc_cpu_ticks(k->db_pid);
    if (ticks >= 0 && k->db_ticks >= 0 && now > k->db_wall_ms)
      sm->db_cpu_tenths = (ticks - k->db_ticks) * 1000 * 1000 /
                          sysconf(_SC_CLK_TCK) / (now - k->db_wall_ms);
    k->db_ticks = ticks;
    k->db_wall_ms = now;
  }
  for (int i = 0; i < k->o->nodes; i++) {
    bench_node *n = &k->nodes[i];
    if (n->pid <= 0)
      continue;
    take_runs(k, i);
    sm->node[i] = (node_sample){.incarnation = n->incarnation,
                                .age_ms = now - n->started_ms,
                                .rss_kib = bench_proc_status(n->pid, "VmRSS"),
                                .threads = bench_proc_status(n->pid, "Threads"),
                                .sockets = bench_proc_sockets(n->pid)};
  }
  for (int b = 0; b < BENCH_LAT_BUCKETS; b++)
    sm->fires += k->window[b];
  sm->p50 = window_pct(k, sm->fires, 50);
  sm->p99 = window_pct(k, sm->fires, 99);
  sm->max = -1;
  for (int b = BENCH_LAT_BUCKETS - 1; b >= 0 && sm->max < 0; b--)
    if (k->window[b])
      sm->max = b;
  memset(k->window, 0, sizeof k->window);
  if (sample_tables(k, sm) < 0 || sample_conns(k, sm) < 0)
    return -1;
  print_sample(k, sm);
  k->nsamples++;
  return 0;
}

/* Kills node i, keeps the runs it reported, starts it again. */
static int kill_and_restart(soak *k, int i) {
  bench_node *n = &k->nodes[i];
  bench_nodes_kill(n);
  k->kills++;
  k->kills_in_period++;
  fprintf(stderr, "chime-bench: soak: killed %s (SIGKILL) at t_s=%" PRId64 "\n",
          n->id, (bench_real_ms() - k->start_ms) / 1000);
  take_runs(k, i);
  unlink(n->lat_path);
  memset(k->prev[i], 0, BENCH_LAT_BUCKETS * sizeof(int64_t));
  bench_sleep_ms(RESTART_DELAY_MS);
  if (bench_nodes_restart(k->o, n) < 0)
    return -1;
  fprintf(stderr, "chime-bench: soak: %s started again (process %d)\n", n->id,
          n->incarnation);
  return 0;
}

/* ------------------------------------------------------------ verdict */

typedef struct verdict {
  int judged, not_judged, failed;
  char names[1024];
} verdict;

/* Counts a metric's verdict; prints the FAIL lines. */
static void judged(verdict *v, const char *metric, bool grows,
                   const char *why) {
  if (strncmp(why, "not judged", 10) == 0)
    v->not_judged++;
  else
    v->judged++;
  if (!grows)
    return;
  fprintf(stderr, "chime-bench: soak FAIL %s: %s\n", metric, why);
  size_t len = strlen(v->names);
  snprintf(v->names + len, sizeof v->names - len, "%s%s", v->failed ? "," : "",
           metric);
  v->failed++;
}

/* Fills values with one figure per sample (BENCH_NO_SAMPLE where what()
 * has none). */
typedef int64_t (*figure_fn)(const sample *sm, int index, int incarnation);

static bench_series series(const soak *k, int64_t *values, figure_fn what,
                           int index, int incarnation) {
  for (size_t s = 0; s < k->nsamples; s++)
    values[s] = what(&k->samples[s], index, incarnation);
  return (bench_series){.v = values, .n = k->nsamples};
}

static int64_t fig_rows(const sample *sm, int t, int inc) {
  (void)inc;
  return sm->rows[t];
}
static int64_t fig_bytes(const sample *sm, int t, int inc) {
  (void)inc;
  return sm->bytes[t];
}
static int64_t fig_p99(const sample *sm, int i, int inc) {
  (void)i;
  (void)inc;
  return sm->p99 >= 0 ? sm->p99 : BENCH_NO_SAMPLE;
}
static int64_t fig_cpu(const sample *sm, int i, int inc) {
  (void)i;
  (void)inc;
  return sm->db_cpu_tenths >= 0 ? sm->db_cpu_tenths : BENCH_NO_SAMPLE;
}
/* A node's process figures, only while that process was warm. */
static const node_sample *warm(const sample *sm, int i, int inc) {
  const node_sample *ns = &sm->node[i];
  return ns->incarnation == inc && ns->age_ms >= WARM_MS ? ns : NULL;
}
static int64_t fig_rss(const sample *sm, int i, int inc) {
  const node_sample *ns = warm(sm, i, inc);
  return ns && ns->rss_kib >= 0 ? ns->rss_kib : BENCH_NO_SAMPLE;
}
static int64_t fig_threads(const sample *sm, int i, int inc) {
  const node_sample *ns = warm(sm, i, inc);
  return ns && ns->threads >= 0 ? ns->threads : BENCH_NO_SAMPLE;
}
static int64_t fig_sockets(const sample *sm, int i, int inc) {
  const node_sample *ns = warm(sm, i, inc);
  return ns && ns->sockets >= 0 ? ns->sockets : BENCH_NO_SAMPLE;
}
static int64_t fig_conns(const sample *sm, int i, int inc) {
  const node_sample *ns = warm(sm, i, inc);
  return ns ? ns->conns : BENCH_NO_SAMPLE;
}

/* The connections a node may hold (docs/architecture.md, "Store
 * connections"): the store's pool, a connection per worker and three, at
 * most 64 (engine/scheduler.c, jobstore/mysql/store.c), opened when needed
 * and kept, and the heartbeat connection.  A burst (the recovery after a
 * kill) raises a node's count towards it in a step, so the count is judged
 * against this bound, not by soak-judge.c's rule. */
static int64_t pool_size(const bench_opts *o) {
  return (o->workers + 3 > 64 ? 64 : (int64_t)o->workers + 3) + 1;
}

static void over_pool(const soak *k, verdict *v, int i, int inc,
                      const char *what, figure_fn fn, int64_t *values) {
  char metric[128], why[256];
  bench_series s = series(k, values, fn, i, inc);
  int64_t most = BENCH_NO_SAMPLE;
  for (size_t j = 0; j < s.n; j++)
    if (s.v[j] > most)
      most = s.v[j];
  if (most == BENCH_NO_SAMPLE) {
    v->not_judged++;
    return;
  }
  snprintf(metric, sizeof metric, "%s#%d.%s", k->nodes[i].id, inc, what);
  snprintf(why, sizeof why,
           "%" PRId64 " at most, the store holds %" PRId64 " at most", most,
           pool_size(k->o));
  judged(v, metric, most > pool_size(k->o), why);
}

static void judge(const soak *k, verdict *v) {
  int64_t *values = calloc(k->nsamples + 1, sizeof *values);
  char metric[128], why[256];
  if (!values)
    return;
  if (k->nsamples < 3)
    fprintf(stderr,
            "chime-bench: soak: %zu sample(s): too few to judge "
            "(3 at least; see --sample-s)\n",
            k->nsamples);
  if (k->o->retention_ms > (int64_t)k->o->soak_minutes * 60000 / 3)
    fprintf(stderr,
            "chime-bench: soak: the retention (%" PRId64 " ms) is longer "
            "than the first third of the run: the history cannot have "
            "settled before the middle third\n",
            k->o->retention_ms);
  for (int t = 0; t < k->ntables; t++) {
    bench_series s = series(k, values, fig_rows, t, 0);
    snprintf(metric, sizeof metric, "%s.rows", k->tables[t]);
    judged(v, metric, bench_judge_grows(&s, ROWS_SLACK, why, sizeof why), why);
    s = series(k, values, fig_bytes, t, 0);
    snprintf(metric, sizeof metric, "%s.bytes", k->tables[t]);
    judged(v, metric, bench_judge_grows(&s, BYTES_SLACK, why, sizeof why), why);
  }
  for (int i = 0; i < k->o->nodes; i++) {
    for (int inc = 1; inc <= k->nodes[i].incarnation; inc++) {
      bench_series s = series(k, values, fig_rss, i, inc);
      snprintf(metric, sizeof metric, "%s#%d.rss_kib", k->nodes[i].id, inc);
      judged(v, metric, bench_judge_grows(&s, RSS_SLACK_KIB, why, sizeof why),
             why);
      s = series(k, values, fig_threads, i, inc);
      snprintf(metric, sizeof metric, "%s#%d.threads", k->nodes[i].id, inc);
      judged(v, metric, bench_judge_grows(&s, COUNT_SLACK, why, sizeof why),
             why);
      over_pool(k, v, i, inc, "conns", fig_conns, values);
      over_pool(k, v, i, inc, "sockets", fig_sockets, values);
    }
  }
  bench_series s = series(k, values, fig_p99, 0, 0);
  judged(v, "late_p99_ms", bench_judge_grows(&s, P99_SLACK_MS, why, sizeof why),
         why);
  /* A period that saw a kill is not held to the bound: the dead node's
   * claimed fires wait for its lease to run out, late by design. */
  int64_t worst = -1, worst_kill = -1;
  for (size_t i = k->nsamples / 3; i < k->nsamples; i++) {
    if (values[i] == BENCH_NO_SAMPLE)
      continue;
    int64_t *w = k->samples[i].kills ? &worst_kill : &worst;
    if (values[i] > *w)
      *w = values[i];
  }
  snprintf(why, sizeof why,
           "largest %" PRId64 " after the first third in a period without a "
           "kill (bound %" PRId64 "), %" PRId64 " in one with a kill",
           worst, k->o->max_p99_ms, worst_kill);
  judged(v, "late_p99_bound", worst > k->o->max_p99_ms, why);
  fprintf(stderr, "chime-bench: soak: late_p99_ms %s\n", why);
  if (k->db_pid > 0) {
    s = series(k, values, fig_cpu, 0, 0);
    judged(v, "db_cpu_tenths_pct",
           bench_judge_grows(&s, CPU_SLACK_TENTHS, why, sizeof why), why);
  }
  free(values);
}

/* The summary line (stdout). */
static void print_summary(const soak *k, const verdict *v) {
  const bench_opts *o = k->o;
  int64_t fires = 0, p99 = -1, p99_kill = -1, rss = 0, threads = 0, conns = 0;
  size_t n = k->nsamples;
  for (size_t s = 0; s < n; s++) {
    const sample *sm = &k->samples[s];
    fires += sm->fires;
    int64_t *w = sm->kills ? &p99_kill : &p99;
    if (s >= n / 3 && sm->p99 > *w)
      *w = sm->p99;
    for (int i = 0; i < o->nodes; i++) {
      if (sm->node[i].rss_kib > rss)
        rss = sm->node[i].rss_kib;
      if (sm->node[i].threads > threads)
        threads = sm->node[i].threads;
      if (sm->node[i].conns > conns)
        conns = sm->node[i].conns;
    }
  }
  const sample *last = n ? &k->samples[n - 1] : NULL;
  int64_t cpu[4096];
  size_t nc = 0;
  for (size_t s = 2 * n / 3; s < n && nc < 4096; s++)
    cpu[nc++] = k->samples[s].db_cpu_tenths;
  int64_t rows = 0, bytes = 0;
  for (int t = 0; last && t < k->ntables; t++) {
    rows += last->rows[t];
    bytes += last->bytes[t] > 0 ? last->bytes[t] : 0;
  }
  /* The history's and the fires' figures, as the store names its tables
   * (-1 when it lists none such). */
  int hist = table_index(k, "history"), fired = table_index(k, "fired");
  if (!last)
    hist = fired = -1;
  printf(
      "chime-bench-soak\tnodes=%d\tminutes=%d\trate=%ld\tretention_ms=%" PRId64
      "\tkill_every_s=%d\tkills=%d\tsamples=%zu\tfires=%" PRId64
      "\tfires_per_s=%.1f\tlate_p99_ms=%" PRId64 "\tlate_p99_kill_ms=%" PRId64
      "\thistory_rows=%" PRId64 "\thistory_bytes=%" PRId64
      "\tfired_rows=%" PRId64 "\ttables_rows=%" PRId64 "\ttables_bytes=%" PRId64
      "\tnode_rss_max_kib=%" PRId64 "\tnode_threads_max=%" PRId64
      "\tnode_conns_max=%" PRId64,
      o->nodes, o->soak_minutes, o->rate, o->retention_ms, o->kill_every_s,
      k->kills, n, fires, n ? (double)fires / ((double)n * o->sample_s) : 0.0,
      p99, p99_kill, hist >= 0 ? last->rows[hist] : -1,
      hist >= 0 ? last->bytes[hist] : -1, fired >= 0 ? last->rows[fired] : -1,
      rows, bytes, rss, threads, conns);
  int64_t med = nc ? bench_median(cpu, 0, nc) : -1;
  if (k->db_pid > 0 && med >= 0)
    printf("\tdb_cpu_pct=%.1f", (double)med / 10.0);
  else
    printf("\tdb_cpu_pct=NA");
  printf("\tverdict=%s\tgrowing=%s\n", v->failed ? "FAIL" : "ok",
         v->failed ? v->names : "none");
  fflush(stdout);
}

/* ------------------------------------------------------------ the run */

static int run(soak *k) {
  const bench_opts *o = k->o;
  if (bench_clock_sync(k->db) < 0)
    return -1;
  k->n_cron = o->rate / 20;
  k->n_simple = o->rate - k->n_cron - FORBID_TRIGGERS - FLAKY_TRIGGERS -
                SHARDS * 1000 / SHARD_EVERY_MS;
  /* The rows of an earlier run (a soak's history: a million rows) are
   * deleted before the first fire's time is chosen, or the nodes would
   * start that long behind. */
  chime_scheduler *clearing = bench_setup_open(o->url, true, 1);
  if (!clearing)
    return -1;
  chime_scheduler_free(clearing);
  /* The store's figures, its schema there now. */
  char err[256];
  if (chime_admin_open(o->url, BENCH_SCHEDULER_NAME, &k->admin, err,
                       sizeof err) < 0) {
    fprintf(stderr, "chime-bench: soak: cannot open the store's figures: %s\n",
            err);
    return -1;
  }
  bench_opts simple = *o;
  simple.triggers = k->n_simple;
  simple.interval_ms = 1000;
  simple.burst = false;
  int64_t t0 = align_up(bench_store_ms() + 2000 + k->n_simple * 5 / 4 +
                            k->n_cron * 10 + 300 * (int64_t)o->nodes,
                        1000);
  fprintf(stderr,
          "chime-bench: soak: %d node(s) for %d min at %ld fires/s (%ld simple "
          "triggers, %ld cron, FORBID, retries, %d shards every %d s, leases), "
          "history_retention_ms=%" PRId64 ", a node killed every %d s, a "
          "sample every %d s\n",
          o->nodes, o->soak_minutes, o->rate, k->n_simple, k->n_cron, SHARDS,
          SHARD_EVERY_MS / 1000, o->retention_ms, o->kill_every_s, o->sample_s);
  if (bench_setup_store(&simple, k->n_simple, t0, 1000) < 0 ||
      setup_mix(k, t0) < 0)
    return -1;
  k->db_pid = bench_db_server_pid(k->db);
  if (bench_nodes_start(o, k->nodes, o->nodes) < 0)
    return -1;
  k->start_ms = bench_real_ms();
  k->db_wall_ms = k->start_ms;
  k->db_ticks = k->db_pid > 0 ? bench_proc_cpu_ticks(k->db_pid) : -1;
  int64_t end = k->start_ms + o->soak_minutes * INT64_C(60000);
  int64_t period = o->sample_s * INT64_C(1000);
  int64_t kill_period = o->kill_every_s * INT64_C(1000);
  int64_t next_sample = k->start_ms + period;
  int64_t next_kill = kill_period > 0 ? k->start_ms + kill_period : INT64_MAX;
  int victim = 0;
  while (next_sample <= end) {
    int64_t at = next_sample <= next_kill ? next_sample : next_kill;
    /* bench_nodes_wait_until reads store time. */
    if (bench_nodes_wait_until(k->nodes, o->nodes,
                               at - bench_real_ms() + bench_store_ms()) < 0)
      return -1;
    if (at == next_sample) {
      if (take_sample(k) < 0)
        return -1;
      next_sample += period;
    } else {
      if (next_kill < end &&
          kill_and_restart(k, o->nodes - 1 - victim++ % o->nodes) < 0)
        return -1;
      next_kill += kill_period;
    }
  }
  return bench_nodes_stop(k->nodes, o->nodes, STOP_TIMEOUT_MS);
}

int bench_soak_main(const bench_opts *o) {
  bench_opts so = *o;
  /* The nodes trim their history by the URL's retention. */
  size_t len = strlen(o->url) + 64;
  char *url_text = malloc(len);
  if (!url_text)
    return 1;
  snprintf(url_text, len, "%s%chistory_retention_ms=%" PRId64, o->url,
           strchr(o->url, '?') ? '&' : '?', o->retention_ms);
  so.url = url_text;
  soak *k = calloc(1, sizeof *k);
  size_t max_samples = (size_t)o->soak_minutes * 60 / (size_t)o->sample_s + 2;
  chime_mysql_url *url = NULL;
  int status = 1;
  if (!k || !(k->samples = calloc(max_samples, sizeof *k->samples)))
    goto out;
  k->o = &so;
  for (int i = 0; i < so.nodes; i++)
    if (!(k->prev[i] = calloc(BENCH_LAT_BUCKETS, sizeof(int64_t))))
      goto out;
  if (!(k->db = bench_db_open(so.url, &url)))
    goto out;
  if (bench_nodes_logdir() == 0) {
    if (run(k) == 0) {
      verdict v = {0};
      judge(k, &v);
      print_summary(k, &v);
      fprintf(stderr,
              "chime-bench: soak: %d metric(s) judged (%d not: a process "
              "without a warm sample in both thirds), %d grew: %s\n",
              v.judged, v.not_judged, v.failed, v.failed ? v.names : "none");
      status = v.failed ? 3 : 0;
    }
    for (int i = 0; i < so.nodes; i++) {
      char tmp[300];
      snprintf(tmp, sizeof tmp, "%s.tmp", k->nodes[i].lat_path);
      unlink(k->nodes[i].lat_path);
      unlink(tmp);
    }
    bench_nodes_logs_done(k->nodes, so.nodes);
  }
out:
  if (k) {
    for (int i = 0; i < BENCH_MAX_NODES; i++)
      free(k->prev[i]);
    free(k->samples);
    if (k->db)
      mysql_close(k->db);
    chime_admin_free(k->admin);
    free(k);
  }
  chime_mysql_url_free(url);
  free(url_text);
  return status;
}
