/*
 * test-admin.c: the operators' lists of chime-admin.h (jobstore/admin.c,
 * jobstore/admin_table.c, each store's admin_list) through the public API
 * only: a scheduler with two jobs, a cron and a simple trigger and a few
 * recorded runs, listed by an operator's view of its store: the nodes,
 * jobs, triggers, fires and history, each read by column name; the
 * filters (group pattern, job, trigger, node, outcome, started, page) and
 * the errors (NULL arguments, an unknown kind or column, a half key).
 *
 * The same source builds two runners (tests/meson.build): engine/admin on
 * the memory store (chime_admin_open_scheduler) and, with
 * CHIME_TEST_MYSQL, engine/admin-mysql on the throwaway MariaDB (tables
 * prefixed chime_ad_), which also opens the cluster by URL as the tools
 * do (chime_admin_open: its own node left out of the nodes).
 *
 * Timing: the runs are waited for on a condition variable with a wide
 * deadline (WAIT_MS); nothing asserts a duration.
 */
#include "chime-admin.h"
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 30000
#define RUNS 3

static char store_url[2048] = "memory:";

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  bool release; /* hold's run may return */
} S = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false};

/* Runs until the test releases it (or WAIT_MS passed). */
static void hold(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&S.mu);
  while (!S.release)
    if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) == ETIMEDOUT)
      break;
  pthread_mutex_unlock(&S.mu);
}

/* Fails when its data says "fail", else succeeds. */
static void work(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  size_t len = 0;
  const void *data = chime_ctx_get_data(ctx, &len);
  if (data && len == 4 && memcmp(data, "fail", 4) == 0)
    chime_ctx_fail(ctx, "asked to fail");
  pthread_mutex_lock(&S.mu);
  S.done++;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
}

/* Waits until n runs are done and recorded (the history is written after
 * the job returns: the list is polled until it has them). */
static bool wait_runs(chime_admin *a, int n) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&S.mu);
  while (S.done < n)
    if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) == ETIMEDOUT)
      break;
  pthread_mutex_unlock(&S.mu);
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_HISTORY, &q), 0);
  size_t rows = 0;
  for (int i = 0; i < WAIT_MS / 20 && rows < (size_t)n; i++) {
    chime_admin_table *t = NULL;
    if (chime_admin_list(a, q, &t) == 0)
      rows = chime_admin_table_get_row_count(t);
    chime_admin_table_free(t);
    if (rows < (size_t)n)
      chime_test_sleep_ms(20);
  }
  chime_admin_query_free(q);
  return rows >= (size_t)n;
}

static chime_scheduler *scheduler(void) {
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, store_url), 0);
  CU_ASSERT_EQUAL(chime_config_set_instance_id(cfg, "admin-node"), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "work", work, NULL, NULL), 0);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "hold", hold, NULL, NULL), 0);
  /* reports.daily: a cron far in the future; ops.sweep: a simple trigger
   * paused, so neither fires during the test; ops.once: run by hand. */
  chime_job *j = NULL;
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("reports", "daily", "work", &j, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("reports", "daily-9am",
                                               "0 0 9 * * ?", "Europe/Paris",
                                               &t, NULL, 0),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "reports", "daily"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, j, t, 0, NULL), 0);
  chime_job_free(j);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL_FATAL(chime_job_new("ops", "sweep", "work", &j, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(j, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("ops", "sweep-hourly", 3600000,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 NULL, 0),
                        0);
  CU_ASSERT_EQUAL(
      chime_trigger_set_start_ms(t, chime_test_wall_ms() + 24 * 3600000LL), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "ops", "sweep"), 0);
  CU_ASSERT_EQUAL(chime_scheduler_schedule(s, j, t, 0, NULL), 0);
  chime_job_free(j);
  chime_trigger_free(t);
  return s;
}

