/*
 * limit-node.c: one node of the limits cluster test (limit-cluster.py;
 * docs/queue.md, "Limits").
 *
 *   limit-node URL ID LOG [--workers N] [--run-ms MS]
 *              [--schedule COUNT MAX RATE PERIOD_MS] [--tenants K]
 *
 * Registers the job type "limited", whose runs take MS (default 100) and
 * are recovered when their node dies.  With --schedule it also sets the
 * type's limit (MAX at a time, RATE starts per PERIOD_MS; 0: none), adds
 * the durable job lim.work and hands in COUNT runs of it at once
 * (chime_scheduler_run_job, the run's index as its data; with --tenants K
 * the data is {"tenant":"tJ","i":INDEX}, J the index modulo K, so that a
 * limit's partition field "tenant" partitions them).  Every line
 * of LOG is written with one write(2), so a killed node leaves whole
 * lines (times: this host's wall clock, ms):
 *   S index fire_id start_ms
 *   E index fire_id end_ms
 * Prints "ready ID" once started (and "scheduled" once the runs are in);
 * runs until SIGTERM or SIGINT, then shuts down waiting for its jobs.
 */
#include "test-node.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
  int fd;
  int run_ms;
  int tenants; /* --tenants: the runs' data names a tenant */
} node;

static void work(chime_ctx *ctx, void *user_data) {
  node *n = user_data;
  size_t len = 0;
  const char *data = chime_ctx_get_data(ctx, &len);
  char index[64] = "?";
  if (data && len > 0 && len < sizeof index) {
    memcpy(index, data, len);
    index[len] = '\0';
  }
  /* {"tenant":"tJ","i":INDEX}: the index alone. */
  char *at = strstr(index, "\"i\":");
  if (at) {
    size_t digits = strcspn(at + 4, "}");
    memmove(index, at + 4, digits);
    index[digits] = '\0';
  }
  int64_t fire = chime_ctx_get_fire_id(ctx);
  test_node_line(n->fd, "S %s %" PRId64 " %" PRId64 "\n", index, fire,
                 test_node_real_ms());
  struct timespec d = {n->run_ms / 1000, (long)(n->run_ms % 1000) * 1000000L};
  nanosleep(&d, NULL);
  test_node_line(n->fd, "E %s %" PRId64 " %" PRId64 "\n", index, fire,
                 test_node_real_ms());
}

static int schedule(chime_scheduler *s, int count, int max, int rate,
                    int64_t period, int tenants) {
  /* limit-cluster.py sets it with chimectl before any node starts: a
   * limit set here applies on the other nodes within a second. */
  int r = max > 0 || rate > 0
              ? chime_scheduler_set_limit(s, "limited", max, 0, rate, period)
              : 0;
  chime_job *j = NULL;
  if (r == 0)
    r = chime_job_new("lim", "work", "limited", &j, NULL, 0);
  if (r == 0)
    r = chime_job_set_durable(j, true);
  if (r == 0)
    r = chime_job_set_requests_recovery(j, true);
  if (r == 0)
    r = chime_scheduler_add_job(s, j, true);
  chime_job_free(j);
  for (int i = 0; r == 0 && i < count; i++) {
    char data[64];
    int len = tenants > 0
                  ? snprintf(data, sizeof data, "{\"tenant\":\"t%d\",\"i\":%d}",
                             i % tenants, i)
                  : snprintf(data, sizeof data, "%d", i);
    r = chime_scheduler_run_job(s, "lim", "work", data, (size_t)len, NULL);
  }
  return r;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: limit-node URL ID LOG [--workers N] [--run-ms "
                    "MS] [--schedule COUNT MAX RATE PERIOD_MS]\n");
    return 2;
  }
  node n = {.run_ms = 100};
  unsigned workers = 4;
  int count = 0, max = 0, rate = 0;
  int64_t period = 0;
  for (int i = 4; i < argc; i++) {
    if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
      workers = (unsigned)atoi(argv[++i]);
    } else if (strcmp(argv[i], "--run-ms") == 0 && i + 1 < argc) {
      n.run_ms = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--schedule") == 0 && i + 4 < argc) {
      count = atoi(argv[++i]);
      max = atoi(argv[++i]);
      rate = atoi(argv[++i]);
      period = strtoll(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--tenants") == 0 && i + 1 < argc) {
      n.tenants = atoi(argv[++i]);
    } else {
      fprintf(stderr, "limit-node: unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  sigset_t stop;
  if ((n.fd = test_node_begin("limit-node", argv[3], &stop)) < 0)
    return 1;
  chime_scheduler *s =
      test_node_scheduler("limit-node", argv[1], "limits", argv[2], workers);
  if (!s)
    return 1;
  int r = chime_scheduler_register_job_type(s, "limited", work, &n, NULL);
  if (r == 0)
    r = chime_scheduler_start(s);
  if (r == 0) {
    printf("ready %s\n", argv[2]);
    fflush(stdout);
  }
  if (r == 0 && count > 0 &&
      (r = schedule(s, count, max, rate, period, n.tenants)) == 0) {
    printf("scheduled\n");
    fflush(stdout);
  }
  if (r < 0) {
    fprintf(stderr, "limit-node %s: %s (%s)\n", argv[2],
            chime_scheduler_errmsg(s), chime_err_name(r));
    chime_scheduler_free(s);
    return 1;
  }
  int sig = 0;
  sigwait(&stop, &sig);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  close(n.fd);
  return 0;
}
