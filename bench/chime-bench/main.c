/*
 * main.c: chime-bench, the cluster benchmark: N node processes on one
 * MySQL/MariaDB store, M simple triggers, and what came of them.  See
 * options.c for the command line and run.c for the course of a run.
 */
#include "bench.h"

#include <stdio.h>

int main(int argc, char **argv) {
  bench_opts o;
  int r = bench_opts_parse(argc, argv, &o);
  if (r != 0)
    return r > 0 ? 0 : 1;
  if (o.node_id)
    return o.lat_file ? bench_soak_node_main(&o) : bench_node_main(&o);
  /* Before any thread starts (the set-up schedules from several). */
  if (mysql_library_init(0, NULL, NULL) != 0) {
    fprintf(stderr, "chime-bench: mysql_library_init failed\n");
    return 1;
  }
  bench_nodes_guard();
  r = o.soak_minutes > 0    ? bench_soak_main(&o)
      : o.lease_clients > 0 ? bench_leases_main(&o)
      : o.enqueue_runs > 0  ? bench_enqueue_main(&o)
      : o.idle_s > 0        ? bench_idle_main(&o)
                            : bench_run_main(&o);
  mysql_library_end();
  return r;
}