/* The table of one query of kind with the filters set(q) sets. */
static chime_admin_table *list(chime_admin *a, chime_admin_kind kind,
                               void (*set)(chime_admin_query *)) {
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(kind, &q), 0);
  if (set)
    set(q);
  chime_admin_table *t = NULL;
  int r = chime_admin_list(a, q, &t);
  if (r != 0)
    fprintf(stderr, "chime_admin_list: %s\n", chime_admin_errmsg(a));
  CU_ASSERT_EQUAL(r, 0);
  chime_admin_query_free(q);
  return t;
}

#define TEXT(t, row, col) chime_admin_table_get_text(t, row, col)
#define INT(t, row, col) chime_admin_table_get_int64(t, row, col)

static void check_nodes(chime_admin *a, bool self_listed) {
  chime_admin_table *t = list(a, CHIME_ADMIN_NODES, NULL);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), self_listed ? 1 : 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "id"), "admin-node");
  CU_ASSERT_EQUAL(INT(t, 0, "live"), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "drain"), "active");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "version"), chime_version());
  CU_ASSERT(INT(t, 0, "pid") > 0);
  CU_ASSERT(INT(t, 0, "checkin_age_ms") >= 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_column_type(t, 0), CHIME_ADMIN_TEXT);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_column_name(t, 0), "id");
  chime_admin_table_free(t);
}

static void only_ops(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_group(q, "op*"), 0);
}

static void check_jobs(chime_admin *a) {
  chime_admin_table *t = list(a, CHIME_ADMIN_JOBS, NULL);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 2);
  /* By group and name: ops.sweep, reports.daily. */
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "group"), "ops");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "name"), "sweep");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "type"), "work");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "concurrency"), "allow");
  CU_ASSERT_EQUAL(INT(t, 0, "durable"), 1);
  CU_ASSERT_EQUAL(INT(t, 0, "triggers"), 1);
  CU_ASSERT(chime_admin_table_is_null(t, 0, "description"));
  CU_ASSERT_EQUAL(INT(t, 0, "timeout_ms"), 0);
  CU_ASSERT_EQUAL(INT(t, 0, "deadline_ms"), 0);
  CU_ASSERT_EQUAL(INT(t, 0, "history_level"), CHIME_HISTORY_ALL);
  CU_ASSERT(chime_admin_table_is_null(t, 0, "data"));
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "group"), "reports");
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_JOBS, only_ops);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 1);
  chime_admin_table_free(t);
}

static void check_triggers(chime_admin *a) {
  chime_admin_table *t = list(a, CHIME_ADMIN_TRIGGERS, NULL);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 2);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "name"), "sweep-hourly");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "kind"), "simple");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "state"), "PAUSED");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_name"), "sweep");
  CU_ASSERT(chime_admin_table_is_null(t, 0, "prev_fire_ms"));
  CU_ASSERT(chime_admin_table_is_null(t, 0, "owner"));
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "name"), "daily-9am");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "kind"), "cron");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "state"), "WAITING");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "cron"), "0 0 9 * * ?");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "zone"), "Europe/Paris");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "misfire"), "smart");
  CU_ASSERT_EQUAL(chime_admin_table_get_column_type(
                      t, (size_t)chime_admin_table_get_column_index(t, "data")),
                  CHIME_ADMIN_BYTES);
  CU_ASSERT(INT(t, 1, "next_fire_ms") > chime_test_wall_ms() - 1000);
  CU_ASSERT_EQUAL(
      chime_admin_table_get_column_type(
          t, (size_t)chime_admin_table_get_column_index(t, "next_fire_ms")),
      CHIME_ADMIN_INT64);
  chime_admin_table_free(t);
}

static void failed_only(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_outcome(q, NULL, true), 0);
}

static void second_page(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_page(q, 1, 1), 0);
}

static void other_job(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_job(q, "reports", "daily"), 0);
}

static void outcome_ok_before_2000(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_outcome(q, "ok", false), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_started(q, 1, 946684800000), 0);
}

static void other_node(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_node(q, "no-such-node"), 0);
}

static int64_t ids_from; /* ids_after's after_id */

static void ids_after(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_ids(q, ids_from, 0), 0);
}

static void late_by_far(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_late(q, INT64_MAX / 2), 0);
}

