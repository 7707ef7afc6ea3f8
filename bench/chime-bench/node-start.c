/*
 * node-start.c: what both kinds of node (node.c's, and soak-node.c's of
 * the soak) do around their own jobs: block the stopping signals before
 * any thread starts, start one scheduler of the bench's cluster, tell the
 * parent it is ready and wait for SIGINT or SIGTERM.
 *
 * Threads: the node's main thread; the log callback runs on chime's.
 */
#include "bench.h"

#include "chime.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int bench_node_prepare(const char *id, sigset_t *ret_stop) {
  /* Signals are taken with sigwait() (bench_node_ready_wait); every thread
   * chime starts inherits this mask. */
  sigemptyset(ret_stop);
  sigaddset(ret_stop, SIGINT);
  sigaddset(ret_stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, ret_stop, NULL);
  if (mysql_library_init(0, NULL, NULL) != 0) {
    fprintf(stderr, "%s: cannot initialise\n", id);
    return -1;
  }
  return 0;
}

/* chime's log on stderr, with the real time and the node's id. */
static void node_log(void *user_data, chime_log_level level,
                     const char *message) {
  static const char *const names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
  const char *id = user_data;
  fprintf(stderr, "%" PRId64 " %s %s: %s\n", bench_real_ms(), id, names[level],
          message);
}

chime_scheduler *
bench_node_start(const bench_opts *o, const char *id, const char *url,
                 int (*configure)(chime_config *cfg, const bench_opts *o),
                 chime_job_fn job, void *user_data) {
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  int r = chime_config_new(&cfg);
  if (r == 0)
    r = chime_config_set_store_url(cfg, url);
  if (r == 0)
    r = chime_config_set_scheduler_name(cfg, BENCH_SCHEDULER_NAME);
  if (r == 0)
    r = chime_config_set_instance_id(cfg, id);
  if (r == 0)
    r = chime_config_set_workers(cfg, o->workers);
  if (r == 0 && o->batch)
    r = chime_config_set_batch_size(cfg, o->batch);
  if (r == 0 && configure)
    r = configure(cfg, o);
  if (r == 0)
    r = chime_config_set_log(cfg, node_log, (void *)id, CHIME_LOG_WARN);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r == 0)
    r = chime_scheduler_register_job_type(s, BENCH_JOB, job, user_data, NULL);
  if (r == 0)
    r = chime_scheduler_start(s);
  if (r < 0) {
    fprintf(stderr, "%s: cannot start: %s (%s)\n", id,
            err[0] ? err : chime_scheduler_errmsg(s), chime_err_name(r));
    chime_scheduler_free(s);
    return NULL;
  }
  return s;
}

void bench_node_ready_wait(const char *id, const sigset_t *stop) {
  static const char ready[] = "ready\n";
  if (write(BENCH_READY_FD, ready, sizeof ready - 1) !=
      (ssize_t)(sizeof ready - 1))
    fprintf(stderr, "%s: cannot tell the parent it is ready\n", id);
  close(BENCH_READY_FD);
  int sig = 0;
  sigwait(stop, &sig);
  fprintf(stderr, "%" PRId64 " %s: signal %d, shutting down\n", bench_real_ms(),
          id, sig);
}
