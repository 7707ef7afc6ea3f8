/*
 * test-mysql-nodes.c: one live process per instance id, decided by the
 * database, whatever the timing (issue 30, fault 4):
 *   - several processes (fork) open a store under the same new instance id
 *     at the same instant, many rounds: in each, exactly one opens it and
 *     the others get CHIME_EDUPNODE;
 *   - a store whose nodes row was taken over by another process (as when
 *     the id is claimed again after this process was paused past its
 *     lease) is told so by its next check-in (CHIME_EDUPNODE, one ERROR
 *     line) and, closing, leaves the other process's row alone;
 *   - a live row naming this host and pid that this process did not claim
 *     (two containers, each pid 1, on the host's network) is refused;
 *   - a scheduler in that situation fences itself at its next check-in and
 *     claims nothing from then on.
 * Tables with the prefix mnd_ in the test database.  The children are
 * forked before this process starts any thread of its own.
 *
 * Timing: every wait is on a pipe or a condition variable with a wide
 * deadline, never a bare sleep.
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/store.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 30000
#define PARAMS "prefix=mnd_&auto_create=1"
#define SCHED "mnd"
#define ROUNDS 12
#define TWINS 6

static char url[2048];

static int suite_init(void) {
  return chime_test_mysql_url_with(url, sizeof url, PARAMS);
}

/* Runs sql on the test database; fatal on failure. */
static void sql(const char *text) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  if (mysql_query(db, text) != 0)
    fprintf(stderr, "%s: %s\n", text, mysql_error(db));
  CU_ASSERT_EQUAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
  mysql_close(db);
}

/* One integer from a query on the test database, -1 for none. */
static long long query_int(const char *text) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  long long v = -1;
  if (mysql_query(db, text) == 0) {
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    if (row && row[0])
      v = strtoll(row[0], NULL, 10);
    if (res)
      mysql_free_result(res);
  } else {
    fprintf(stderr, "%s: %s\n", text, mysql_error(db));
  }
  mysql_close(db);
  return v;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int errors_logged; /* ERROR lines */
static char last_error[1024];
static int lost_errors; /* SCHEDULER_ERROR events with CHIME_EDUPNODE */
static int fenced_events;
static int runs;

static void capture_log(void *user_data, chime_log_level level,
                        const char *message) {
  (void)user_data;
  pthread_mutex_lock(&mu);
  if (level == CHIME_LOG_ERROR) {
    errors_logged++;
    snprintf(last_error, sizeof last_error, "%s", message);
  }
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

static int read_counter(const int *counter) {
  pthread_mutex_lock(&mu);
  int v = *counter;
  pthread_mutex_unlock(&mu);
  return v;
}

static int open_node(const char *id, chime_store **ret) {
  chime_store_options o = {.scheduler_name = SCHED,
                           .instance_id = id,
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 2000,
                           .connections = 1,
                           .log = capture_log,
                           .log_level = CHIME_LOG_WARN};
  char err[512] = "";
  *ret = NULL;
  return chime__store_open(url, &o, ret, err, sizeof err);
}

/* ------------------------------------------------- claiming one new id */

/* A twin: waits for the start (the go pipe closed), opens the store under
 * id, sends the result, and holds the store until the hold pipe closes. */
static void twin(const char *id, int go, int result, int hold) {
  char c;
  if (read(go, &c, 1) != 0)
    _exit(2);
  chime_store *st = NULL;
  int r = open_node(id, &st);
  if (write(result, &r, sizeof r) != (ssize_t)sizeof r)
    _exit(2);
  if (read(hold, &c, 1) != 0)
    _exit(2);
  if (st)
    st->ops->free(st);
  _exit(0);
}

/* Reads n bytes from fd within WAIT_MS. */
static bool read_full(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, WAIT_MS) <= 0)
      return false;
    ssize_t k = read(fd, (char *)buf + got, n - got);
    if (k <= 0)
      return false;
    got += (size_t)k;
  }
  return true;
}

