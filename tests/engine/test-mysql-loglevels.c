/*
 * test-mysql-loglevels.c: normal events of a cluster never log at ERROR,
 * the level operators page on (issue 30, fault 5):
 *   - a node killed (SIGKILL) while its job, which requests recovery,
 *     runs: the survivor recovers the fire and runs it again, logging
 *     warnings but no ERROR line;
 *   - replicas starting together (created and started at once), each
 *     scheduling the same jobs with CHIME_SCHEDULE_IF_ABSENT at the same
 *     moment: every call returns 0,
 *     one copy is stored, and no node logs an ERROR line (the duplicate
 *     keys they meet are answers, not failures).
 * The doomed node is a child process (fork, first, before this process
 * starts any thread of its own).  Tables with the prefix mll_.
 *
 * Timing: check-ins every 300 ms; every wait is on a pipe or a condition
 * variable with a wide deadline, never a bare sleep.
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
#define PARAMS "prefix=mll_&auto_create=1"
#define REPLICAS 8
#define JOBS 4

static char url_clear[2048], url_keep[2048];

static int suite_init(void) {
  int r =
      chime_test_mysql_url_with(url_clear, sizeof url_clear, PARAMS "&clear=1");
  if (r == 0)
    r = chime_test_mysql_url_with(url_keep, sizeof url_keep, PARAMS);
  return r;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int errors; /* ERROR lines */
static int recovered_runs;

/* Every ERROR line is printed (the test's output says what it was) and
 * counted. */
static void capture_log(void *user_data, chime_log_level level,
                        const char *message) {
  const char *who = user_data;
  if (level != CHIME_LOG_ERROR)
    return;
  fprintf(stderr, "%s: ERROR %s\n", who, message);
  pthread_mutex_lock(&mu);
  errors++;
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

static int error_count(void) {
  pthread_mutex_lock(&mu);
  int n = errors;
  pthread_mutex_unlock(&mu);
  return n;
}

static chime_scheduler *node(const char *url, const char *id) {
  chime_config *cfg = NULL;
  if (chime_config_new(&cfg) < 0)
    return NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  int r = chime_config_set_store_url(cfg, url);
  if (r == 0)
    r = chime_config_set_scheduler_name(cfg, "mll");
  if (r == 0)
    r = chime_config_set_instance_id(cfg, id);
  if (r == 0)
    r = chime_config_set_checkin_interval_ms(cfg, CHECKIN_MS);
  if (r == 0)
    r = chime_config_set_idle_wait_ms(cfg, 200);
  if (r == 0)
    r = chime_config_set_log(cfg, capture_log, (void *)id, CHIME_LOG_DEBUG);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r != 0)
    fprintf(stderr, "chime_scheduler_new(%s): %s: %s\n", id, chime_err_name(r),
            err);
  return s;
}

/* ------------------------------------------------------------- recovery */

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

/* The survivor's: counts the recovered run. */
static void recovered_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&mu);
  if (chime_ctx_is_recovering(ctx))
    recovered_runs++;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mu);
}

static void doomed_child(int fd) {
  chime_scheduler *s = node(url_clear, "mll-doomed");
  if (!s ||
      chime_scheduler_register_job_type(s, "hang", hang_job, &fd, NULL) < 0 ||
      chime_scheduler_start(s) < 0)
    _exit(2);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  if (chime_job_new("g", "hang", "hang", &job, NULL, 0) < 0 ||
      chime_job_set_requests_recovery(job, true) < 0 ||
      chime_trigger_simple_new("t", "hang", 0, 0, &t, NULL, 0) < 0 ||
      chime_trigger_set_job(t, "g", "hang") < 0 ||
      chime_scheduler_schedule(s, job, t, 0, NULL) < 0)
    _exit(2);
  for (;;)
    pause();
}

static void test_mysql_loglevels_recovery_no_error(void) {
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
  chime_scheduler *s = node(url_keep, "mll-survivor");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "hang", recovered_job, NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&recovered_runs, 1));
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(error_count(), 0);
}

