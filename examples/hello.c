/*
 * hello.c: the smallest chime program.  It schedules one cron job (every
 * second, or the Quartz cron expression given as the first argument) on the
 * memory store, or on the store a second argument names, prints a line each
 * time it fires, and shuts down cleanly on Ctrl-C (SIGINT) or SIGTERM.
 *
 *   $ chime-hello
 *   fired hello/every-second scheduled 2026-11-29T19:20:01.000Z on web-1-...
 *   $ chime-hello '0/5 * * * * ?'
 *   $ chime-hello '* * * * * ?'
 * 'mysql://chime:pw@127.0.0.1:13306/app?auto_create=1'
 */
#include "chime.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

/* Writes t_ms as an ISO 8601 UTC time (Howard Hinnant's civil_from_days). */
static void format_utc(int64_t t_ms, char *buf, size_t len) {
  int64_t ms = t_ms % 1000, secs = t_ms / 1000;
  if (ms < 0) {
    ms += 1000;
    secs--;
  }
  int64_t days = secs / 86400, sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days--;
  }
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  int64_t y = yoe + era * 400 + (m <= 2);
  snprintf(buf, len,
           "%04" PRId64 "-%02" PRId64 "-%02" PRId64 "T%02" PRId64 ":%02" PRId64
           ":%02" PRId64 ".%03" PRId64 "Z",
           y, m, d, sod / 3600, sod / 60 % 60, sod % 60, ms);
}

/* The job: one line per fire. */
static void hello(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  char when[128];
  format_utc(chime_ctx_get_scheduled_ms(ctx), when, sizeof when);
  printf("fired %s/%s scheduled %s on %s\n", chime_ctx_get_job_name(ctx),
         chime_ctx_get_trigger_name(ctx), when,
         chime_scheduler_get_instance_id(chime_ctx_get_scheduler(ctx)));
  fflush(stdout);
}

/* Reports a failed call on s with its detail (chime_scheduler_errmsg). */
static int fail(chime_scheduler *s, const char *what, int code) {
  const char *detail = chime_scheduler_errmsg(s);
  fprintf(stderr, "chime-hello: %s: %s%s%s\n", what, chime_strerror(code),
          detail[0] ? ": " : "", detail);
  return 1;
}

int main(int argc, char **argv) {
  const char *expr = argc > 1 ? argv[1] : "* * * * * ?";
  const char *url = argc > 2 ? argv[2] : "memory:";
  /* Block the signals before any thread starts, so every thread inherits
   * the mask and only sigwait() below receives them. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);

  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[256] = "";
  int r = chime_config_new(&cfg);
  if (r == 0)
    r = chime_config_set_store_url(cfg, url);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r < 0) {
    fprintf(stderr, "chime-hello: %s\n", err);
    return 1;
  }
  chime_job *job = NULL;
  chime_trigger *trigger = NULL;
  r = chime_scheduler_register_job_type(s, "hello", hello, NULL, NULL);
  if (r == 0)
    r = chime_job_new("examples", "hello", "hello", &job, err, sizeof err);
  if (r == 0)
    r = chime_trigger_cron_new("examples", "every-second", expr, "UTC",
                               &trigger, err, sizeof err);
  if (r < 0 && err[0]) {
    fprintf(stderr, "chime-hello: %s\n", err);
    chime_job_free(job);
    chime_scheduler_free(s);
    return 2;
  }
  if (r == 0)
    r = chime_trigger_set_job(trigger, "examples", "hello");
  if (r == 0)
    r = chime_scheduler_schedule(s, job, trigger, 0, NULL);
  if (r == CHIME_EEXISTS) /* a persistent store kept it from an earlier run */
    r = chime_scheduler_reschedule(s, "examples", "every-second", trigger,
                                   NULL);
  chime_job_free(job);
  chime_trigger_free(trigger);
  if (r == 0)
    r = chime_scheduler_start(s);
  if (r < 0) {
    int rc = fail(s, "cannot schedule", r);
    chime_scheduler_free(s);
    return rc;
  }
  int sig = 0;
  sigwait(&stop, &sig);
  fprintf(stderr, "chime-hello: signal %d, shutting down\n", sig);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  return 0;
}
