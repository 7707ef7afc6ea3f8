/*
 * options.c: chime-bench's command line, and the defaults that follow from
 * the load (the worker count of a run whose jobs take time).
 */
#include "bench.h"
#include "chime.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: chime-bench --url URL [--nodes N] [--triggers M] "
    "[--interval-ms I]\n"
    "                   [--seconds S] [--workers W] [--batch B] "
    "[--work-ms J]\n"
    "                   [--kill-one-at SEC] [--warmup-s X] [--burst] "
    "[--spread]\n"
    "                   [--limit N] [--exactly-once[-tx]] [--local-queue Q]\n"
    "       chime-bench --url URL --idle SECONDS\n"
    "       chime-bench --url URL --leases CLIENTS [--seconds S]\n"
    "       chime-bench --url URL --enqueue RUNS [--nodes N]\n"
    "       chime-bench --url URL --soak MINUTES [--rate R] [--retention-ms "
    "T]\n"
    "                   [--nodes N] [--kill-every SEC] [--sample-s P]\n"
    "                   [--max-p99-ms L] [--workers W]\n"
    "       chime-bench --help | --version\n"
    "\n"
    "Runs N chime nodes on the store URL, M simple triggers each firing every\n"
    "I ms, and measures S seconds of fires after X seconds of warm-up\n"
    "(defaults: N=1 M=100 I=1000 S=10 X=3; W: chime's 32, or enough workers\n"
    "for the load when jobs take J ms; B: chime's default, W + Q; Q: chime's\n"
    "local queue, default 256, 0 to claim for free workers only).  Prints one\n"
    "line of key=value pairs.  --kill-one-at SEC SIGKILLs the last node SEC\n"
    "seconds into the window (then J defaults to 2000 ms and B to M/N) and\n"
    "measures the recovery.  The triggers are spread evenly over the\n"
    "interval (a steady rate); --burst puts them all on the same instants.\n"
    "--spread, for a URL with several hosts (a Galera cluster), starts node\n"
    "k on the k-th member (the list rotated) instead of all on the first.\n"
    "--limit N sets a concurrency limit of N on the bench's job type\n"
    "(docs/queue.md, \"Limits\"): each run records its start and end, and\n"
    "the line adds the most runs at once in any millisecond (most_running),\n"
    "which must not exceed N (exit 2).\n"
    "--exactly-once: the job writes its row in its fire's completion\n"
    "transaction, one row a run, instead of through the node's batching\n"
    "writer: it gives its INSERT to the completion (chime-mysql.h's\n"
    "chime_ctx_complete_with), whose batches of fires share a COMMIT.\n"
    "--exactly-once-tx: the same row in a transaction of the job's own\n"
    "(chime_mysql_tx_begin, the INSERT, the COMMIT that completes the fire).\n"
    "--idle measures the statements per second of one idle node.\n"
    "--leases runs CLIENTS threads, each a scheduler never started, doing\n"
    "named-lease acquire + release pairs for S seconds (default 10).\n"
    "--enqueue hands in RUNS runs of the bench job with\n"
    "chime_scheduler_enqueue_many (runs/s handed in), all due at one instant\n"
    "after that, then starts N nodes (default 3) and measures how fast they\n"
    "burn the runs down (runs/s from the due instant to the last run) and\n"
    "what the database paid a run (db_cpu_pct and the *_per_fire keys, a run\n"
    "a fire), from that instant to a second after the last run.\n"
    "--soak runs N nodes (default 3, W=64) for MINUTES at R fires/s (default\n"
    "2000) of a mix (simple and cron triggers, a FORBID job, a job with\n"
    "retries, a sharded job, leases) with history_retention_ms=T (default\n"
    "60000), SIGKILLs one node every SEC s (default 120, 0: never) and starts\n"
    "it again under its id; every P s (default 60) it prints each table's\n"
    "rows and bytes, each node's RSS, threads, connections, the p99\n"
    "lateness and the database's CPU.  It fails (exit 3, a FAIL line) when\n"
    "a metric grows: the samples fall in thirds (the first, the warm-up, is\n"
    "not judged); a metric grows when every sample of the last third\n"
    "exceeds every sample of the middle third by more than its slack: 100\n"
    "rows and 8 MiB (each table), 4 MiB of RSS and 1 thread (each node\n"
    "process, from 30 s after its start), 100 ms (p99 lateness), 20 points\n"
    "(the database's CPU); when a node's connections or sockets exceed its\n"
    "store's (a pool of W + 3, at most 64, and a heartbeat); and when a\n"
    "sample after the first third whose period saw no kill has a p99\n"
    "lateness over L ms (default 1000).\n"
    "Exit status: 0 the run worked, 1 set-up error, 2 duplicate or lost "
    "fires,\n3 the soak saw a metric grow.\n";