static void late_in_1970(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_late(q, 1), 0);
}

/* The late triggers: waiting ones, earliest due first. */
static void check_late(chime_admin *a) {
  chime_admin_table *t = list(a, CHIME_ADMIN_TRIGGERS, late_by_far);
  size_t n = chime_admin_table_get_row_count(t);
  CU_ASSERT(n >= 1);
  for (size_t i = 0; i < n; i++) {
    CU_ASSERT_STRING_EQUAL(TEXT(t, i, "state"), "WAITING");
    CU_ASSERT(i == 0 ||
              INT(t, i - 1, "next_fire_ms") <= INT(t, i, "next_fire_ms"));
  }
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_TRIGGERS, late_in_1970);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
}

/* The runs after an id, oldest first, with their finish times. */
static void check_ids(chime_admin *a, int64_t newest) {
  ids_from = 0;
  chime_admin_table *t = list(a, CHIME_ADMIN_HISTORY, ids_after);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), RUNS);
  CU_ASSERT_EQUAL(INT(t, RUNS - 1, "id"), newest);
  CU_ASSERT(INT(t, 0, "id") < INT(t, 1, "id"));
  CU_ASSERT_EQUAL(INT(t, 0, "finished_ms"),
                  INT(t, 0, "started_ms") + INT(t, 0, "duration_ms"));
  ids_from = INT(t, 0, "id");
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_HISTORY, ids_after);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), RUNS - 1);
  chime_admin_table_free(t);
  ids_from = newest;
  t = list(a, CHIME_ADMIN_HISTORY, ids_after);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
}

static void check_history(chime_admin *a) {
  chime_admin_table *t = list(a, CHIME_ADMIN_HISTORY, NULL);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), RUNS);
  /* Newest first: the last run failed. */
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "outcome"), "FAILED");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "message"), "asked to fail");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_group"), "ops");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "node"), "admin-node");
  CU_ASSERT_EQUAL(INT(t, 0, "data_bytes"), 4);
  size_t len = 0;
  const void *data = chime_admin_table_get_bytes(t, 0, "data", &len);
  CU_ASSERT(len == 4 && data && memcmp(data, "fail", 4) == 0);
  CU_ASSERT_PTR_NULL(TEXT(t, 0, "data")); /* bytes: get_bytes only */
  CU_ASSERT_PTR_NULL(chime_admin_table_get_bytes(t, 0, "outcome", &len));
  CU_ASSERT_EQUAL(len, 0);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "outcome"), "OK");
  CU_ASSERT(INT(t, 0, "id") > INT(t, 1, "id"));
  CU_ASSERT(INT(t, 1, "started_ms") >= INT(t, 1, "scheduled_ms") - 60000);
  int64_t second = INT(t, 1, "id");
  check_ids(a, INT(t, 0, "id"));
  char fire[24];
  snprintf(fire, sizeof fire, "%s", TEXT(t, 1, "fire_id"));
  chime_admin_table_free(t);

  t = list(a, CHIME_ADMIN_HISTORY, failed_only);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 1);
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_HISTORY, second_page);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_EQUAL(INT(t, 0, "id"), second);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "fire_id"), fire);
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_HISTORY, other_job);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_HISTORY, outcome_ok_before_2000);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_HISTORY, other_node);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  /* Nothing is running any more. */
  t = list(a, CHIME_ADMIN_FIRES, NULL);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_column_count(t), 12);
  chime_admin_table_free(t);
}

