/*
 * enqueue.c: the --enqueue mode (issue 31, docs/queue.md): how fast runs
 * are handed in, and how fast a cluster works through a backlog of them.
 *
 *   set-up     fresh schema with the bench job, bench_results
 *   hand-in    RUNS runs of the bench job, one chime_scheduler_enqueue_many
 *              call (one transaction and one multi-row INSERT per 1,000
 *              runs), all due at DUE, an instant after the hand-in is
 *              expected to end: handed_in_per_s is RUNS over its wall time
 *   burn-down  N nodes (the --node mode: the bench job records a row per
 *              run in bench_results, the run's start by the store clock)
 *              are started and run the backlog: burn_down_per_s is RUNS
 *              over the time from max(DUE, every node ready) to the last
 *              run's start; what the database paid per run (cost.c) is
 *              sampled from that instant to a second after the last run's
 *              row (idle nodes cost about 3 statements a second)
 *
 * It fails (exit 2) when a run ran twice or not at all.
 */
#include "bench.h"

#include "chime.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The hand-in is expected at this rate at the least (the due instant is
 * set from it), and the burn-down within this long. */
#define SLOWEST_RUNS_PER_S 5000
#define BURN_DOWN_LIMIT_MS 600000

/* Hands in o->enqueue_runs runs due at due_ms; *ret_ms the wall time. */
static int hand_in(const bench_opts *o, int64_t due_ms, int64_t *ret_ms) {
  long n = o->enqueue_runs;
  chime_scheduler *s = bench_setup_open(o->url, false, 1);
  chime_enqueue **opts = calloc((size_t)n, sizeof *opts);
  int r = s && opts ? 0 : -1;
  for (long i = 0; r == 0 && i < n; i++)
    if (chime_enqueue_new(&opts[i]) != 0 ||
        chime_enqueue_set_run_at_ms(opts[i], due_ms) != 0)
      r = -1;
  int64_t t0 = bench_real_ms();
  int stored =
      r == 0 ? chime_scheduler_enqueue_many(s, BENCH_JOB, BENCH_JOB,
                                            (const chime_enqueue *const *)opts,
                                            (size_t)n, NULL, NULL, 0)
             : -1;
  *ret_ms = bench_real_ms() - t0;
  if (stored != n) {
    fprintf(stderr, "chime-bench: enqueue_many stored %d of %ld: %s\n", stored,
            n, s ? chime_scheduler_errmsg(s) : "no scheduler");
    r = -1;
  }
  for (long i = 0; opts && i < n; i++)
    chime_enqueue_free(opts[i]);
  free(opts);
  if (s) {
    chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
    chime_scheduler_free(s);
  }
  return r;
}

/* Waits until bench_results has every run (or the limit); the count, the
 * distinct runs and the last start. */
static int burn_down(MYSQL *db, bench_node *nodes, int n, long runs,
                     int64_t *ret_rows, int64_t *ret_distinct,
                     int64_t *ret_last_ms) {
  int64_t until = bench_store_ms() + BURN_DOWN_LIMIT_MS;
  *ret_rows = 0;
  while (bench_store_ms() < until && *ret_rows < runs) {
    if (bench_nodes_wait_until(nodes, n, bench_store_ms() + 200) < 0 ||
        bench_db_int(db, "SELECT COUNT(*) FROM bench_results", ret_rows) < 0)
      return -1;
  }
  if (bench_nodes_wait_until(nodes, n, bench_store_ms() + 1000) < 0)
    return -1; /* a second run of anything would be there by now */
  if (bench_db_int(db, "SELECT COUNT(*) FROM bench_results", ret_rows) < 0 ||
      bench_db_int(db,
                   "SELECT COUNT(DISTINCT trigger_name) FROM "
                   "bench_results",
                   ret_distinct) < 0 ||
      bench_db_int(db,
                   "SELECT COALESCE(MAX(actual_ms), 0) FROM "
                   "bench_results",
                   ret_last_ms) < 0)
    return -1;
  return 0;
}

int bench_enqueue_main(const bench_opts *o) {
  chime_mysql_url *url = NULL;
  MYSQL *db = bench_db_open(o->url, &url);
  if (!db)
    return 1;
  int status = 1;
  bench_node nodes[BENCH_MAX_NODES] = {0};
  int n = o->nodes;
  int64_t handed_ms = 0, ready_ms = 0, rows = 0, distinct = 0, last_ms = 0;
  long runs = o->enqueue_runs;
  pid_t db_pid = bench_db_server_pid(db);
  bench_db_sample c0, c1;
  bench_db_cost cost;
  if (bench_clock_sync(db) < 0 || bench_setup_store(o, 0, 0, 1000) < 0 ||
      bench_setup_results(db) < 0 || bench_nodes_logdir() < 0)
    goto out;
  int64_t due_ms = bench_store_ms() + 2000 + runs * 1000 / SLOWEST_RUNS_PER_S;
  if (hand_in(o, due_ms, &handed_ms) < 0)
    goto out;
  fprintf(stderr, "chime-bench: %ld runs handed in in %" PRId64 " ms\n", runs,
          handed_ms);
  if (bench_nodes_start(o, nodes, n) < 0)
    goto out;
  ready_ms = bench_store_ms();
  int64_t from_ms = ready_ms > due_ms ? ready_ms : due_ms;
  /* The nodes wait idle for the due instant: the samples start there. */
  if (bench_nodes_wait_until(nodes, n, from_ms) < 0) {
    bench_nodes_stop(nodes, n, 60000);
    goto out;
  }
  int64_t wall0 = bench_real_ms();
  if (bench_db_sample_take(db, db_pid, &c0) < 0 ||
      burn_down(db, nodes, n, runs, &rows, &distinct, &last_ms) < 0 ||
      bench_db_sample_take(db, db_pid, &c1) < 0) {
    bench_nodes_stop(nodes, n, 60000);
    goto out;
  }
  double sampled_s = (double)(bench_real_ms() - wall0) / 1000.0;
  bench_cost_between(&c0, &c1, sampled_s, sampled_s, sysconf(_SC_CLK_TCK),
                     &cost);
  if (bench_nodes_stop(nodes, n, 60000) != 0)
    goto out;
  bench_nodes_logs_done(nodes, n);
  double burn_s = (double)(last_ms - from_ms) / 1000.0;
  printf("chime-bench mode=enqueue runs=%ld handed_in_ms=%" PRId64
         " handed_in_per_s=%.0f\n",
         runs, handed_ms,
         handed_ms > 0 ? (double)runs * 1000.0 / (double)handed_ms : 0.0);
  char cost_keys[512];
  bench_cost_format(&cost, runs, cost_keys, sizeof cost_keys);
  for (char *c = cost_keys; *c; c++) /* this line's keys are space-separated */
    if (*c == '\t')
      *c = ' ';
  printf("chime-bench mode=burn-down runs=%ld nodes=%d workers=%u "
         "burn_down_s=%.2f burn_down_per_s=%.0f dups=%" PRId64 " lost=%" PRId64
         " db_cpu_pct=%.1f%s\n",
         runs, n, o->workers, burn_s, burn_s > 0 ? (double)runs / burn_s : 0.0,
         rows - distinct, runs - distinct, bench_cost_db_cpu_pct(&cost),
         cost_keys);
  status = rows == runs && distinct == runs ? 0 : 2;
out:
  mysql_close(db);
  chime_mysql_url_free(url);
  return status;
}
