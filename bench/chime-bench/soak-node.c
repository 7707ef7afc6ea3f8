/*
 * soak-node.c: the node of the soak (--node ID --lat-file PATH): one chime
 * scheduler running the mix soak.c schedules, and a lease holder, until
 * SIGTERM.
 *
 * Every job of the mix has the job type "bench"; the function tells them
 * apart by job name:
 *   bench    simple triggers, the bulk of the rate: records its lateness;
 *   cron     cron triggers firing every second: records its lateness;
 *   forbid   a FORBID job whose two triggers' runs overlap: sleeps 200 ms;
 *   flaky    a job with retries: fails the first attempt of one fire in
 *            four and every attempt of another one in eight (its retries
 *            run out: a failed run in the history);
 *   shard    a sharded job: each shard writes a checkpoint and sleeps
 *            50 ms.
 * Lateness is chime_ctx_get_fire_ms() - chime_ctx_get_scheduled_ms(), the
 * store's clock for both, into a histogram of 1 ms buckets (atomic
 * counters, BENCH_LAT_BUCKETS).  A thread writes the histogram, counts
 * since the process started, to the lateness file every second (a
 * temporary file renamed over it, so the parent never reads half of one):
 * one line "b COUNT" per bucket b that is not empty.
 *
 * The lease holder (a thread): every 100 ms chime_lease_run on one of
 * eight names shared by the cluster (held 10 ms: the nodes contend), and
 * the cluster's "leader" lease (3 s, kept alive by chime's keep-alive
 * thread while held, checked every second; a killed holder's lease runs
 * out and another node takes it).
 *
 * Threads: chime's workers run the jobs; the writer and the lease holder
 * are this file's; the main thread waits for the signal.  The histogram is
 * atomics only; `stopping` is the only other shared state.
 */
#include "bench.h"

#include "chime.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEASE_NAMES 8
#define LEASE_EVERY_MS 100
#define LEADER_LEASE_MS 3000

static atomic_uint_fast64_t late_hist[BENCH_LAT_BUCKETS];
static atomic_bool stopping;

typedef struct soak_node {
  const char *id;
  const char *lat_file;
  chime_scheduler *s;
} soak_node;

static void late(int64_t ms) {
  if (ms < 0)
    ms = 0;
  if (ms >= BENCH_LAT_BUCKETS)
    ms = BENCH_LAT_BUCKETS - 1;
  atomic_fetch_add_explicit(&late_hist[ms], 1, memory_order_relaxed);
}

/* The flaky job's choice for a fire, the same for each of its attempts (a
 * retry keeps the scheduled time, not the trigger's name): soak.c starts
 * its triggers 50 + 200 i ms into the second, so the scheduled time's
 * fifth of a second tells both the trigger and the second apart. */
static int64_t fire_key(const chime_ctx *ctx) {
  return chime_ctx_get_scheduled_ms(ctx) / 200;
}

static void soak_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  const char *name = chime_ctx_get_job_name(ctx);
  if (strcmp(name, BENCH_JOB) == 0 || strcmp(name, "cron") == 0) {
    late(chime_ctx_get_fire_ms(ctx) - chime_ctx_get_scheduled_ms(ctx));
  } else if (strcmp(name, "forbid") == 0) {
    bench_sleep_ms(200);
  } else if (strcmp(name, "flaky") == 0) {
    int64_t k = fire_key(ctx);
    if (k % 8 == 0)
      chime_ctx_fail(ctx, "soak: fails every attempt");
    else if (k % 4 == 1 && chime_ctx_get_attempt(ctx) == 1)
      chime_ctx_fail(ctx, "soak: fails its first attempt");
  } else if (strcmp(name, "shard") == 0) {
    int index = 0;
    chime_ctx_get_shard(ctx, &index, NULL);
    chime_ctx_checkpoint(ctx, &index, sizeof index);
    bench_sleep_ms(50);
  }
}

/* Writes the histogram to the lateness file.  Returns 0 or -1. */
static int write_hist(const soak_node *n) {
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s.tmp", n->lat_file);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return -1;
  for (int b = 0; b < BENCH_LAT_BUCKETS; b++) {
    uint_fast64_t c = atomic_load_explicit(&late_hist[b], memory_order_relaxed);
    if (c)
      fprintf(f, "%d %" PRIuFAST64 "\n", b, c);
  }
  if (fclose(f) != 0)
    return -1;
  return rename(tmp, n->lat_file);
}

static void *writer_main(void *arg) {
  const soak_node *n = arg;
  while (!atomic_load(&stopping)) {
    bench_sleep_ms(1000);
    if (write_hist(n) < 0)
      fprintf(stderr, "%s: cannot write %s\n", n->id, n->lat_file);
  }
  return NULL;
}

static void held(chime_lease *lease, void *user_data) {
  (void)lease;
  (void)user_data;
  bench_sleep_ms(10);
}

static void *leases_main(void *arg) {
  const soak_node *n = arg;
  chime_lease *leader = NULL;
  int64_t next_leader_ms = 0;
  for (unsigned k = 0; !atomic_load(&stopping); k++) {
    char name[32];
    snprintf(name, sizeof name, "soak-%u", k % LEASE_NAMES);
    int r = chime_lease_run(n->s, name, 5000, 0, held, NULL);
    if (r != 0 && r != CHIME_EBUSY)
      fprintf(stderr, "%s: lease %s: %s\n", n->id, name, chime_strerror(r));
    if (bench_real_ms() >= next_leader_ms) {
      next_leader_ms = bench_real_ms() + 1000;
      if (leader && !chime_lease_is_held(leader)) {
        chime_lease_free(leader);
        leader = NULL;
      }
      if (!leader &&
          chime_lease_acquire(n->s, "soak-leader", LEADER_LEASE_MS, 0, 0,
                              &leader) == 0 &&
          chime_lease_set_keep_alive(leader, true) != 0) {
        chime_lease_free(leader);
        leader = NULL;
      }
    }
    bench_sleep_ms(LEASE_EVERY_MS);
  }
  chime_lease_free(leader);
  return NULL;
}

int bench_soak_node_main(const bench_opts *o) {
  sigset_t stop;
  if (bench_node_prepare(o->node_id, &stop) < 0)
    return 1;
  soak_node n = {.id = o->node_id, .lat_file = o->lat_file};
  n.s = bench_node_start(o, n.id, o->url, NULL, soak_job, &n);
  if (!n.s)
    return 1;
  pthread_t writer, leases;
  if (pthread_create(&writer, NULL, writer_main, &n) != 0 ||
      pthread_create(&leases, NULL, leases_main, &n) != 0) {
    fprintf(stderr, "%s: cannot start a thread\n", n.id);
    return 1;
  }
  bench_node_ready_wait(n.id, &stop);
  atomic_store(&stopping, true);
  pthread_join(leases, NULL);
  pthread_join(writer, NULL);
  chime_scheduler_shutdown(n.s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(n.s);
  mysql_library_end();
  return 0;
}
