/*
 * harness.h: what every CUnit runner shares: running the suites and
 * exiting non-zero on any failure, and opening the test database.
 */
#ifndef CHIME_TESTS_HARNESS_H
#define CHIME_TESTS_HARNESS_H

#include "chime.h"

#include <CUnit/CUnit.h>

/*
 * chime_test_main: registers suites (a CU_SUITE_INFO_NULL-terminated array
 * built with designated initializers), runs them verbosely, prints CUnit's
 * run summary, and returns the process exit status: 0 only when every test
 * ran and passed, no suite failed to initialise, and at least one test ran.
 */
int chime_test_main(CU_SuiteInfo *suites);

/* chime_test_wall_ms: the wall clock, in ms since the Unix epoch. */
int64_t chime_test_wall_ms(void);

/* chime_test_sleep_ms: sleeps ms milliseconds (resumed after a signal).
 * For pacing a test's own steps only: a test waits for events, not for
 * time to pass. */
void chime_test_sleep_ms(long ms);

/*
 * chime_test_data_path: the absolute path of a file under tests/data/
 * (meson passes the folder as CHIME_TEST_DATA_DIR).  Returns a static
 * buffer overwritten by the next call.
 */
const char *chime_test_data_path(const char *name);

/*
 * chime_test_set_retry: chime_job_set_retry with a policy of these parts
 * (chime_retry_set_*: a refused part's error is returned, the job
 * unchanged); chime_test_set_retry_timed_out: the job's policy with its
 * timed_out flag set.
 * Returns: 0; CHIME_EINVAL; CHIME_ENOMEM.
 */
int chime_test_set_retry(chime_job *job, int max_attempts, int64_t delay_ms,
                         double multiplier, int64_t max_delay_ms,
                         int64_t jitter_ms);
int chime_test_set_retry_timed_out(chime_job *job, bool yes);

/*
 * chime_test_scheduler_new: chime_scheduler_new(cfg), then frees cfg.  When
 * it fails, prints the error's name and detail and fails the test (fatal).
 * Returns: the scheduler (not started).
 */
chime_scheduler *chime_test_scheduler_new(chime_config *cfg);

/*
 * chime_test_need_dev: for tests that stop or restart the database with
 * ./dev (CHIME_DEV): when CHIME_DEV is not set, says how to run the test
 * and fails it (fatal).  Call it first, on the test's thread.
 */
void chime_test_need_dev(void);

/*
 * chime_test_dev_run: runs "$CHIME_DEV command" (db-down, db-up,
 * db-restart), its output discarded.  Returns: its exit status as
 * system() gives it, -1 when CHIME_DEV is not set.  Thread: any (it
 * records nothing in CUnit).
 */
int chime_test_dev_run(const char *command);

/*
 * chime_test_tzif_fixed: writes into buf (at least 128 bytes) a TZif
 * version 2 image of one fixed offset, secs (>= 0, < 24 h) east of UTC,
 * named "TST": no transitions, one type, the footer "<TST>-h:mm:ss".
 * Returns its length.
 */
size_t chime_test_tzif_fixed(int secs, unsigned char *buf);

/*
 * chime_test_write_zone: writes path as a tzdata package does: a new file
 * (chime_test_tzif_fixed(secs)) renamed over the old one, so a new inode.
 * Returns: 0, or -1 with errno set.
 */
int chime_test_write_zone(const char *path, int secs);

#ifdef CHIME_TEST_MYSQL
#include <mysql.h>

/*
 * chime_test_mysql_url: the URL of the test database from the environment
 * variable CHIME_TEST_MYSQL_URL.  When it is not set this records a CUnit
 * failure saying how to run the test, and returns NULL.
 */
const char *chime_test_mysql_url(void);

/*
 * chime_test_mysql_url_with: writes into buf (len bytes) the test database's
 * URL with params ("k=v&k=v") appended.  Returns: 0, or 1 when the URL is
 * not set (a CUnit failure is recorded) or does not fit: a suite's init
 * function can return it as it is.
 */
int chime_test_mysql_url_with(char *buf, size_t len, const char *params);

/*
 * chime_test_mysql_config: a new configuration whose store is the test
 * database with params appended (as chime_test_mysql_url_with) and whose
 * instance id is instance_id; fails the test (fatal) when it cannot.
 * Ownership: the caller's (chime_config_free, or chime_test_scheduler_new).
 */
chime_config *chime_test_mysql_config(const char *params,
                                      const char *instance_id);

/*
 * chime_test_mysql_open: a connection to the test database.  When the
 * database is unreachable it records a CUnit failure with the reason and
 * how to start the server (never a skip), and returns NULL: callers assert
 * the result with CU_ASSERT_PTR_NOT_NULL_FATAL.
 */
MYSQL *chime_test_mysql_open(void);
#endif

#endif /* CHIME_TESTS_HARNESS_H */
