/*
 * limit.c: chime-bench --limit's check (docs/queue.md, "Limits"): the most
 * runs of the bench's job type at once in any millisecond, from the
 * starts and ends the runs recorded (bench_results.run_start_ms and
 * run_end_ms, this host's clock), as the cluster checker checks doubles.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct edge {
  int64_t at;
  int delta; /* +1 a start, -1 an end */
} edge;

/* By time; at one time the ends first: a run [start, end) frees its slot
 * at end, when the next may start. */
static int by_time(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  return x->delta - y->delta;
}

int64_t bench_most_running(MYSQL *db) {
  static const char sql[] = "SELECT run_start_ms, run_end_ms FROM "
                            "bench_results WHERE run_end_ms > 0";
  MYSQL_RES *res = NULL;
  if (mysql_real_query(db, sql, sizeof sql - 1) != 0 ||
      !(res = mysql_store_result(db))) {
    fprintf(stderr, "chime-bench: reading the runs: %s\n", mysql_error(db));
    return -1;
  }
  size_t n = (size_t)mysql_num_rows(res);
  edge *e = calloc(2 * n + 1, sizeof *e);
  size_t k = 0;
  MYSQL_ROW r;
  while (e && (r = mysql_fetch_row(res)) && r[0] && r[1]) {
    e[k++] = (edge){strtoll(r[0], NULL, 10), +1};
    e[k++] = (edge){strtoll(r[1], NULL, 10), -1};
  }
  mysql_free_result(res);
  if (!e) {
    fprintf(stderr, "chime-bench: out of memory\n");
    return -1;
  }
  qsort(e, k, sizeof *e, by_time);
  int64_t now = 0, most = 0;
  for (size_t i = 0; i < k; i++) {
    now += e[i].delta;
    if (now > most)
      most = now;
  }
  free(e);
  return most;
}