/* The leases: a held one, then released (kept for its at_least). */
static void check_leases(chime_scheduler *s, chime_admin *a) {
  chime_lease *l = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_lease_acquire(s, "admin-lease", 60000, 30000, 0, &l), 0);
  chime_admin_table *t = list(a, CHIME_ADMIN_LEASES, NULL);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_EQUAL(chime_admin_table_get_column_count(t), 9);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "name"), "admin-lease");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "holder"), "admin-node");
  CU_ASSERT_EQUAL(INT(t, 0, "token"), chime_lease_get_token(l));
  CU_ASSERT_EQUAL(INT(t, 0, "expires_ms"), chime_lease_get_expires_ms(l));
  CU_ASSERT(INT(t, 0, "acquired_ms") < INT(t, 0, "expires_ms"));
  CU_ASSERT_EQUAL(INT(t, 0, "released"), 0);
  CU_ASSERT_EQUAL(INT(t, 0, "expired"), 0);
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL(chime_lease_release(l), 0);
  t = list(a, CHIME_ADMIN_LEASES, NULL);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_EQUAL(INT(t, 0, "released"), 1);
  CU_ASSERT_EQUAL(INT(t, 0, "expired"), 0); /* kept for its at_least */
  chime_admin_table_free(t);
  chime_lease_free(l);
}

#ifdef CHIME_TEST_MYSQL
static void by_test(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_audit(q, "test", NULL), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_started(q, 1, 0), 0);
}

static void by_nobody(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_audit(q, "nobody", NULL), 0);
}
#endif

/* The audit trail: the MySQL store records the drain asked as "test"; the
 * memory store keeps none and says so. */
static void check_audit(chime_admin *a) {
#ifdef CHIME_TEST_MYSQL
  chime_admin_table *t = list(a, CHIME_ADMIN_AUDIT, by_test);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "who"), "test");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "origin"), "test-admin");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "target"), "node admin-node");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "action"), "drain");
  CU_ASSERT(INT(t, 0, "at_ms") > chime_test_wall_ms() - 600000);
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_AUDIT, by_nobody);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
#else
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_AUDIT, &q), 0);
  chime_admin_table *t = NULL;
  CU_ASSERT_EQUAL(chime_admin_list(a, q, &t), CHIME_EUNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_admin_errmsg(a), "no audit trail"));
  CU_ASSERT_PTR_NULL(t);
  chime_admin_query_free(q);
#endif
}

/* Every list of a scheduler with runs recorded. */
static void check_all(chime_scheduler *s, chime_admin *a, bool self_listed) {
  check_nodes(a, self_listed);
  check_jobs(a);
  check_triggers(a);
  (void)s;
  check_late(a);
  check_history(a);
}

static void run_some(chime_scheduler *s, chime_admin *a) {
  CU_ASSERT_EQUAL(chime_scheduler_pause_trigger(s, "ops", "sweep-hourly"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  pthread_mutex_lock(&S.mu);
  S.done = 0;
  pthread_mutex_unlock(&S.mu);
  /* One run at a time, so that the history's order is theirs. */
  for (int i = 0; i < RUNS; i++) {
    const char *data = i == RUNS - 1 ? "fail" : "ok";
    CU_ASSERT_EQUAL(
        chime_scheduler_run_job(s, "ops", "sweep", data, strlen(data), NULL),
        0);
    CU_ASSERT_FATAL(wait_runs(a, i + 1));
  }
}

static void test_admin_lists(void) {
  chime_scheduler *s = scheduler();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_open_scheduler(s, &a), 0);
  run_some(s, a);
  check_all(s, a, true);
  check_leases(s, a);
  chime_admin_free(a);
#ifdef CHIME_TEST_MYSQL
  /* The tools' way in: by URL, as a node that lists only the cluster's. */
  char url[2048], err[256] = "";
  CU_ASSERT_EQUAL(
      chime_test_mysql_url_with(url, sizeof url, "prefix=chime_ad_"), 0);
  int r = chime_admin_open(url, NULL, &a, err, sizeof err);
  if (r)
    fprintf(stderr, "chime_admin_open: %s\n", err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  check_all(s, a, false);
  chime_admin_free(a);
#endif
  chime_scheduler_shutdown(s, true);
  chime_scheduler_free(s);
}

static void held_job(chime_admin_query *q) {
  CU_ASSERT_EQUAL(chime_admin_query_set_job(q, "ops", "held"), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_node(q, "admin-node"), 0);
}

/* A run in progress is listed among the fires, with its node. */
static void test_admin_fires(void) {
  chime_scheduler *s = scheduler();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_open_scheduler(s, &a), 0);
  chime_job *j = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("ops", "held", "hold", &j, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(j, true), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, j, true), 0);
  chime_job_free(j);
  pthread_mutex_lock(&S.mu);
  S.release = false;
  pthread_mutex_unlock(&S.mu);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "ops", "held", NULL, 0, NULL), 0);
  chime_admin_table *t = NULL;
  for (int i = 0; i < WAIT_MS / 20; i++) {
    chime_admin_table_free(t);
    t = list(a, CHIME_ADMIN_FIRES, held_job);
    if (chime_admin_table_get_row_count(t) == 1 &&
        strcmp(TEXT(t, 0, "state"), "EXECUTING") == 0)
      break;
    chime_test_sleep_ms(20);
  }
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "state"), "EXECUTING");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_name"), "held");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "node"), "admin-node");
  CU_ASSERT_EQUAL(INT(t, 0, "node_live"), 1);
  CU_ASSERT(INT(t, 0, "fire_id") > 0);
  CU_ASSERT(INT(t, 0, "scheduled_ms") > 0);
