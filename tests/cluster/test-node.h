/*
 * test-node.h: what the cluster tests' node programs (shard-node.c,
 * limit-node.c) share: their log, written a whole line per write(2) so
 * that a killed node leaves whole lines; SIGTERM and SIGINT kept for
 * sigwait; and their scheduler, short-timed for tests (a check-in every
 * 500 ms; runs another node handed in noticed within 100 ms).
 */
#ifndef CHIME_TESTS_CLUSTER_TEST_NODE_H
#define CHIME_TESTS_CLUSTER_TEST_NODE_H

#include <chime.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline int64_t test_node_real_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Appends one line (at most 255 bytes) to the log fd. */
static void test_node_line(int fd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void test_node_line(int fd, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (len > 0 && (size_t)len < sizeof buf && write(fd, buf, (size_t)len))
    return;
}

/* Blocks SIGTERM and SIGINT (into *stop, for sigwait) and opens the log at
 * path.  Returns its fd, or -1 (printed, prog naming the program). */
static inline int test_node_begin(const char *prog, const char *path,
                                  sigset_t *stop) {
  sigemptyset(stop);
  sigaddset(stop, SIGINT);
  sigaddset(stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, stop, NULL);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    fprintf(stderr, "%s: cannot open %s\n", prog, path);
  return fd;
}

/* The node's scheduler: cluster sched, instance id, workers.  NULL on
 * failure (printed). */
static inline chime_scheduler *
test_node_scheduler(const char *prog, const char *url, const char *sched,
                    const char *id, unsigned workers) {
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  int r = chime_config_new(&cfg);
  if (r == 0)
    r = chime_config_set_store_url(cfg, url);
  if (r == 0)
    r = chime_config_set_scheduler_name(cfg, sched);
  if (r == 0)
    r = chime_config_set_instance_id(cfg, id);
  if (r == 0)
    r = chime_config_set_workers(cfg, workers);
  if (r == 0)
    r = chime_config_set_idle_wait_ms(cfg, 100);
  if (r == 0)
    r = chime_config_set_checkin_interval_ms(cfg, 500);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r < 0)
    fprintf(stderr, "%s %s: %s (%s)\n", prog, id,
            err[0] ? err : chime_strerror(r), chime_err_name(r));
  return r < 0 ? NULL : s;
}

#endif /* CHIME_TESTS_CLUSTER_TEST_NODE_H */
