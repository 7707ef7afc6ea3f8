/*
 * idle.c: the --idle mode, the cost of a cluster with nothing to do.  One
 * trigger far in the future, one node with chime's defaults (1 s check-in,
 * 30 s idle wait); after it settled, the statements every other session
 * sent the server over the given seconds.  The bench's own status queries
 * are left out by reading the server's count minus this session's count in
 * one statement.
 */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

/* From the node's readiness to the start of the measurement. */
#define SETTLE_MS 3000

static int idle(const bench_opts *o, MYSQL *db, bench_node *node) {
  if (bench_clock_sync(db) < 0)
    return -1;
  const int64_t day = INT64_C(86400000);
  int64_t far = (bench_store_ms() / day + 365) * day;
  if (bench_setup_store(o, 1, far, day) < 0 ||
      bench_nodes_start(o, node, 1) < 0)
    return -1;
  int64_t settled = bench_store_ms() + SETTLE_MS;
  int64_t q0 = 0, q1 = 0, c0 = 0, c1 = 0;
  if (bench_nodes_wait_until(node, 1, settled) < 0 ||
      bench_db_others_questions(db, &q0) < 0 ||
      bench_db_status(db, "Handler_commit", &c0) < 0 ||
      bench_nodes_wait_until(node, 1, settled + o->idle_s * INT64_C(1000)) <
          0 ||
      bench_db_others_questions(db, &q1) < 0 ||
      bench_db_status(db, "Handler_commit", &c1) < 0)
    return -1;
  if (bench_nodes_stop(node, 1, 60000) < 0)
    return -1;
  printf("chime-bench-idle\tseconds=%d\tstatements_per_s=%.2f"
         "\tcommits_per_s=%.2f\n",
         o->idle_s, (double)(q1 - q0) / o->idle_s,
         (double)(c1 - c0) / o->idle_s);
  fflush(stdout);
  return 0;
}

int bench_idle_main(const bench_opts *o) {
  chime_mysql_url *url = NULL;
  MYSQL *db = bench_db_open(o->url, &url);
  if (!db)
    return 1;
  bench_node node = {0};
  int status = 1;
  if (bench_nodes_logdir() == 0) {
    status = idle(o, db, &node) == 0 ? 0 : 1;
    bench_nodes_logs_done(&node, 1);
  }
  mysql_close(db);
  chime_mysql_url_free(url);
  return status;
}
