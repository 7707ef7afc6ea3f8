/*
 * leases.c: the --leases mode, the cost of named leases (chime.h's
 * chime_lease_*).  CLIENTS threads, each with a scheduler of its own that
 * is never started (a node that only wants locks), loop acquire + release
 * on a lease name of their own for the window, so that every attempt
 * succeeds and the figure is the store's path, not the contention.  It
 * prints the pairs per second and the statements and commits the server
 * received per pair (Questions of every other session, and
 * Handler_commit), after one acquisition and one release alone to count
 * the statements of each.
 */
#include "bench.h"
#include "chime.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT_MOST_MS 60000

typedef struct lease_client {
  chime_scheduler *s;
  char name[32];
  int64_t until_ms; /* store time at which to stop */
  long pairs;
  int error; /* the first failure, or 0 */
} lease_client;

static atomic_bool start_flag;

static void *client_main(void *arg) {
  lease_client *c = arg;
  while (!atomic_load(&start_flag))
    bench_sleep_ms(1);
  while (bench_store_ms() < c->until_ms) {
    chime_lease *l = NULL;
    int r = chime_lease_acquire(c->s, c->name, AT_MOST_MS, 0, 0, &l);
    if (r == 0)
      r = chime_lease_release(l);
    chime_lease_free(l);
    if (r != 0) {
      c->error = r;
      break;
    }
    c->pairs++;
  }
  return NULL;
}

static chime_scheduler *client_sched(const char *url, int i) {
  char full[2048], id[32];
  snprintf(full, sizeof full, "%s%cauto_create=1", url,
           strchr(url, '?') ? '&' : '?');
  snprintf(id, sizeof id, "bench-lease-%d", i);
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  if (chime_config_new(&cfg) == 0 &&
      chime_config_set_store_url(cfg, full) == 0 &&
      chime_config_set_scheduler_name(cfg, BENCH_SCHEDULER_NAME) == 0 &&
      chime_config_set_instance_id(cfg, id) == 0 &&
      chime_scheduler_new(cfg, &s, err, sizeof err) != 0)
    fprintf(stderr, "chime-bench: scheduler: %s\n", err);
  chime_config_free(cfg);
  return s;
}

/* Statements and commits of one acquisition, then of one release, by
 * client c alone.  Returns 0 or -1. */
static int count_one(MYSQL *db, lease_client *c, int64_t *ret_acquire,
                     int64_t *ret_release) {
  int64_t q0, q1, q2;
  chime_lease *l = NULL;
  if (bench_db_others_questions(db, &q0) < 0 ||
      chime_lease_acquire(c->s, c->name, AT_MOST_MS, 0, 0, &l) != 0 ||
      bench_db_others_questions(db, &q1) < 0 || chime_lease_release(l) != 0 ||
      bench_db_others_questions(db, &q2) < 0) {
    chime_lease_free(l);
    return -1;
  }
  chime_lease_free(l);
  *ret_acquire = q1 - q0;
  *ret_release = q2 - q1;
  return 0;
}

static int run(const bench_opts *o, MYSQL *db, lease_client *cs, int n) {
  for (int i = 0; i < n; i++) {
    snprintf(cs[i].name, sizeof cs[i].name, "bench-%d", i);
    if (!(cs[i].s = client_sched(o->url, i)))
      return -1;
  }
  int64_t st_acq = 0, st_rel = 0;
  if (bench_clock_sync(db) < 0 || count_one(db, &cs[0], &st_acq, &st_rel) < 0)
    return -1;
  int64_t q0, q1, c0, c1;
  pthread_t t[BENCH_MAX_NODES];
  int64_t start = bench_store_ms() + 200;
  for (int i = 0; i < n; i++) {
    cs[i].until_ms = start + o->seconds * INT64_C(1000);
    if (pthread_create(&t[i], NULL, client_main, &cs[i]) != 0)
      return -1;
  }
  bench_sleep_ms(start - bench_store_ms());
  int r = bench_db_others_questions(db, &q0) < 0 ||
                  bench_db_status(db, "Handler_commit", &c0) < 0
              ? -1
              : 0;
  atomic_store(&start_flag, true);
  long pairs = 0;
  for (int i = 0; i < n; i++) {
    pthread_join(t[i], NULL);
    pairs += cs[i].pairs;
    if (cs[i].error) {
      fprintf(stderr, "chime-bench: client %d: %s\n", i,
              chime_strerror(cs[i].error));
      r = -1;
    }
  }
  if (r < 0 || bench_db_others_questions(db, &q1) < 0 ||
      bench_db_status(db, "Handler_commit", &c1) < 0 || pairs == 0)
    return -1;
  printf("chime-bench-leases\tclients=%d\tseconds=%d\tpairs=%ld"
         "\tpairs_per_s=%.1f\tstatements_per_acquire=%" PRId64
         "\tstatements_per_release=%" PRId64
         "\tstatements_per_pair=%.2f\tcommits_per_pair=%.2f\n",
         n, o->seconds, pairs, (double)pairs / o->seconds, st_acq, st_rel,
         (double)(q1 - q0) / (double)pairs, (double)(c1 - c0) / (double)pairs);
  fflush(stdout);
  return 0;
}

int bench_leases_main(const bench_opts *o) {
  chime_mysql_url *url = NULL;
  MYSQL *db = bench_db_open(o->url, &url);
  if (!db)
    return 1;
  int n = o->lease_clients;
  lease_client *cs = calloc((size_t)n, sizeof *cs);
  int status = cs && run(o, db, cs, n) == 0 ? 0 : 1;
  for (int i = 0; cs && i < n; i++)
    chime_scheduler_free(cs[i].s);
  free(cs);
  mysql_close(db);
  chime_mysql_url_free(url);
  return status;
}
