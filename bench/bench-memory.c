/*
 * bench-memory.c: the engine's own speed on the memory store, through the
 * public API only.  Two figures, one line each:
 *   1. throughput: 100,000 one-shot simple triggers all due at once, two
 *      workers, a trivial job; fires per second from start until the last
 *      run returned;
 *   2. lateness: 1,000 triggers firing every second (all at the same
 *      instants) on two workers for about 10 s; p50, p99 and max of
 *      (run start - scheduled time).
 * Usage: chime-bench-memory [triggers-for-1 [seconds-for-2]]
 *
 * Threads and locks: the job runs on chime's workers and counts under
 * bench.mu, the only lock; the main thread waits on bench.cv under it.
 */
#include "chime.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  long runs;
  long target;
  int64_t *late; /* lateness samples (figure 2) */
  long nlate, cap;
} bench;

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void count_job(chime_ctx *ctx, void *user_data) {
  bench *b = user_data;
  int64_t late = chime_ctx_get_fire_ms(ctx) - chime_ctx_get_scheduled_ms(ctx);
  pthread_mutex_lock(&b->mu);
  if (b->late && b->nlate < b->cap)
    b->late[b->nlate++] = late;
  if (++b->runs >= b->target)
    pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

/* s: the scheduler the failed call was on (its detail is printed), or
 * NULL. */
static void die(chime_scheduler *s, const char *what, int r) {
  fprintf(stderr, "chime-bench-memory: %s: %s (%s)\n", what, chime_strerror(r),
          chime_scheduler_errmsg(s));
  exit(1);
}

static chime_scheduler *make(bench *b) {
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[256] = "";
  int r = chime_config_new(&cfg);
  if (r == 0)
    r = chime_config_set_workers(cfg, 2);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r < 0)
    die(NULL, err, r);
  chime_job *job = NULL;
  r = chime_scheduler_register_job_type(s, "count", count_job, b, NULL);
  if (r == 0)
    r = chime_job_new("bench", "count", "count", &job, NULL, 0);
  if (r == 0)
    r = chime_job_set_durable(job, true);
  if (r == 0)
    r = chime_scheduler_add_job(s, job, false);
  chime_job_free(job);
  if (r < 0)
    die(s, "setting up", r);
  return s;
}

/* Schedules n simple triggers for bench.count. */
static void schedule_many(chime_scheduler *s, long n, int64_t start_ms,
                          int64_t interval_ms, int32_t repeat) {
  for (long i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "t%06ld", i);
    chime_trigger *t = NULL;
    int r = chime_trigger_simple_new("bench", name, interval_ms, repeat, &t,
                                     NULL, 0);
    if (r == 0)
      r = chime_trigger_set_job(t, "bench", "count");
    if (r == 0 && start_ms)
      r = chime_trigger_set_start_ms(t, start_ms);
    if (r == 0)
      r = chime_scheduler_schedule(s, NULL, t, 0, NULL);
    chime_trigger_free(t);
    if (r < 0)
      die(s, "scheduling", r);
  }
}

static void throughput(long n) {
  bench b = {.target = n};
  pthread_mutex_init(&b.mu, NULL);
  pthread_cond_init(&b.cv, NULL);
  chime_scheduler *s = make(&b);
  schedule_many(s, n, 0, 0, 0);
  double t0 = mono_s();
  int r = chime_scheduler_start(s);
  if (r < 0)
    die(s, "start", r);
  pthread_mutex_lock(&b.mu);
  while (b.runs < b.target)
    pthread_cond_wait(&b.cv, &b.mu);
  pthread_mutex_unlock(&b.mu);
  double dt = mono_s() - t0;
  chime_scheduler_free(s);
  printf("throughput: %ld simple triggers all due, 2 workers: %.0f fires/s "
         "(%.2f s)\n",
         n, (double)n / dt, dt);
  pthread_cond_destroy(&b.cv);
  pthread_mutex_destroy(&b.mu);
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void lateness(long ntriggers, int seconds) {
  bench b = {.target = -1 /* never: the clock ends the run */};
  b.cap = ntriggers * (seconds + 2);
  b.late = calloc((size_t)b.cap, sizeof *b.late);
  if (!b.late)
    die(NULL, "allocating", CHIME_ENOMEM);
  b.target = b.cap + 1;
  pthread_mutex_init(&b.mu, NULL);
  pthread_cond_init(&b.cv, NULL);
  chime_scheduler *s = make(&b);
  /* All triggers fire on the same whole seconds, starting at the second
   * after next. */
  int64_t start = (wall_ms() / 1000 + 2) * 1000;
  schedule_many(s, ntriggers, start, 1000, CHIME_REPEAT_INDEFINITELY);
  int r = chime_scheduler_start(s);
  if (r < 0)
    die(s, "start", r);
  /* Run until just before the (seconds+1)-th round of fires. */
  struct timespec until = {
      .tv_sec = (time_t)((start + (int64_t)seconds * 1000 - 500) / 1000),
      .tv_nsec =
          (long)((start + (int64_t)seconds * 1000 - 500) % 1000) * 1000000L};
  pthread_mutex_lock(&b.mu);
  while (pthread_cond_timedwait(&b.cv, &b.mu, &until) != ETIMEDOUT) {
  }
  pthread_mutex_unlock(&b.mu);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  qsort(b.late, (size_t)b.nlate, sizeof *b.late, cmp64);
  if (b.nlate == 0) {
    printf("lateness: no fires\n");
  } else {
    printf("lateness: %ld triggers every second, 2 workers, %d s: p50 %" PRId64
           " ms, p99 %" PRId64 " ms, max %" PRId64 " ms (%ld fires)\n",
           ntriggers, seconds, b.late[b.nlate / 2],
           b.late[(b.nlate * 99) / 100], b.late[b.nlate - 1], b.nlate);
  }
  free(b.late);
  pthread_cond_destroy(&b.cv);
  pthread_mutex_destroy(&b.mu);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  int seconds = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 10;
  if (n < 1 || seconds < 1) {
    fprintf(stderr, "usage: %s [triggers [seconds]]\n", argv[0]);
    return 2;
  }
  throughput(n);
  lateness(1000, seconds);
  return 0;
}