/* ------------------------------------------------ replicas scheduling */

static pthread_barrier_t barrier;

static void noop_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
}

typedef struct replica {
  const char *id;
  chime_scheduler *s;
  int started;
  int results[JOBS];
} replica;

/* A replica's start-up, at the same moment as every other's: create,
 * start, schedule the same JOBS jobs as every other. */
static void *replica_main(void *arg) {
  replica *r = arg;
  pthread_barrier_wait(&barrier);
  r->s = node(url_keep, r->id);
  r->started = !r->s ? -1
               : chime_scheduler_register_job_type(r->s, "noop", noop_job, NULL,
                                                   NULL) < 0
                   ? -1
                   : chime_scheduler_start(r->s);
  pthread_barrier_wait(&barrier);
  for (int j = 0; j < JOBS && r->s; j++) {
    char name[32];
    snprintf(name, sizeof name, "report-%d", j);
    chime_job *job = NULL;
    chime_trigger *t = NULL;
    int e = chime_job_new("g", name, "noop", &job, NULL, 0);
    if (e == 0)
      e = chime_trigger_simple_new("g", name, 3600000,
                                   CHIME_REPEAT_INDEFINITELY, &t, NULL, 0);
    if (e == 0)
      e = chime_trigger_set_job(t, "g", name);
    if (e == 0)
      e = chime_scheduler_schedule(r->s, job, t, CHIME_SCHEDULE_IF_ABSENT,
                                   NULL);
    r->results[j] = e;
    chime_job_free(job);
    chime_trigger_free(t);
  }
  return NULL;
}

static void test_mysql_loglevels_schedule_if_absent_no_error(void) {
  static const char *const ids[REPLICAS] = {"mll-r0", "mll-r1", "mll-r2",
                                            "mll-r3", "mll-r4", "mll-r5",
                                            "mll-r6", "mll-r7"};
  /* A clean slate first (clear=1 empties the scheduler's rows). */
  chime_scheduler *first = node(url_clear, "mll-clear");
  CU_ASSERT_PTR_NOT_NULL_FATAL(first);
  chime_scheduler_free(first);
  int before = error_count();
  replica reps[REPLICAS];
  memset(reps, 0, sizeof reps);
  pthread_barrier_init(&barrier, NULL, REPLICAS);
  pthread_t th[REPLICAS];
  for (int i = 0; i < REPLICAS; i++) {
    reps[i].id = ids[i];
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, replica_main, &reps[i]),
                          0);
  }
  for (int i = 0; i < REPLICAS; i++)
    pthread_join(th[i], NULL);
  pthread_barrier_destroy(&barrier);
  for (int i = 0; i < REPLICAS; i++) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(reps[i].s);
    CU_ASSERT_EQUAL(reps[i].started, 0);
    for (int j = 0; j < JOBS; j++) {
      if (reps[i].results[j] != 0)
        fprintf(stderr, "%s, job %d: %s\n", ids[i], j,
                chime_err_name(reps[i].results[j]));
      CU_ASSERT_EQUAL(reps[i].results[j], 0);
    }
  }
  /* One copy of each job. */
  chime_key *keys = NULL;
  size_t nkeys = 0;
  CU_ASSERT_EQUAL(
      chime_scheduler_list_jobs(reps[1].s, CHIME_MATCH_ANY, "", &keys, &nkeys),
      0);
  CU_ASSERT_EQUAL(nkeys, JOBS);
  chime_key_free_array(keys, nkeys);
  for (int i = 0; i < REPLICAS; i++) {
    CU_ASSERT_EQUAL(
        chime_scheduler_shutdown(reps[i].s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
    chime_scheduler_free(reps[i].s);
  }
  CU_ASSERT_EQUAL(error_count(), before);
}

static CU_TestInfo tests[] = {
    {"a recovery logs no ERROR", test_mysql_loglevels_recovery_no_error},
    {"replicas scheduling the same jobs at once log no ERROR",
     test_mysql_loglevels_schedule_if_absent_no_error},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-loglevels",
       .pInitFunc = suite_init,
       .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
