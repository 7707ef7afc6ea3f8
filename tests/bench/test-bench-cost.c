/*
 * test-bench-cost.c: the database's cost per fire in chime-bench's line
 * (bench/chime-bench/cost.c, issue 32): the counters' deltas over the
 * window, divided per second and per run; a counter unknown or gone
 * backwards (a server restarted in the window) and a window with no run
 * print NA, never a negative or infinite figure.
 */
#include "bench/chime-bench/bench.h"
#include "harness.h"

#include <string.h>

/* A 10 s window at 1,000 runs a second on a server at 120% of a core. */
static const bench_db_sample at_w0 = {.handler_commits = 1000,
                                      .com_commits = 500,
                                      .questions = 7000,
                                      .fsyncs = 40,
                                      .rows_written = 100,
                                      .db_ticks = 2000};
static const bench_db_sample at_w1 = {.handler_commits = 51000,
                                      .com_commits = 50500,
                                      .questions = 207000,
                                      .fsyncs = 8040,
                                      .rows_written = 60100,
                                      .db_ticks = 3200};

static void test_per_fire(void) {
  bench_db_cost c;
  bench_cost_between(&at_w0, &at_w1, 10.0, 10.0, 100, &c);
  CU_ASSERT_EQUAL(c.handler_commits, 50000);
  CU_ASSERT_EQUAL(c.com_commits, 50000);
  CU_ASSERT_EQUAL(c.questions, 200000);
  CU_ASSERT_DOUBLE_EQUAL(c.db_cpu_s, 12.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(bench_cost_db_cpu_pct(&c), 120.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(bench_cost_commits_per_s(&c), 5000.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(bench_cost_fsyncs_per_s(&c), 800.0, 1e-9);
  char line[256];
  size_t n = bench_cost_format(&c, 10000, line, sizeof line);
  CU_ASSERT_STRING_EQUAL(line, "\tcom_commit_per_s=5000.0"
                               "\tcommits_per_fire=5.000"
                               "\tcom_commit_per_fire=5.000"
                               "\tstatements_per_fire=20.000"
                               "\trows_written_per_fire=6.000"
                               "\tdb_cpu_us_per_fire=1200.0");
  CU_ASSERT_EQUAL(n, strlen(line));
}

static void test_cpu_uses_wall_time(void) {
  /* The samples took 12 s of wall time for a 10 s window: the CPU share
   * is over the wall time, the rates over the window. */
  bench_db_cost c;
  bench_cost_between(&at_w0, &at_w1, 10.0, 12.0, 100, &c);
  CU_ASSERT_DOUBLE_EQUAL(bench_cost_db_cpu_pct(&c), 100.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(bench_cost_commits_per_s(&c), 5000.0, 1e-9);
}

static void test_unknown_is_na(void) {
  /* A server elsewhere (no CPU reading), counters that went backwards (a
   * restart in the window). */
  bench_db_sample a = at_w0, b = at_w1;
  a.db_ticks = -1;
  a.rows_written = -1;
  b.com_commits = 10;
  b.questions = 5;
  bench_db_cost c;
  bench_cost_between(&a, &b, 10.0, 10.0, 100, &c);
  CU_ASSERT(bench_cost_db_cpu_pct(&c) < 0);
  CU_ASSERT_EQUAL(c.com_commits, -1);
  char line[256];
  bench_cost_format(&c, 10000, line, sizeof line);
  CU_ASSERT_STRING_EQUAL(line, "\tcom_commit_per_s=NA"
                               "\tcommits_per_fire=5.000"
                               "\tcom_commit_per_fire=NA"
                               "\tstatements_per_fire=NA"
                               "\trows_written_per_fire=NA"
                               "\tdb_cpu_us_per_fire=NA");
  /* No run in the window: nothing per fire. */
  bench_cost_between(&at_w0, &at_w1, 10.0, 10.0, 100, &c);
  bench_cost_format(&c, 0, line, sizeof line);
  CU_ASSERT_STRING_EQUAL(line, "\tcom_commit_per_s=5000.0"
                               "\tcommits_per_fire=NA"
                               "\tcom_commit_per_fire=NA"
                               "\tstatements_per_fire=NA"
                               "\trows_written_per_fire=NA"
                               "\tdb_cpu_us_per_fire=NA");
}

static void test_short_buffer(void) {
  bench_db_cost c;
  bench_cost_between(&at_w0, &at_w1, 10.0, 10.0, 100, &c);
  char line[16];
  size_t n = bench_cost_format(&c, 10000, line, sizeof line);
  CU_ASSERT_EQUAL(n, sizeof line - 1);
  CU_ASSERT_EQUAL(strlen(line), sizeof line - 1);
  CU_ASSERT_EQUAL(bench_cost_format(&c, 10000, line, 0), 0);
}

static CU_TestInfo tests[] = {
    {"commits, statements, rows and CPU per fire", test_per_fire},
    {"CPU over wall time, rates over the window", test_cpu_uses_wall_time},
    {"unknown counters and no runs print NA", test_unknown_is_na},
    {"a short buffer is truncated, terminated", test_short_buffer},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "bench/bench-cost", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