static void test_mysql_nodes_one_claimer_per_new_id(void) {
  /* The schema, created once before the race. */
  chime_store *st = NULL;
  CU_ASSERT_EQUAL_FATAL(open_node("mnd-setup", &st), 0);
  st->ops->free(st);
  int doubled = 0;
  for (int round = 0; round < ROUNDS; round++) {
    char id[64];
    snprintf(id, sizeof id, "twin-%ld-%d", (long)getpid(), round);
    int go[2], result[2], hold[2];
    CU_ASSERT_FATAL(pipe(go) == 0 && pipe(result) == 0 && pipe(hold) == 0);
    pid_t pids[TWINS];
    for (int i = 0; i < TWINS; i++) {
      pids[i] = fork();
      CU_ASSERT_FATAL(pids[i] >= 0);
      if (pids[i] == 0) {
        close(go[1]);
        close(result[0]);
        close(hold[1]);
        twin(id, go[0], result[1], hold[0]);
      }
    }
    close(go[0]);
    close(result[1]);
    close(hold[0]);
    close(go[1]); /* all start at once */
    int opened = 0, refused = 0, other = 0;
    for (int i = 0; i < TWINS; i++) {
      int r = 1;
      CU_ASSERT_TRUE(read_full(result[0], &r, sizeof r));
      if (r == 0)
        opened++;
      else if (r == CHIME_EDUPNODE)
        refused++;
      else
        other++;
    }
    char q[256];
    snprintf(q, sizeof q,
             "SELECT COUNT(*) FROM mnd_nodes WHERE sched_name = '" SCHED
             "' AND instance_id = '%s'",
             id);
    long long rows = query_int(q);
    close(hold[1]); /* the twins close their stores and exit */
    close(result[0]);
    for (int i = 0; i < TWINS; i++) {
      int status = 0;
      waitpid(pids[i], &status, 0);
      CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    if (opened != 1 || refused != TWINS - 1 || other != 0) {
      fprintf(stderr, "round %d: %d opened id %s, %d refused, %d other\n",
              round, opened, id, refused, other);
      doubled++;
    }
    CU_ASSERT_EQUAL(rows, 1);
  }
  CU_ASSERT_EQUAL(doubled, 0);
}

/* ------------------------------------------------ an id taken over */

/* The row of id now names another process, as when the id was claimed
 * again after this process had been found dead. */
static void take_over(const char *id) {
  char q[512];
  snprintf(q, sizeof q,
           "UPDATE mnd_nodes SET host = 'elsewhere', pid = pid + 1000000 "
           "WHERE sched_name = '" SCHED "' AND instance_id = '%s'",
           id);
  sql(q);
}

static void test_mysql_nodes_lost_id_checkin_refused(void) {
  chime_store *st = NULL;
  CU_ASSERT_EQUAL_FATAL(open_node("lost-a", &st), 0);
  CU_ASSERT_EQUAL(st->ops->checkin(st, st->ops->now(st), NULL), 0);
  pthread_mutex_lock(&mu);
  errors_logged = 0;
  pthread_mutex_unlock(&mu);
  take_over("lost-a");
  CU_ASSERT_EQUAL(st->ops->checkin(st, st->ops->now(st), NULL), CHIME_EDUPNODE);
  CU_ASSERT_EQUAL(st->ops->checkin(st, st->ops->now(st), NULL), CHIME_EDUPNODE);
  pthread_mutex_lock(&mu);
  CU_ASSERT_EQUAL(errors_logged, 1); /* once per loss */
  CU_ASSERT_PTR_NOT_NULL(strstr(last_error, "lost-a"));
  CU_ASSERT_PTR_NOT_NULL(strstr(last_error, "elsewhere"));
  pthread_mutex_unlock(&mu);
  st->ops->free(st);
  /* Closing left the other process's row where it was. */
  CU_ASSERT_EQUAL(query_int("SELECT COUNT(*) FROM mnd_nodes WHERE sched_name "
                            "= '" SCHED "' AND instance_id = 'lost-a' AND "
                            "host = 'elsewhere'"),
                  1);
  sql("DELETE FROM mnd_nodes WHERE instance_id = 'lost-a'");
}

/* A row a survivor removed (this node was found dead) is put back: the
 * node goes on under its id, as before. */
static void test_mysql_nodes_removed_row_put_back(void) {
  chime_store *st = NULL;
  CU_ASSERT_EQUAL_FATAL(open_node("gone-a", &st), 0);
  sql("DELETE FROM mnd_nodes WHERE instance_id = 'gone-a'");
  CU_ASSERT_EQUAL(st->ops->checkin(st, st->ops->now(st), NULL), 0);
  CU_ASSERT_EQUAL(query_int("SELECT COUNT(*) FROM mnd_nodes WHERE "
                            "instance_id = 'gone-a'"),
                  1);
  /* Another store of this process shares the id; both check in. */
  chime_store *st2 = NULL;
  CU_ASSERT_EQUAL_FATAL(open_node("gone-a", &st2), 0);
  CU_ASSERT_EQUAL(st->ops->checkin(st, st->ops->now(st), NULL), 0);
  CU_ASSERT_EQUAL(st2->ops->checkin(st2, st2->ops->now(st2), NULL), 0);
  st2->ops->free(st2);
  st->ops->free(st);
}

/* A live row naming this host and this pid is not this process's unless
 * this process claimed it: two containers on the host's network, each
 * running as pid 1, have one host name and one pid. */
static void test_mysql_nodes_same_host_and_pid_refused(void) {
  chime_store *a = NULL, *b = NULL;
  CU_ASSERT_EQUAL_FATAL(open_node("pid-one", &a), 0);
  /* Now the row is another process's of the same host and pid. */
  sql("UPDATE mnd_nodes SET started_ms = started_ms - 1 WHERE sched_name = "
      "'" SCHED "' AND instance_id = 'pid-one'");
  CU_ASSERT_EQUAL(open_node("pid-one", &b), CHIME_EDUPNODE);
  CU_ASSERT_PTR_NULL(b);
  if (b)
    b->ops->free(b);
  CU_ASSERT_EQUAL(a->ops->checkin(a, a->ops->now(a), NULL), CHIME_EDUPNODE);
  a->ops->free(a);
  CU_ASSERT_EQUAL(query_int("SELECT COUNT(*) FROM mnd_nodes WHERE "
                            "instance_id = 'pid-one'"),
                  1);
  sql("DELETE FROM mnd_nodes WHERE instance_id = 'pid-one'");
}

/* ------------------------------------------- a scheduler that lost its id */

static void tick_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  pthread_mutex_lock(&mu);
  runs++;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mu);
}