/* Reads a whole decimal number in [min, max]. */
static int number(const char *name, const char *text, long long min,
                  long long max, long long *ret) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
    fprintf(stderr,
            "chime-bench: --%s wants a number from %lld to %lld, "
            "got '%s'\n",
            name, min, max, text);
    return -1;
  }
  *ret = v;
  return 0;
}

/* The workers a node needs so that jobs of work_ms never leave a fire
 * waiting: the fires in flight at the target rate, spread over the nodes
 * that will be left (one fewer in kill mode), plus a quarter. */
static unsigned workers_for_load(const bench_opts *o) {
  if (o->work_ms <= 0)
    return 32; /* chime's default */
  int nodes = o->kill_at_s >= 0 && o->nodes > 1 ? o->nodes - 1 : o->nodes;
  double in_flight = (double)o->triggers * (double)o->work_ms /
                     (double)o->interval_ms / (double)nodes;
  double w = in_flight * 1.25 + 1;
  if (w < 4)
    w = 4;
  return w > 1024 ? 1024 : (unsigned)w;
}

enum {
  OPT_URL = 1000,
  OPT_NODES,
  OPT_TRIGGERS,
  OPT_INTERVAL,
  OPT_SECONDS,
  OPT_WORKERS,
  OPT_BATCH,
  OPT_WORK,
  OPT_KILL,
  OPT_WARMUP,
  OPT_IDLE,
  OPT_BURST,
  OPT_LEASES,
  OPT_ENQUEUE,
  OPT_SPREAD,
  OPT_SOAK,
  OPT_RATE,
  OPT_RETENTION,
  OPT_KILL_EVERY,
  OPT_SAMPLE,
  OPT_MAX_P99,
  OPT_LIMIT,
  OPT_EXACTLY_ONCE,
  OPT_EXACTLY_ONCE_TX,
  OPT_LOCAL_QUEUE,
  OPT_LAT_FILE,
  OPT_NODE,
  OPT_NODE_IDLE,
  OPT_HELP,
  OPT_VERSION
};

static const struct option long_opts[] = {
    {"url", required_argument, NULL, OPT_URL},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"triggers", required_argument, NULL, OPT_TRIGGERS},
    {"interval-ms", required_argument, NULL, OPT_INTERVAL},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"workers", required_argument, NULL, OPT_WORKERS},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"work-ms", required_argument, NULL, OPT_WORK},
    {"kill-one-at", required_argument, NULL, OPT_KILL},
    {"warmup-s", required_argument, NULL, OPT_WARMUP},
    {"idle", required_argument, NULL, OPT_IDLE},
    {"burst", no_argument, NULL, OPT_BURST},
    {"leases", required_argument, NULL, OPT_LEASES},
    {"enqueue", required_argument, NULL, OPT_ENQUEUE},
    {"spread", no_argument, NULL, OPT_SPREAD},
    {"soak", required_argument, NULL, OPT_SOAK},
    {"rate", required_argument, NULL, OPT_RATE},
    {"retention-ms", required_argument, NULL, OPT_RETENTION},
    {"kill-every", required_argument, NULL, OPT_KILL_EVERY},
    {"sample-s", required_argument, NULL, OPT_SAMPLE},
    {"max-p99-ms", required_argument, NULL, OPT_MAX_P99},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"exactly-once", no_argument, NULL, OPT_EXACTLY_ONCE},
    {"exactly-once-tx", no_argument, NULL, OPT_EXACTLY_ONCE_TX},
    {"local-queue", required_argument, NULL, OPT_LOCAL_QUEUE},
    /* Hidden: how the parent starts a node. */
    {"node", required_argument, NULL, OPT_NODE},
    {"node-idle", no_argument, NULL, OPT_NODE_IDLE},
    {"lat-file", required_argument, NULL, OPT_LAT_FILE},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0}};

