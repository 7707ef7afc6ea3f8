/*
 * test-mysql-replica.c: a read-only server is not a usable member
 * (issue 30, fault 2), on the primary-replica pair of ./dev replica-up
 * (tests/replica/replica.py runs it with CHIME_TEST_MYSQL_URL listing the
 * read-only replica FIRST, then the primary):
 *   - the errors of a read-only server (1290, 1792) are ones that make
 *     the store leave the member, not store failures;
 *   - a URL whose first host is read-only connects to the second;
 *   - a URL of the read-only host alone is refused with CHIME_ECONNECT,
 *     saying why;
 *   - a scheduler on that URL creates its schema and fires its trigger
 *     on the primary (it never wrote to the replica: the chime user has
 *     no right to, so every write there would fail with 1290).
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/tx.h"

#include <errno.h>
#include <mysqld_error.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static chime__mysql_url *test_url(void) {
  chime__mysql_url *u = NULL;
  const char *text = chime_test_mysql_url();
  if (text)
    CU_ASSERT_EQUAL(chime__mysql_url_parse(text, &u, NULL, 0), 0);
  return u;
}

static void test_replica_errors_leave_member(void) {
  CU_ASSERT_TRUE(chime__mysql_read_only_error(ER_OPTION_PREVENTS_STATEMENT));
  CU_ASSERT_TRUE(
      chime__mysql_read_only_error(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION));
  CU_ASSERT_FALSE(chime__mysql_read_only_error(ER_DUP_ENTRY));
  CU_ASSERT_FALSE(chime__mysql_read_only_error(ER_LOCK_DEADLOCK));
  CU_ASSERT_TRUE(chime__mysql_lost(ER_OPTION_PREVENTS_STATEMENT));
  CU_ASSERT_TRUE(chime__mysql_lost(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION));
  CU_ASSERT_EQUAL(chime__mysql_error_code(ER_OPTION_PREVENTS_STATEMENT),
                  CHIME_ECONNECT);
  CU_ASSERT_EQUAL(
      chime__mysql_error_code(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION),
      CHIME_ECONNECT);
}

/* The URL lists the replica first: the connection opens on the second
 * host, the primary, whichever member the search starts from. */
static void test_replica_first_host_read_only(void) {
  chime__mysql_url *u = test_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  CU_ASSERT_EQUAL_FATAL(u->nhosts, 2);
  for (size_t first = 0; first < 2; first++) {
    MYSQL *db = NULL;
    char err[512] = "x";
    chime__mysql_member_info info = {.member = 9};
    CU_ASSERT_EQUAL_FATAL(chime__mysql_connect_member(u, first, 2, 0, &db,
                                                      &info, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(info.member, 1);
    CU_ASSERT_FALSE(info.galera);
    CU_ASSERT_STRING_EQUAL(err, "");
    /* The server it opened on takes writes. */
    CU_ASSERT_EQUAL(mysql_query(db, "SELECT @@global.read_only"), 0);
    MYSQL_RES *res = mysql_store_result(db);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    MYSQL_ROW row = mysql_fetch_row(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CU_ASSERT_STRING_EQUAL(row[0], "0");
    mysql_free_result(res);
    mysql_close(db);
  }
  chime__mysql_url_free(u);
}

/* The read-only host alone: refused, naming it and why. */
static void test_replica_only_read_only_refused(void) {
  chime__mysql_url *u = test_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  u->nhosts = 1; /* the replica only (hosts[1] is freed with the URL) */
  MYSQL *db = NULL;
  char err[512] = "";
  CU_ASSERT_EQUAL(chime__mysql_connect(u, 2, &db, err, sizeof err),
                  CHIME_ECONNECT);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "read-only (read_only ON)"));
  CU_ASSERT_PTR_NULL(strstr(err, "chime-test-pw"));
  u->nhosts = 2;
  chime__mysql_url_free(u);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int runs;

static void count_run(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  pthread_mutex_lock(&mu);
  runs++;
  pthread_mutex_unlock(&mu);
}

static int runs_now(void) {
  pthread_mutex_lock(&mu);
  int n = runs;
  pthread_mutex_unlock(&mu);
  return n;
}

/* A scheduler whose URL lists the replica first works on the primary. */
static void test_replica_scheduler_on_primary(void) {
  chime_config *cfg =
      chime_test_mysql_config("prefix=chime_rp_&auto_create=1&clear=1", "rp-1");
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "replica"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "count", count_run, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "j", "count", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("g", "t", 100, 2, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  for (int i = 0; i < 750 && runs_now() < 3; i++)
    chime_test_sleep_ms(20);
  CU_ASSERT_EQUAL(runs_now(), 3);
  chime_scheduler_free(s);
}

static CU_TestInfo replica_tests[] = {
    {"read-only errors leave the member", test_replica_errors_leave_member},
    {"a read-only first host: the second is used",
     test_replica_first_host_read_only},
    {"a read-only host alone is refused, saying why",
     test_replica_only_read_only_refused},
    {"a scheduler on the URL runs on the primary",
     test_replica_scheduler_on_primary},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-replica", .pTests = replica_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
