/*
 * setup.c: what exists before the nodes start: a fresh chime schema holding
 * the bench job and its triggers, and an empty bench_results table.
 *
 * chime has no bulk scheduling call, so the triggers are scheduled one
 * chime_scheduler_schedule() at a time (one transaction, one commit each),
 * from several threads at once so that the server can group the commits.
 * The time it takes is printed to stderr.
 */
#include "bench.h"

#include "chime.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Threads scheduling at once; each holds one store connection. */
#define SCHEDULING_THREADS 8

typedef struct scheduling {
  const bench_opts *o;
  chime_scheduler *sched;
  long count;
  int64_t start_ms, interval_ms;
  int thread; /* this thread schedules triggers thread, thread + N, ... */
  int result;
  char error[256];
} scheduling;

/* A job function for the set-up scheduler, which never starts. */
static void never_runs(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
}

static int schedule_one(chime_scheduler *s, long i, int64_t start_ms,
                        int64_t interval_ms) {
  char name[32];
  snprintf(name, sizeof name, "t%ld", i);
  chime_trigger *t = NULL;
  int r = chime_trigger_simple_new(BENCH_JOB, name, interval_ms,
                                   CHIME_REPEAT_INDEFINITELY, &t, NULL, 0);
  if (r == 0)
    r = chime_trigger_set_job(t, BENCH_JOB, BENCH_JOB);
  if (r == 0)
    r = chime_trigger_set_start_ms(t, start_ms);
  if (r == 0)
    r = chime_scheduler_schedule(s, NULL, t, 0, NULL);
  chime_trigger_free(t);
  return r;
}

static void *scheduling_thread(void *arg) {
  scheduling *w = arg;
  for (long i = w->thread; i < w->count && !bench_interrupted;
       i += SCHEDULING_THREADS) {
    int r = schedule_one(w->sched, i, w->start_ms + bench_offset_ms(w->o, i),
                         w->interval_ms);
    if (r < 0) {
      w->result = r;
      snprintf(w->error, sizeof w->error, "scheduling t%ld: %s (%s)", i,
               chime_scheduler_errmsg(w->sched), chime_err_name(r));
      break;
    }
  }
  return NULL;
}

/* Schedules the triggers from SCHEDULING_THREADS threads.  Returns 0 or
 * -1. */
static int schedule_all(const bench_opts *o, chime_scheduler *s, long count,
                        int64_t start_ms, int64_t interval_ms) {
  scheduling w[SCHEDULING_THREADS];
  pthread_t tid[SCHEDULING_THREADS];
  int started = 0, status = 0;
  for (int k = 0; k < SCHEDULING_THREADS; k++) {
    w[k] = (scheduling){.o = o,
                        .sched = s,
                        .count = count,
                        .start_ms = start_ms,
                        .interval_ms = interval_ms,
                        .thread = k};
    if (pthread_create(&tid[k], NULL, scheduling_thread, &w[k]) != 0) {
      fprintf(stderr, "chime-bench: cannot start a scheduling thread\n");
      status = -1;
      break;
    }
    started++;
  }
  for (int k = 0; k < started; k++) {
    pthread_join(tid[k], NULL);
    if (w[k].result < 0) {
      fprintf(stderr, "chime-bench: %s\n", w[k].error);
      status = -1;
    }
  }
  if (bench_interrupted)
    status = -1;
  return status;
}

chime_scheduler *bench_setup_open(const char *url, bool fresh_rows,
                                  unsigned threads) {
  size_t len = strlen(url) + 48;
  char *fresh = malloc(len);
  if (!fresh)
    return NULL;
  /* migrate=1: a throwaway database kept from an older build holds an
   * older schema, which the bench has no reason to refuse. */
  snprintf(fresh, len, "%s%cauto_create=1&migrate=1%s", url,
           strchr(url, '?') ? '&' : '?', fresh_rows ? "&clear=1" : "");
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  int r = chime_config_new(&cfg);
  if (r == 0)
    r = chime_config_set_store_url(cfg, fresh);
  if (r == 0)
    r = chime_config_set_scheduler_name(cfg, BENCH_SCHEDULER_NAME);
  /* The store keeps a connection per worker (plus two): one for each
   * scheduling thread. */
  if (r == 0)
    r = chime_config_set_workers(cfg, threads);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  free(fresh);
  if (r < 0) {
    fprintf(stderr, "chime-bench: opening the store: %s (%s)\n",
            err[0] ? err : chime_strerror(r), chime_err_name(r));
    return NULL;
  }
  return s;
}

int bench_setup_store(const bench_opts *o, long count, int64_t start_ms,
                      int64_t interval_ms) {
  chime_scheduler *s = bench_setup_open(o->url, true, SCHEDULING_THREADS);
  if (!s)
    return -1;
  chime_job *job = NULL;
  int r =
      chime_scheduler_register_job_type(s, BENCH_JOB, never_runs, NULL, NULL);
  if (r == 0)
    r = chime_job_new(BENCH_JOB, BENCH_JOB, BENCH_JOB, &job, NULL, 0);
  if (r == 0)
    r = chime_job_set_durable(job, true);
  /* Only the kill mode needs it, but it costs nothing when no node dies,
   * and every mode then runs the same job. */
  if (r == 0)
    r = chime_job_set_requests_recovery(job, true);
  if (r == 0)
    r = chime_scheduler_add_job(s, job, false);
  /* Before any node starts: a limit applies on every node at once. */
  if (r == 0 && o->limit > 0)
    r = chime_scheduler_set_limit(s, BENCH_JOB, o->limit, 0, 0, 0);
  chime_job_free(job);
  if (r < 0) {
    fprintf(stderr, "chime-bench: adding the job: %s (%s)\n",
            chime_scheduler_errmsg(s), chime_err_name(r));
    chime_scheduler_free(s);
    return -1;
  }
  int64_t began = bench_real_ms();
  int status = schedule_all(o, s, count, start_ms, interval_ms);
  int64_t took = bench_real_ms() - began;
  if (status == 0)
    fprintf(stderr,
            "chime-bench: scheduled %ld triggers in %" PRId64
            " ms (%.0f/s, %d threads, one chime_scheduler_schedule each)\n",
            count, took, took > 0 ? (double)count * 1000.0 / (double)took : 0.0,
            SCHEDULING_THREADS);
  chime_scheduler_free(s);
  return status;
}

int bench_setup_results(MYSQL *db) {
  /* No unique key on purpose: a duplicate run must show up as a second
   * row, not as an error in the job. */
  if (bench_db_exec(db, "dropping bench_results",
                    "DROP TABLE IF EXISTS bench_results") < 0)
    return -1;
  return bench_db_exec(db, "creating bench_results",
                       "CREATE TABLE bench_results ("
                       " id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                       " trigger_name VARCHAR(190) NOT NULL,"
                       " scheduled_ms BIGINT NOT NULL,"
                       " actual_ms BIGINT NOT NULL,"
                       " node VARCHAR(32) NOT NULL,"
                       " fire_id BIGINT NOT NULL,"
                       " recovering TINYINT NOT NULL,"
                       " run_start_ms BIGINT NOT NULL DEFAULT 0,"
                       " run_end_ms BIGINT NOT NULL DEFAULT 0"
                       ") ENGINE=InnoDB");
}