/* Applies one option.  Returns 0, 1 (help printed) or -1. */
static int apply(bench_opts *o, int c, const char *arg) {
  long long v = 0;
  const char *name = NULL;
  for (const struct option *lo = long_opts; lo->name; lo++)
    if (lo->val == c)
      name = lo->name;
  switch (c) {
  case OPT_URL:
    o->url = arg;
    return 0;
  case OPT_NODE:
    o->node_id = arg;
    return 0;
  case OPT_NODE_IDLE:
    o->node_idle = true;
    return 0;
  case OPT_LAT_FILE:
    o->lat_file = arg;
    return 0;
  case OPT_BURST:
    o->burst = true;
    return 0;
  case OPT_SPREAD:
    o->spread = true;
    return 0;
  case OPT_EXACTLY_ONCE:
    o->exactly_once = EXACTLY_WITH;
    return 0;
  case OPT_EXACTLY_ONCE_TX:
    o->exactly_once = EXACTLY_TX;
    return 0;
  case OPT_HELP:
    fputs(usage_text, stdout);
    return 1;
  case OPT_VERSION:
    printf("chime-bench %s (libchime %s)\n", CHIME_VERSION, chime_version());
    return 1;
  case OPT_NODES:
    if (number(name, arg, 1, BENCH_MAX_NODES, &v) < 0)
      return -1;
    o->nodes = (int)v;
    o->nodes_given = true;
    return 0;
  case OPT_TRIGGERS:
    if (number(name, arg, 1, 10000000, &v) < 0)
      return -1;
    o->triggers = (long)v;
    return 0;
  case OPT_INTERVAL:
    if (number(name, arg, 1, 86400000, &v) < 0)
      return -1;
    o->interval_ms = v;
    return 0;
  case OPT_SECONDS:
    if (number(name, arg, 1, 86400, &v) < 0)
      return -1;
    o->seconds = (int)v;
    return 0;
  case OPT_WORKERS:
    if (number(name, arg, 1, 1024, &v) < 0)
      return -1;
    o->workers = (unsigned)v;
    return 0;
  case OPT_BATCH:
    if (number(name, arg, 1, 1000, &v) < 0)
      return -1;
    o->batch = (unsigned)v;
    return 0;
  case OPT_LOCAL_QUEUE:
    if (number(name, arg, 0, 4096, &v) < 0)
      return -1;
    o->local_queue = (int)v;
    return 0;
  case OPT_WORK:
    if (number(name, arg, 0, 3600000, &v) < 0)
      return -1;
    o->work_ms = v;
    return 0;
  case OPT_KILL:
    if (number(name, arg, 0, 86400, &v) < 0)
      return -1;
    o->kill_at_s = (int)v;
    return 0;
  case OPT_WARMUP:
    if (number(name, arg, 0, 3600, &v) < 0)
      return -1;
    o->warmup_s = (int)v;
    return 0;
  case OPT_IDLE:
    if (number(name, arg, 1, 86400, &v) < 0)
      return -1;
    o->idle_s = (int)v;
    return 0;
  case OPT_LEASES:
    if (number(name, arg, 1, BENCH_MAX_NODES, &v) < 0)
      return -1;
    o->lease_clients = (int)v;
    return 0;
  case OPT_ENQUEUE:
    if (number(name, arg, 1, 10000000, &v) < 0)
      return -1;
    o->enqueue_runs = (long)v;
    return 0;
  case OPT_SOAK:
    if (number(name, arg, 1, 100000, &v) < 0)
      return -1;
    o->soak_minutes = (int)v;
    return 0;
  case OPT_RATE:
    if (number(name, arg, 20, 1000000, &v) < 0)
      return -1;
    o->rate = (long)v;
    return 0;
  case OPT_RETENTION:
    if (number(name, arg, 0, INT64_C(86400000) * 365, &v) < 0)
      return -1;
    o->retention_ms = v;
    return 0;
  case OPT_KILL_EVERY:
    if (number(name, arg, 0, 86400, &v) < 0)
      return -1;
    o->kill_every_s = (int)v;
    return 0;
  case OPT_SAMPLE:
    if (number(name, arg, 5, 3600, &v) < 0)
      return -1;
    o->sample_s = (int)v;
    return 0;
  case OPT_LIMIT:
    if (number(name, arg, 1, 100000, &v) < 0)
      return -1;
    o->limit = (int)v;
    return 0;
  case OPT_MAX_P99:
    if (number(name, arg, 1, 3600000, &v) < 0)
      return -1;
    o->max_p99_ms = v;
    return 0;
  default:
    fputs(usage_text, stderr);
    return -1;
  }
}