static bool listener(const chime_event *ev, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&mu);
  if (chime_event_get_kind(ev) == CHIME_EVENT_NODE_FENCED)
    fenced_events++;
  if (chime_event_get_kind(ev) == CHIME_EVENT_SCHEDULER_ERROR &&
      chime_event_get_error(ev) == CHIME_EDUPNODE)
    lost_errors++;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mu);
  return false;
}

static void test_mysql_nodes_lost_id_fences_scheduler(void) {
  chime_config *cfg = chime_test_mysql_config(PARAMS "&clear=1", "lost-sched");
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, SCHED), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_checkin_interval_ms(cfg, 300), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_config_set_log(cfg, capture_log, NULL, CHIME_LOG_WARN), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "tick", tick_job, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_ALL, listener, NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "lost-tick", "tick", &job, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", "lost-tick", 100,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "lost-tick"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  CU_ASSERT_TRUE_FATAL(wait_for(&runs, 3));
  take_over("lost-sched");
  /* The next check-in fences the node... */
  CU_ASSERT_TRUE(wait_for(&fenced_events, 1));
  int lost = read_counter(&lost_errors);
  CU_ASSERT_TRUE(lost >= 1);
  /* ...which claims nothing from then on: what it had claimed before has
   * run after two more check-ins, and no run follows in the next three. */
  CU_ASSERT_TRUE(wait_for(&lost_errors, lost + 2));
  int before = read_counter(&runs);
  CU_ASSERT_TRUE(wait_for(&lost_errors, lost + 5));
  CU_ASSERT_EQUAL(read_counter(&runs), before);
  CU_ASSERT_EQUAL(query_int("SELECT COUNT(*) FROM mnd_triggers WHERE "
                            "sched_name = '" SCHED "' AND trigger_name = "
                            "'lost-tick' AND state = 'ACQUIRED'"),
                  0);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int("SELECT COUNT(*) FROM mnd_nodes WHERE "
                            "instance_id = 'lost-sched' AND host = "
                            "'elsewhere'"),
                  1);
  sql("DELETE FROM mnd_nodes WHERE instance_id = 'lost-sched'");
}

static CU_TestInfo tests[] = {
    {"one process per new instance id, claimed at once",
     test_mysql_nodes_one_claimer_per_new_id},
    {"a check-in under an id taken over is refused",
     test_mysql_nodes_lost_id_checkin_refused},
    {"a row removed by a survivor is put back",
     test_mysql_nodes_removed_row_put_back},
    {"one host name and pid, two processes: refused",
     test_mysql_nodes_same_host_and_pid_refused},
    {"a scheduler whose id was taken over fences itself",
     test_mysql_nodes_lost_id_fences_scheduler},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-nodes",
       .pInitFunc = suite_init,
       .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
