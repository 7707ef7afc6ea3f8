/*
 * installed-prog.c: a user's program, compiled by test-install.py against
 * an installed chime with `pkg-config --cflags --libs chime` only.  It
 * checks that the header and the library agree on the version, then runs a
 * job on the memory store and waits (on a condition variable, up to 30 s)
 * for it to fire.  Exit status 0 when all of that worked.
 */
#include <chime.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fired_cond = PTHREAD_COND_INITIALIZER;
static int fired;

static void run(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  pthread_mutex_lock(&lock);
  fired++;
  pthread_cond_signal(&fired_cond);
  pthread_mutex_unlock(&lock);
}

int main(void) {
  if (strcmp(chime_version(), CHIME_VERSION) != 0 ||
      chime_version_hex() != CHIME_VERSION_HEX) {
    fprintf(stderr, "header %s, library %s\n", CHIME_VERSION, chime_version());
    return 1;
  }
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  chime_job *job = NULL;
  chime_trigger *trig = NULL;
  char err[256] = "";
  if (chime_config_new(&cfg) < 0 ||
      chime_config_set_store_url(cfg, "memory:") < 0 ||
      chime_scheduler_new(cfg, &s, err, sizeof err) < 0) {
    fprintf(stderr, "scheduler: %s\n", err);
    return 1;
  }
  chime_config_free(cfg);
  int r = chime_scheduler_register_job_type(s, "count", run, NULL, NULL);
  if (r == 0)
    r = chime_job_new("g", "j", "count", &job, err, sizeof err);
  if (r == 0)
    r = chime_trigger_simple_new("g", "t", 0, 0, &trig, err, sizeof err);
  if (r == 0)
    r = chime_trigger_set_job(trig, "g", "j");
  if (r == 0)
    r = chime_scheduler_schedule(s, job, trig, 0, NULL);
  chime_job_free(job);
  chime_trigger_free(trig);
  if (r == 0)
    r = chime_scheduler_start(s);
  if (r < 0) {
    fprintf(stderr, "schedule: %s %s\n", chime_strerror(r), err);
    return 1;
  }
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 30;
  pthread_mutex_lock(&lock);
  while (fired == 0 &&
         pthread_cond_timedwait(&fired_cond, &lock, &until) == 0) {
  }
  int n = fired;
  pthread_mutex_unlock(&lock);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  printf("chime %s: fired %d\n", chime_version(), n);
  return n == 1 ? 0 : 1;
}
