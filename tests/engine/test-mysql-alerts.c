/*
 * test-mysql-alerts.c: the alert events a cluster raises, each produced by
 * the situation it names, with their metrics:
 *   - a node killed (SIGKILL) while its job runs: the survivor raises
 *     NODE_DEAD and FIRE_NODE_DIED naming the trigger, job, fire id and the
 *     dead node, and counts the node and the recovery;
 *   - the database stopped (`$CHIME_DEV db-down`, then db-up): the node
 *     raises STORE_OUTAGE_BEGAN, fences itself (NODE_FENCED) once its lease
 *     ran out, and raises STORE_OUTAGE_ENDED when the database answers
 *     again; the outage and the reconnect are counted.  Both come within a
 *     few check-ins of the stop (the loop reconnects for one check-in
 *     interval, not the store's 30 s: a fence 30 s late leaves a node
 *     running fires others may have taken over).
 * The doomed node is a child process (fork, before this process starts
 * any thread of its own).  It stops the server the other MariaDB-backed
 * tests use, so it is a 'cluster' test, which meson runs alone.
 *
 * Timing: check-ins every 300 ms (a lease of 600 ms); every wait is on a
 * condition variable with a wide deadline, never a bare sleep.
 */
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 60000
#define CHECKIN_MS 300

static char url_clear[2048], url_keep[2048];

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct {
  int node_dead, fire_died, began, ended, fenced, econnect_warned;
  char dead_node[128], died_node[128], died_trigger[64], died_job[64];
  int64_t died_fire_id;
} seen;

static bool listener(const chime_event *ev, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&mu);
  switch (chime_event_get_kind(ev)) {
  case CHIME_EVENT_NODE_DEAD:
    seen.node_dead++;
    snprintf(seen.dead_node, sizeof seen.dead_node, "%s",
             chime_event_get_node(ev));
    break;
  case CHIME_EVENT_FIRE_NODE_DIED:
    seen.fire_died++;
    snprintf(seen.died_node, sizeof seen.died_node, "%s",
             chime_event_get_node(ev));
    snprintf(seen.died_trigger, sizeof seen.died_trigger, "%s.%s",
             chime_event_get_trigger_group(ev),
             chime_event_get_trigger_name(ev));
    snprintf(seen.died_job, sizeof seen.died_job, "%s.%s",
             chime_event_get_job_group(ev), chime_event_get_job_name(ev));
    seen.died_fire_id = chime_event_get_fire_id(ev);
    break;
  case CHIME_EVENT_STORE_OUTAGE_BEGAN:
    seen.began++;
    break;
  case CHIME_EVENT_STORE_OUTAGE_ENDED:
    seen.ended++;
    break;
  case CHIME_EVENT_NODE_FENCED:
    seen.fenced++;
    break;
  default:
    break;
  }
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mu);
  return false;
}

/* The node's log at WARN and above: lines saying a step failed for a lost
 * database (said once an outage; DEBUG on the loop's later ticks). */
static void on_log(void *user_data, chime_log_level level,
                   const char *message) {
  (void)user_data;
  if (level > CHIME_LOG_WARN || (!strstr(message, "(CHIME_ECONNECT)") &&
                                 !strstr(message, "giving up reconnecting")))
    return;
  pthread_mutex_lock(&mu);
  seen.econnect_warned++;
  pthread_mutex_unlock(&mu);
}

static bool wait_for(const int *counter, int n) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&mu);
  while (*counter < n)
    if (pthread_cond_timedwait(&cond, &mu, &dl) == ETIMEDOUT)
      break;
  bool ok = *counter >= n;
  pthread_mutex_unlock(&mu);
  return ok;
}

static chime_scheduler *node(const char *url, const char *id) {
  chime_config *cfg = NULL;
  if (chime_config_new(&cfg) < 0)
    return NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  int r = chime_config_set_store_url(cfg, url);
  if (r == 0)
    r = chime_config_set_instance_id(cfg, id);
  if (r == 0)
    r = chime_config_set_checkin_interval_ms(cfg, CHECKIN_MS);
  if (r == 0)
    r = chime_config_set_idle_wait_ms(cfg, 200);
  if (r == 0)
    r = chime_config_set_log(cfg, on_log, NULL, CHIME_LOG_WARN);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r != 0)
    fprintf(stderr, "chime_scheduler_new(%s): %s: %s\n", id, chime_err_name(r),
            err);
  return s;
}

/* The doomed node's job: says it runs (a byte on the pipe), then hangs
 * until the node is killed. */
static void hang_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  int fd = *(int *)user_data;
  char c = 'r';
  if (write(fd, &c, 1) != 1)
    _exit(3);
  for (;;)
    pause();
}

/* The child: a node that runs g.hang and is killed while it runs. */
static void doomed_child(int fd) {
  chime_scheduler *s = node(url_clear, "doomed-node");
  if (!s ||
      chime_scheduler_register_job_type(s, "hang", hang_job, &fd, NULL) < 0 ||
      chime_scheduler_start(s) < 0)
    _exit(2);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  if (chime_job_new("g", "hang", "hang", &job, NULL, 0) < 0 ||
      chime_trigger_simple_new("t", "hang", 0, 0, &t, NULL, 0) < 0 ||
      chime_trigger_set_job(t, "g", "hang") < 0 ||
      chime_scheduler_schedule(s, job, t, 0, NULL) < 0)
    _exit(2);
  for (;;)
    pause();
}