#ifdef CHIME_TEST_MYSQL
  CU_ASSERT(INT(t, 0, "running_ms") >= 0);
  CU_ASSERT(INT(t, 0, "acquired_ms") > 0);
#else
  CU_ASSERT(chime_admin_table_is_null(t, 0, "acquired_ms"));
#endif
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_NODES, NULL);
  CU_ASSERT_EQUAL(INT(t, 0, "running"), 1);
  chime_admin_table_free(t);
  pthread_mutex_lock(&S.mu);
  S.release = true;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
  chime_admin_free(a);
  chime_scheduler_shutdown(s, true);
  chime_scheduler_free(s);
}

/* The state column of trigger row i ("" when the list failed). */
static const char *trigger_state(chime_admin *a, const char *name, char *buf,
                                 size_t len) {
  chime_admin_table *t = list(a, CHIME_ADMIN_TRIGGERS, NULL);
  buf[0] = '\0';
  for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++)
    if (strcmp(TEXT(t, i, "name"), name) == 0)
      snprintf(buf, len, "%s", TEXT(t, i, "state"));
  chime_admin_table_free(t);
  return buf;
}

/* Pause, resume, delete, cancel and drain, read back through the lists. */
static void test_admin_actions(void) {
  chime_scheduler *s = scheduler();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_open_scheduler(s, &a), 0);
  char st[32];
  CU_ASSERT_EQUAL(chime_admin_set_paused(a, CHIME_ADMIN_TARGET_TRIGGER,
                                         "reports", "daily-9am", true),
                  0);
  CU_ASSERT_STRING_EQUAL(trigger_state(a, "daily-9am", st, sizeof st),
                         "PAUSED");
  CU_ASSERT_EQUAL(chime_admin_set_paused(a, CHIME_ADMIN_TARGET_TRIGGER,
                                         "reports", "daily-9am", false),
                  0);
  CU_ASSERT_STRING_EQUAL(trigger_state(a, "daily-9am", st, sizeof st),
                         "WAITING");
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_GROUP, "rep*", NULL, true),
      0);
  CU_ASSERT_STRING_EQUAL(trigger_state(a, "daily-9am", st, sizeof st),
                         "PAUSED");
  CU_ASSERT_STRING_EQUAL(trigger_state(a, "sweep-hourly", st, sizeof st),
                         "WAITING");
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_GROUP, "rep*", NULL, false),
      0);
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_ALL, NULL, NULL, true), 0);
  CU_ASSERT_STRING_EQUAL(trigger_state(a, "sweep-hourly", st, sizeof st),
                         "PAUSED");
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_ALL, NULL, NULL, false), 0);
  CU_ASSERT_STRING_EQUAL(trigger_state(a, "daily-9am", st, sizeof st),
                         "WAITING");
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_JOB, "ops", "sweep", true),
      0);
  chime_admin_table *t = list(a, CHIME_ADMIN_JOBS, only_ops);
  CU_ASSERT_EQUAL(INT(t, 0, "paused"), 1);
  chime_admin_table_free(t);
  /* Errors: unknown keys, half keys, a target that does not fit. */
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_TRIGGER, "no", "such", true),
      CHIME_ENOTFOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_admin_errmsg(a), "no.such"));
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_JOB, "no", "such", true),
      CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_JOB, "ops", NULL, true),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, CHIME_ADMIN_TARGET_ALL, "x", NULL, true),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(a, (chime_admin_target)9, NULL, NULL, true),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_admin_set_paused(NULL, CHIME_ADMIN_TARGET_ALL, NULL, NULL, true),
      CHIME_EINVAL);
  /* Cancel: a job with nothing running asks none; bad arguments. */
  size_t n = 99;
  CU_ASSERT_EQUAL(chime_admin_cancel(a, "ops", "sweep", 0, &n), 0);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_EQUAL(chime_admin_cancel(a, "no", "such", 0, &n), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_admin_cancel(a, NULL, NULL, 0, &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_cancel(a, "ops", "sweep", 5, &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_cancel(a, NULL, NULL, 123456, NULL), 0);
  /* Drain and undrain this node; another is unknown. */
  CU_ASSERT_EQUAL(
      chime_admin_set_drain(a, "admin-node", true, 0, "test", "test-admin"), 0);
  CU_ASSERT_EQUAL(chime_admin_set_drain(a, "admin-node", false, 0, NULL, NULL),
                  0);
  CU_ASSERT_EQUAL(chime_admin_set_drain(a, "no-such-node", true, 0, NULL, NULL),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_admin_set_drain(a, "admin-node", true, -1, NULL, NULL),
                  CHIME_EINVAL);
  check_audit(a);
  /* Delete: the trigger, then the job with its triggers. */
  CU_ASSERT_EQUAL(
      chime_admin_delete(a, CHIME_ADMIN_TARGET_TRIGGER, "ops", "sweep-hourly"),
      0);
  CU_ASSERT_EQUAL(
      chime_admin_delete(a, CHIME_ADMIN_TARGET_TRIGGER, "ops", "sweep-hourly"),
      CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(
      chime_admin_delete(a, CHIME_ADMIN_TARGET_JOB, "reports", "daily"), 0);
  CU_ASSERT_EQUAL(
      chime_admin_delete(a, CHIME_ADMIN_TARGET_GROUP, "reports", "daily"),
      CHIME_EINVAL);
  t = list(a, CHIME_ADMIN_TRIGGERS, NULL);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_JOBS, NULL);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 1); /* ops.sweep */
  chime_admin_table_free(t);
  chime_admin_free(a);
  chime_scheduler_free(s);
}

