/*
 * test-bench-db.c: chime-bench's own database connection (bench/chime-bench
 * /db.c) outlives a restart of the server (issue 22, finding 9): a status
 * query before `$CHIME_DEV db-restart` and the same query on the same
 * handle after it both answer, so the bench can measure a restart under
 * load instead of dying.  It restarts the server: meson suite 'cluster'
 * (run alone).
 */
#include "bench/chime-bench/bench.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

/* db.c's sleeps end early on the bench's interrupt flag (nodes.c, not
 * linked here): never set in this test. */
volatile sig_atomic_t bench_interrupted;

static void test_bench_db_status_survives_a_restart(void) {
  chime_test_need_dev();
  const char *text = chime_test_mysql_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  chime_mysql_url *url = NULL;
  MYSQL *db = bench_db_open(text, &url);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  /* The throwaway server runs here: the bench may watch its process. */
  CU_ASSERT(bench_db_is_local(db));
  int64_t before = -1, after = -1;
  CU_ASSERT_EQUAL(bench_db_status(db, "Uptime", &before), 0);
  CU_ASSERT_EQUAL_FATAL(chime_test_dev_run("db-restart"), 0);
  CU_ASSERT_EQUAL(bench_db_status(db, "Uptime", &after), 0);
  CU_ASSERT(after >= 0);
  mysql_close(db);
  chime_mysql_url_free(url);
}

static CU_TestInfo tests[] = {
    {"finding 9: the statistics connection survives a restart",
     test_bench_db_status_survives_a_restart},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "bench/bench-db", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