static void test_mysql_alerts_node_killed(void) {
  memset(&seen, 0, sizeof seen);
  int fds[2];
  CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
  pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    doomed_child(fds[1]);
  }
  close(fds[1]);
  char c = 0;
  ssize_t n = read(fds[0], &c, 1); /* the job runs on the doomed node */
  close(fds[0]);
  CU_ASSERT_EQUAL(n, 1);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CU_ASSERT_FATAL(n == 1 && WIFSIGNALED(status));
  chime_scheduler *s = node(url_keep, "survivor-node");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_ALL, listener, NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&seen.node_dead, 1));
  CU_ASSERT_TRUE(wait_for(&seen.fire_died, 1));
  pthread_mutex_lock(&mu);
  CU_ASSERT_STRING_EQUAL(seen.dead_node, "doomed-node");
  CU_ASSERT_STRING_EQUAL(seen.died_node, "doomed-node");
  CU_ASSERT_STRING_EQUAL(seen.died_trigger, "t.hang");
  CU_ASSERT_STRING_EQUAL(seen.died_job, "g.hang");
  CU_ASSERT(seen.died_fire_id > 0);
  pthread_mutex_unlock(&mu);
  chime_metrics *m = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(s, &m), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, CHIME_METRIC_NODES_DEAD), 1);
  CU_ASSERT_EQUAL(chime_metrics_get_counter(m, CHIME_METRIC_RECOVERIES_DONE),
                  1);
  chime_metrics_free(m);
  /* The death is kept in the history: the dead node's run, FAILED. */
  chime_history *h = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_history(s, "g", "hang", NULL, NULL, -1, 0, 0, 0, 10, &h),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_history_get_count(h), 1);
  CU_ASSERT_STRING_EQUAL(chime_history_get_node(h, 0), "doomed-node");
  CU_ASSERT_EQUAL(chime_history_get_outcome(h, 0), CHIME_OUTCOME_FAILED);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_history_get_message(h, 0), "died"));
  pthread_mutex_lock(&mu);
  CU_ASSERT_EQUAL(chime_history_get_fire_id(h, 0), seen.died_fire_id);
  pthread_mutex_unlock(&mu);
  chime_history_free(h);
  chime_scheduler_free(s);
}

static void test_mysql_alerts_database_stopped(void) {
  chime_test_need_dev();
  memset(&seen, 0, sizeof seen);
  chime_scheduler *s = node(url_clear, "outage-alert-node");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_ALL, listener, NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(chime_test_dev_run("db-down"), 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bool began = wait_for(&seen.began, 1);
  bool fenced = wait_for(&seen.fenced, 1);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  /* A lease is 600 ms; 10 s is wide of it and far from the 30 s of a
   * check-in that reconnected for the store's whole budget. */
  long long took_ms = (long long)(t1.tv_sec - t0.tv_sec) * 1000 +
                      (t1.tv_nsec - t0.tv_nsec) / 1000000;
  CU_ASSERT(took_ms < 10000);
  if (took_ms >= 10000)
    fprintf(stderr, "outage said and node fenced %lld ms after the stop\n",
            took_ms);
  chime_metrics *m = NULL;
  CU_ASSERT_EQUAL(chime_scheduler_metrics(s, &m), 0);
  CU_ASSERT_EQUAL(chime_metrics_get_gauge(m, CHIME_GAUGE_STORE_DOWN), 1.0);
  chime_metrics_free(m);
  CU_ASSERT_EQUAL(chime_test_dev_run("db-up"), 0);
  CU_ASSERT_TRUE(began);
  CU_ASSERT_TRUE(fenced);
  CU_ASSERT_TRUE(wait_for(&seen.ended, 1));
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_metrics(s, &m), 0);
  CU_ASSERT(chime_metrics_get_counter(m, CHIME_METRIC_STORE_OUTAGES) >= 1);
  CU_ASSERT(chime_metrics_get_counter(m, CHIME_METRIC_RECONNECTS) >= 1);
  CU_ASSERT(chime_metrics_get_counter(m, CHIME_METRIC_SELF_FENCES) >= 1);
  /* The loop tried at every check-in of the outage (a lease is two), and
   * said the failure at WARN once: the outage's own line is the ERROR. */
  CU_ASSERT(chime_metrics_get_counter(m, CHIME_METRIC_STORE_ERRORS) >= 2);
  pthread_mutex_lock(&mu);
  CU_ASSERT_EQUAL(seen.econnect_warned, 1);
  pthread_mutex_unlock(&mu);
  CU_ASSERT_EQUAL(chime_metrics_get_gauge(m, CHIME_GAUGE_STORE_DOWN), 0.0);
  chime_metrics_free(m);
  chime_scheduler_free(s);
}

static int init_urls(void) {
  return chime_test_mysql_url_with(url_clear, sizeof url_clear,
                                   "prefix=chime_al_&auto_create=1&clear=1") ||
         chime_test_mysql_url_with(url_keep, sizeof url_keep,
                                   "prefix=chime_al_&auto_create=1");
}

static CU_TestInfo tests[] = {
    {"a killed node: NODE_DEAD and FIRE_NODE_DIED on the survivor",
     test_mysql_alerts_node_killed},
    {"a stopped database: outage began, fenced, outage ended",
     test_mysql_alerts_database_stopped},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-alerts", .pInitFunc = init_urls, .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