static void test_admin_errors(void) {
  chime_admin *a = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL(chime_admin_open(NULL, NULL, &a, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_open("memory:", NULL, &a, err, sizeof err),
                  CHIME_EUNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "chime_admin_open_scheduler"));
  CU_ASSERT_EQUAL(chime_admin_open("mysql://u:pw@127.0.0.1:1/db?clear=1", NULL,
                                   &a, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(strstr(err, "pw"));
  CU_ASSERT_EQUAL(chime_admin_open("bogus", NULL, &a, NULL, 0), CHIME_EURL);
  CU_ASSERT_PTR_NULL(a);
  CU_ASSERT_EQUAL(chime_admin_open_scheduler(NULL, &a), CHIME_EINVAL);
  /* The schema's state: only a MySQL store has one. */
  long v = -1, latest = -1, compat = -1;
  CU_ASSERT_EQUAL(
      chime_admin_get_schema_state(NULL, &v, &latest, &compat, err, sizeof err),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_get_schema_state("memory:", &v, &latest, &compat,
                                               err, sizeof err),
                  CHIME_EUNSUPPORTED);
  CU_ASSERT_EQUAL(
      chime_admin_get_schema_state("bogus", &v, &latest, &compat, NULL, 0),
      CHIME_EURL);
#ifdef CHIME_TEST_MYSQL
  CU_ASSERT_EQUAL(chime_admin_get_schema_state("mysql://u:pw@127.0.0.1:1/db",
                                               &v, &latest, &compat, err,
                                               sizeof err),
                  CHIME_ECONNECT);
  CU_ASSERT_PTR_NULL(strstr(err, "pw"));
  CU_ASSERT_EQUAL(chime_admin_get_schema_state(store_url, &v, &latest, &compat,
                                               err, sizeof err),
                  0);
  CU_ASSERT(latest > 0);
  CU_ASSERT_EQUAL(v, latest); /* created by the scheduler's auto_create */
  CU_ASSERT_EQUAL(compat, 0);
#endif
  CU_ASSERT_STRING_EQUAL(chime_admin_errmsg(NULL), "");
  chime_admin_free(NULL);

  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL(chime_admin_query_new((chime_admin_kind)0, &q), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_new((chime_admin_kind)99, &q),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_new(CHIME_ADMIN_NODES, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_HISTORY, &q), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_job(q, "g", NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_trigger(q, NULL, "n"), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_fire(q, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_started(q, -1, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_ids(q, 5, 5), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_ids(q, -1, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_ids(NULL, 0, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_late(q, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_page(q, 0, CHIME_ADMIN_MAX_LIMIT + 1),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_group(NULL, "x"), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_node(NULL, "x"), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_query_set_outcome(NULL, "ok", false),
                  CHIME_EINVAL);
  chime_admin_table *t = NULL;
  CU_ASSERT_EQUAL(chime_admin_list(NULL, q, &t), CHIME_EINVAL);
  chime_admin_query_free(q);
  chime_admin_query_free(NULL);

  /* A table's getters on NULL, an unknown column, a row out of range. */
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(NULL), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_column_count(NULL), 0);
  CU_ASSERT_PTR_NULL(chime_admin_table_get_column_name(NULL, 0));
  CU_ASSERT_EQUAL(chime_admin_table_get_column_index(NULL, "id"), CHIME_EINVAL);
  CU_ASSERT(chime_admin_table_is_null(NULL, 0, "id"));
  CU_ASSERT_PTR_NULL(chime_admin_table_get_text(NULL, 0, "id"));
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(NULL, 0, "id"), 0);
  chime_scheduler *s = scheduler();
  CU_ASSERT_EQUAL_FATAL(chime_admin_open_scheduler(s, &a), 0);
  t = list(a, CHIME_ADMIN_JOBS, NULL);
  CU_ASSERT_EQUAL(chime_admin_table_get_column_index(t, "no_such"),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_admin_table_get_column_index(t, "group"), 0);
  CU_ASSERT_PTR_NULL(TEXT(t, 0, "no_such"));
  CU_ASSERT_PTR_NULL(TEXT(t, 99, "group"));
  CU_ASSERT_EQUAL(INT(t, 0, "group"), 0); /* a text column */
  CU_ASSERT(chime_admin_table_is_null(t, 99, "group"));
  CU_ASSERT_PTR_NULL(chime_admin_table_get_column_name(t, 99));
  chime_admin_table_free(t);
  chime_admin_free(a);
  chime_scheduler_free(s);
}

static CU_TestInfo tests[] = {
    {"nodes, jobs, triggers, fires and history, filtered and paged",
     test_admin_lists},
    {"a run in progress among the fires", test_admin_fires},
    {"pause, resume, delete, cancel and drain", test_admin_actions},
    {"bad handles, queries and columns", test_admin_errors},
    CU_TEST_INFO_NULL,
};

static int init(void) {
#ifdef CHIME_TEST_MYSQL
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_ad_");
#else
  return 0;
#endif
}

int main(void) {
  CU_SuiteInfo suites[] = {
#ifdef CHIME_TEST_MYSQL
      {.pName = "engine/admin-mysql", .pInitFunc = init, .pTests = tests},
#else
      {.pName = "engine/admin", .pInitFunc = init, .pTests = tests},
#endif
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
#ifdef CHIME_TEST_MYSQL
  mysql_library_end();
#endif
  return r;
}