int bench_opts_parse(int argc, char **argv, bench_opts *o) {
  *o = (bench_opts){.nodes = 1,
                    .triggers = 100,
                    .interval_ms = 1000,
                    .seconds = 10,
                    .work_ms = -1,
                    .kill_at_s = -1,
                    .local_queue = -1,
                    .warmup_s = 3,
                    .idle_s = -1,
                    .rate = 2000,
                    .retention_ms = 60000,
                    .kill_every_s = 120,
                    .sample_s = 60,
                    .max_p99_ms = 1000};
  int c;
  opterr = 1;
  while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
    int r = apply(o, c, optarg);
    if (r != 0)
      return r;
  }
  /* A node gets the URL from its parent through the environment. */
  if (o->node_id && !o->url)
    o->url = getenv(BENCH_URL_ENV);
  if (optind < argc) {
    fprintf(stderr, "chime-bench: unexpected argument '%s'\n", argv[optind]);
    return -1;
  }
  if (!o->url) {
    fputs(usage_text, stderr);
    return -1;
  }
  if (o->kill_at_s >= 0) {
    if (o->nodes < 2) {
      fprintf(stderr, "chime-bench: --kill-one-at needs --nodes 2 or more\n");
      return -1;
    }
    if (o->kill_at_s * 1000 >= (int64_t)o->seconds * 1000) {
      fprintf(stderr, "chime-bench: --kill-one-at must fall inside the "
                      "window of --seconds\n");
      return -1;
    }
  }
  if (o->enqueue_runs > 0 && !o->nodes_given)
    o->nodes = 3;
  /* The analysis maps a recovered run to its trigger through the original
   * run's row, which an interrupted transaction never wrote; --limit
   * records a run's end, after the job's work, outside the transaction. */
  if (o->exactly_once && (o->kill_at_s >= 0 || o->limit > 0)) {
    fprintf(stderr, "chime-bench: --exactly-once[-tx] goes with neither "
                    "--kill-one-at nor --limit\n");
    return -1;
  }
  if (o->soak_minutes > 0) {
    if (!o->nodes_given)
      o->nodes = 3;
    if (o->kill_every_s > 0 && o->nodes < 2) {
      fprintf(stderr, "chime-bench: --soak kills a node: it needs --nodes 2 "
                      "or more (or --kill-every 0)\n");
      return -1;
    }
    if (o->workers == 0)
      o->workers = 64;
  }
  if (o->work_ms < 0)
    o->work_ms = o->kill_at_s >= 0 ? 2000 : 0;
  if (o->workers == 0)
    o->workers = workers_for_load(o);
  /* chime's default batch is the worker count: with the many workers of
   * the kill mode, whichever node wakes first would claim a whole round of
   * fires and the node killed might well be idle.  A node's share of a
   * round keeps every node busy. */
  if (o->batch == 0 && o->kill_at_s >= 0) {
    long share = (o->triggers + o->nodes - 1) / o->nodes;
    o->batch = share > 1000 ? 1000 : (unsigned)share;
  }
  return 0;
}

int64_t bench_offset_ms(const bench_opts *o, long i) {
  return o->burst ? 0 : (int64_t)i * o->interval_ms / o->triggers;
}
