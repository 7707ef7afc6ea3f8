/*
 * run.c: one measured run, in the order it happens:
 *
 *   set-up     fresh schema, the job, M triggers from T0, spread evenly
 *              over the interval (bench_offset_ms);
 *              bench_results; N nodes started and ready
 *   warm-up    from max(T0, ready) for --warmup-s: fires run, nothing counts
 *   window     [W0, W1) of scheduled times, W1 = W0 + S s: the fires that
 *              count; CPU time and server counters are sampled at both ends
 *   grace      5 s after W1 for late runs, then VmHWM, SIGTERM, reap
 *   analysis   bench_results read back (analyse.c)
 *
 * All instants are store time (see bench.h).  T0 is a multiple of I and
 * lies far enough ahead that scheduling and node start-up fit before it
 * (estimated from the trigger count; when set-up overruns anyway, the
 * warm-up starts later).
 */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* SIGTERM to exit: a node waits for its running jobs (up to --work-ms),
 * and chime may retry the store for a while when the database is gone. */
#define STOP_TIMEOUT_MS 60000

static int64_t align_up(int64_t t, int64_t step) {
  return (t + step - 1) / step * step;
}

/* How long set-up before T0 is expected to take: scheduling (800 to 1,300
 * triggers a second on a 2-core machine with a durable server, slower as
 * the table grows) and starting the nodes. */
static int64_t setup_estimate_ms(const bench_opts *o) {
  return 2000 + o->triggers * 5 / 4 + 300 * (int64_t)o->nodes;
}

/* Samples every live node's CPU time into cpu_ticks_last (and, at W0,
 * cpu_ticks_at_w0). */
static void sample_nodes(bench_node *nodes, int n, bool at_w0) {
  for (int i = 0; i < n; i++) {
    if (nodes[i].pid <= 0)
      continue;
    int64_t t = bench_proc_cpu_ticks(nodes[i].pid);
    if (t < 0)
      continue;
    nodes[i].cpu_ticks_last = t;
    if (at_w0)
      nodes[i].cpu_ticks_at_w0 = t;
  }
}

static void sample_hwm(bench_node *node) {
  int64_t kib = bench_proc_hwm_kib(node->pid);
  if (kib > node->hwm_kib)
    node->hwm_kib = kib;
}

/* Kills the last node at W0 + --kill-one-at.  The kill instant is this
 * process's real-time clock turned into store time with the measured
 * offset; on one machine the database's clock and ours agree to about a
 * millisecond anyway, which is also the precision the rows carry. */
static int64_t kill_last(bench_node *nodes, int n) {
  bench_node *victim = &nodes[n - 1];
  sample_nodes(victim, 1, false);
  sample_hwm(victim);
  int64_t at = bench_store_ms();
  bench_nodes_kill(victim);
  fprintf(stderr, "chime-bench: killed %s at %" PRId64 "\n", victim->id, at);
  return at;
}

/* The window, with its samples.  Returns 0 or -1. */
static int measure(const bench_opts *o, MYSQL *db, pid_t db_pid,
                   bench_node *nodes, bench_run *run) {
  int n = o->nodes;
  bench_db_sample c0, c1;
  if (bench_nodes_wait_until(nodes, n, run->w0_ms) < 0)
    return -1;
  int64_t wall0 = bench_real_ms();
  sample_nodes(nodes, n, true);
  if (bench_db_sample_take(db, db_pid, &c0) < 0)
    return -1;
  fprintf(stderr, "chime-bench: window open (%d s)\n", o->seconds);
  if (o->kill_at_s >= 0) {
    if (bench_nodes_wait_until(nodes, n,
                               run->w0_ms + o->kill_at_s * INT64_C(1000)) < 0)
      return -1;
    run->kill_ms = kill_last(nodes, n);
    run->killed_node = n;
  }
  if (bench_nodes_wait_until(nodes, n, run->w1_ms) < 0)
    return -1;
  sample_nodes(nodes, n, false);
  if (bench_db_sample_take(db, db_pid, &c1) < 0)
    return -1;
  double wall_s = (double)(bench_real_ms() - wall0) / 1000.0;
  double tick_s = (double)sysconf(_SC_CLK_TCK);
  int64_t node_ticks = 0;
  for (int i = 0; i < n; i++)
    node_ticks += nodes[i].cpu_ticks_last - nodes[i].cpu_ticks_at_w0;
  run->node_cpu_pct = (double)node_ticks / tick_s / wall_s * 100.0;
  /* Rates per second of the window, CPU per second of wall time between
   * the samples (the readings themselves take a few milliseconds). */
  bench_cost_between(&c0, &c1, (double)o->seconds, wall_s, (long)tick_s,
                     &run->db);
  fprintf(stderr, "chime-bench: window closed; %d s of grace\n",
          BENCH_GRACE_MS / 1000);
  if (bench_nodes_wait_until(nodes, n, run->w1_ms + BENCH_GRACE_MS) < 0)
    return -1;
  for (int i = 0; i < n; i++)
    if (nodes[i].pid > 0)
      sample_hwm(&nodes[i]);
  for (int i = 0; i < n; i++)
    if (nodes[i].hwm_kib > run->node_rss_max_kib)
      run->node_rss_max_kib = nodes[i].hwm_kib;
  return 0;
}

/* Set-up, the run, the stop; the analysis is the caller's.  Returns 0 or
 * -1. */
static int run(const bench_opts *o, MYSQL *db, bench_node *nodes,
               bench_run *r) {
  if (bench_clock_sync(db) < 0)
    return -1;
  int64_t step = o->interval_ms;
  r->t0_ms = align_up(bench_store_ms() + setup_estimate_ms(o), step);
  fprintf(stderr,
          "chime-bench: %d node(s), %ld triggers every %" PRId64
          " ms, %u workers, first fire in %" PRId64 " ms\n",
          o->nodes, o->triggers, step, o->workers, r->t0_ms - bench_store_ms());
  if (bench_setup_store(o, o->triggers, r->t0_ms, step) < 0 ||
      bench_setup_results(db) < 0)
    return -1;
  pid_t db_pid = bench_db_server_pid(db);
  if (bench_nodes_start(o, nodes, o->nodes) < 0)
    return -1;
  int64_t ready = bench_store_ms();
  if (ready > r->t0_ms)
    fprintf(stderr,
            "chime-bench: set-up ran %" PRId64
            " ms past the first fire; the warm-up starts now\n",
            ready - r->t0_ms);
  int64_t firing = ready > r->t0_ms ? ready : r->t0_ms;
  r->w0_ms = align_up(firing + o->warmup_s * INT64_C(1000), step);
  r->w1_ms = r->w0_ms + o->seconds * INT64_C(1000);
  int status = measure(o, db, db_pid, nodes, r);
  if (status == 0 && bench_nodes_stop(nodes, o->nodes, STOP_TIMEOUT_MS) < 0)
    status = -1;
  return status;
}

int bench_run_main(const bench_opts *o) {
  chime_mysql_url *url = NULL;
  MYSQL *db = bench_db_open(o->url, &url);
  if (!db)
    return 1;
  bench_node nodes[BENCH_MAX_NODES] = {0};
  bench_run r = {.o = o};
  int status = 1;
  if (bench_nodes_logdir() == 0) {
    if (run(o, db, nodes, &r) == 0)
      status = bench_analyse(db, &r);
    bench_nodes_logs_done(nodes, o->nodes);
  }
  mysql_close(db);
  chime_mysql_url_free(url);
  return status;
}
