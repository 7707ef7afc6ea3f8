/*
 * test-lease.c: named leases through the public API (chime.h's
 * chime_lease_*, chime_lease_run) on a scheduler that is never started:
 * on the memory store, and, with CHIME_TEST_MYSQL defined, on the
 * throwaway MariaDB, where two nodes (one with its clock ten minutes off)
 * contend for one lease.  Waits poll with wide deadlines.
 */
#include "chime.h"
#include "core/clock.h"
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#ifdef CHIME_TEST_MYSQL
#include <mysql.h>
#endif

#define WAIT_MAX_MS 20000

static char store_url[2048] = "memory:";

/* A scheduler on store_url (with extra URL parameters when not NULL),
 * never started. */
static chime_scheduler *sched_with(const char *extra) {
  char url[2200];
  snprintf(url, sizeof url, "%s%s", store_url, extra ? extra : "");
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, url), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  return s;
}

/* A scheduler on an empty store. */
static chime_scheduler *sched(void) {
#ifdef CHIME_TEST_MYSQL
  return sched_with("&clear=1");
#else
  return sched_with(NULL);
#endif
}

static void test_lease_never_started(void) {
  chime_scheduler *s = sched();
  CU_ASSERT_EQUAL(chime_scheduler_get_state(s), CHIME_SCHEDULER_STANDBY);
  chime_lease *a = NULL, *b = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "report", 60000, 0, 0, &a), 0);
  CU_ASSERT(chime_lease_get_token(a) >= 1);
  CU_ASSERT_STRING_EQUAL(chime_lease_get_name(a), "report");
  CU_ASSERT(chime_lease_get_expires_ms(a) > 0);
  CU_ASSERT_TRUE(chime_lease_is_held(a));
  CU_ASSERT_EQUAL(chime_lease_acquire(s, "report", 60000, 0, 0, &b),
                  CHIME_EBUSY);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_PTR_NOT_NULL(strstr(chime_scheduler_errmsg(s), "held"));
  CU_ASSERT_EQUAL(chime_lease_extend(a, 30000), 0);
  CU_ASSERT_EQUAL(chime_lease_release(a), 0);
  CU_ASSERT_FALSE(chime_lease_is_held(a));
  /* Released: a second release or an extension is refused. */
  CU_ASSERT_EQUAL(chime_lease_release(a), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(chime_lease_extend(a, 1000), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "report", 60000, 0, 0, &b), 0);
  CU_ASSERT(chime_lease_get_token(b) > chime_lease_get_token(a));
  chime_lease_free(a);
  /* Freeing a held lease releases it. */
  int64_t tb = chime_lease_get_token(b);
  chime_lease_free(b);
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "report", 60000, 0, 0, &a), 0);
  CU_ASSERT(chime_lease_get_token(a) > tb);
  chime_lease_free(a);
  chime_scheduler_free(s);
}

static void test_lease_bad_arguments(void) {
  chime_scheduler *s = sched();
  chime_lease *l = NULL;
  static const struct {
    const char *name;
    int64_t at_most, at_least, wait;
    int code;
    int line;
  } rows[] = {
      {NULL, 1000, 0, 0, CHIME_EINVAL, __LINE__},
      {"", 1000, 0, 0, CHIME_EINVAL, __LINE__},
      {"bad\nname", 1000, 0, 0, CHIME_EINVAL, __LINE__},
      {"x", 0, 0, 0, CHIME_EINVAL, __LINE__},
      {"x", -5, 0, 0, CHIME_EINVAL, __LINE__},
      {"x", 1000, -1, 0, CHIME_EINVAL, __LINE__},
      {"x", 1000, 1001, 0, CHIME_EINVAL, __LINE__},
      {"x", 1000, 0, -1, CHIME_EINVAL, __LINE__},
      {"x", CHIME_LEASE_MAX_MS + 1, 0, 0, CHIME_ELIMIT, __LINE__},
      {"x", 1000, 0, CHIME_LEASE_MAX_MS + 1, CHIME_ELIMIT, __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int r = chime_lease_acquire(s, rows[i].name, rows[i].at_most,
                                rows[i].at_least, rows[i].wait, &l);
    if (r != rows[i].code)
      fprintf(stderr, "row at line %d: %s\n", rows[i].line, chime_err_name(r));
    CU_ASSERT_EQUAL(r, rows[i].code);
    CU_ASSERT(strlen(chime_scheduler_errmsg(s)) > 0);
  }
  char long_name[CHIME_MAX_NAME_LEN + 2];
  memset(long_name, 'n', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  CU_ASSERT_EQUAL(chime_lease_acquire(s, long_name, 1000, 0, 0, &l),
                  CHIME_ELIMIT);
  CU_ASSERT_EQUAL(chime_lease_acquire(s, "x", 1000, 0, 0, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_lease_acquire(NULL, "x", 1000, 0, 0, &l), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_lease_run(s, "x", 1000, 0, NULL, NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_lease_run(NULL, "x", 1000, 0, NULL, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(l);
  /* NULL handles are safe. */
  CU_ASSERT_EQUAL(chime_lease_get_token(NULL), 0);
  CU_ASSERT_PTR_NULL(chime_lease_get_name(NULL));
  CU_ASSERT_EQUAL(chime_lease_get_expires_ms(NULL), 0);
  CU_ASSERT_EQUAL(chime_lease_extend(NULL, 1000), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_lease_release(NULL), CHIME_EINVAL);
  CU_ASSERT_FALSE(chime_lease_is_held(NULL));
  CU_ASSERT_EQUAL(chime_lease_set_keep_alive(NULL, true), CHIME_EINVAL);
  chime_lease_free(NULL);
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "x", 1000, 0, 0, &l), 0);
  CU_ASSERT_EQUAL(chime_lease_extend(l, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_lease_extend(l, CHIME_LEASE_MAX_MS + 1), CHIME_ELIMIT);
  chime_lease_free(l);
  chime_scheduler_free(s);
}

/* ------------------------------------------------------------- waiting */

typedef struct waiter {
  chime_scheduler *s;
  atomic_bool waiting;
  int result;
  int64_t token;
} waiter;

static void *wait_main(void *arg) {
  waiter *w = arg;
  chime_lease *l = NULL;
  atomic_store(&w->waiting, true);
  w->result = chime_lease_acquire(w->s, "queue", 60000, 0, WAIT_MAX_MS, &l);
  w->token = chime_lease_get_token(l);
  chime_lease_free(l);
  return NULL;
}

static void test_lease_acquire_waits(void) {
  chime_scheduler *s = sched();
  chime_lease *held = NULL, *l = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "queue", 60000, 0, 0, &held), 0);
  /* Held throughout: the wait ends with EBUSY after its bound. */
  int64_t start = chime__mono_ms();
  CU_ASSERT_EQUAL(chime_lease_acquire(s, "queue", 1000, 0, 300, &l),
                  CHIME_EBUSY);
  CU_ASSERT(chime__mono_ms() - start >= 300);
  /* Released while another thread waits: it gets the lease. */
  waiter w = {.s = s};
  pthread_t t;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_main, &w), 0);
  while (!atomic_load(&w.waiting))
    chime__sleep_ms(5);
  chime__sleep_ms(50); /* not needed for the outcome: lets it try once */
  CU_ASSERT_EQUAL(chime_lease_release(held), 0);
  pthread_join(t, NULL);
  CU_ASSERT_EQUAL(w.result, 0);
  CU_ASSERT(w.token > chime_lease_get_token(held));
  chime_lease_free(held);
  chime_scheduler_free(s);
}

/* ----------------------------------------------------- chime_lease_run */

typedef struct section {
  int runs;
  int64_t token;
  bool held_inside;
} section;

static void section_fn(chime_lease *lease, void *arg) {
  section *sec = arg;
  sec->runs++;
  sec->token = chime_lease_get_token(lease);
  sec->held_inside = chime_lease_is_held(lease);
}

static void test_lease_with_lease(void) {
  chime_scheduler *s = sched();
  section sec = {0};
  CU_ASSERT_EQUAL(chime_lease_run(s, "nightly", 60000, 0, section_fn, &sec), 0);
  CU_ASSERT_EQUAL(sec.runs, 1);
  CU_ASSERT(sec.token >= 1);
  CU_ASSERT_TRUE(sec.held_inside);
  /* Held elsewhere: fn does not run. */
  chime_lease *other = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "nightly", 60000, 0, 0, &other),
                        0);
  CU_ASSERT_EQUAL(chime_lease_run(s, "nightly", 60000, 0, section_fn, &sec),
                  CHIME_EBUSY);
  CU_ASSERT_EQUAL(sec.runs, 1);
  chime_lease_free(other);
  /* at_least: a quick section keeps the lease after it returns. */
  CU_ASSERT_EQUAL(chime_lease_run(s, "nightly", 60000, 30000, section_fn, &sec),
                  0);
  CU_ASSERT_EQUAL(sec.runs, 2);
  CU_ASSERT_EQUAL(chime_lease_run(s, "nightly", 60000, 0, section_fn, &sec),
                  CHIME_EBUSY);
  CU_ASSERT_EQUAL(sec.runs, 2);
  chime_scheduler_free(s);
}

/* ------------------------------------------------ expiry and keep-alive */

/* Waits until l is no longer held (fails the test after WAIT_MAX_MS). */
static void wait_lost(chime_lease *l) {
  int64_t start = chime__mono_ms();
  while (chime_lease_is_held(l)) {
    CU_ASSERT_FATAL(chime__mono_ms() - start < WAIT_MAX_MS);
    chime__sleep_ms(20);
  }
}

static void test_lease_stale_holder(void) {
  chime_scheduler *s = sched();
  chime_lease *stale = NULL, *next = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "stale", 300, 0, 0, &stale), 0);
  wait_lost(stale);
  CU_ASSERT_EQUAL(chime_lease_extend(stale, 1000), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(chime_lease_release(stale), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(chime_lease_set_keep_alive(stale, true), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "stale", 60000, 0, 0, &next), 0);
  CU_ASSERT(chime_lease_get_token(next) > chime_lease_get_token(stale));
  chime_lease_free(stale); /* frees without touching next's lease */
  CU_ASSERT_TRUE(chime_lease_is_held(next));
  chime_lease_free(next);
  chime_scheduler_free(s);
}

static void test_lease_keep_alive(void) {
  chime_scheduler *s = sched();
  chime_lease *l = NULL, *b = NULL;
  const int64_t at_most = 600;
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "kept", at_most, 0, 0, &l), 0);
  int64_t first_expiry = chime_lease_get_expires_ms(l);
  CU_ASSERT_EQUAL(chime_lease_set_keep_alive(l, true), 0);
  CU_ASSERT_EQUAL(chime_lease_set_keep_alive(l, true), 0); /* already on */
  /* Three leases' length later it is still held, and extended. */
  int64_t start = chime__mono_ms();
  while (chime__mono_ms() - start < 3 * at_most) {
    CU_ASSERT_TRUE_FATAL(chime_lease_is_held(l));
    chime__sleep_ms(50);
  }
  CU_ASSERT(chime_lease_get_expires_ms(l) > first_expiry);
  CU_ASSERT_EQUAL(chime_lease_acquire(s, "kept", at_most, 0, 0, &b),
                  CHIME_EBUSY);
  /* Off: the lease runs out by itself. */
  CU_ASSERT_EQUAL(chime_lease_set_keep_alive(l, false), 0);
  wait_lost(l);
  CU_ASSERT_EQUAL(chime_lease_release(l), CHIME_ENOTOWNER);
  chime_lease_free(l);
  /* Freed with the keep-alive on: it stops, and the lease is released. */
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "kept", at_most, 0, 0, &l), 0);
  CU_ASSERT_EQUAL(chime_lease_set_keep_alive(l, true), 0);
  chime_lease_free(l);
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "kept", at_most, 0, 0, &b), 0);
  chime_lease_free(b);
  chime_scheduler_free(s);
}

static void test_lease_after_shutdown(void) {
  chime_scheduler *s = sched();
  chime_lease *l = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "late", 60000, 0, 0, &l), 0);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_NO_WAIT), 0);
  chime_lease *m = NULL;
  CU_ASSERT_EQUAL(chime_lease_acquire(s, "other", 60000, 0, 0, &m),
                  CHIME_ESHUTDOWN);
  /* A lease taken before still releases. */
  CU_ASSERT_EQUAL(chime_lease_release(l), 0);
  chime_lease_free(l);
  chime_scheduler_free(s);
}

#ifdef CHIME_TEST_MYSQL
/* Two nodes, one whose clock is ten minutes ahead: the lease of either
 * lasts at_most by the database's clock, for both. */
static void test_lease_two_nodes_skewed(void) {
  chime_scheduler *a = sched();
  chime_scheduler *b = sched_with("&test_clock_offset_ms=600000");
  chime_lease *la = NULL, *lb = NULL;
  const int64_t at_most = 800;
  int64_t start = chime__mono_ms();
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(b, "shared", at_most, 0, 0, &lb),
                        0);
  CU_ASSERT_EQUAL(chime_lease_acquire(a, "shared", at_most, 0, 0, &la),
                  CHIME_EBUSY);
  CU_ASSERT_EQUAL_FATAL(
      chime_lease_acquire(a, "shared", at_most, 0, WAIT_MAX_MS, &la), 0);
  CU_ASSERT(chime__mono_ms() - start >= at_most - 50);
  CU_ASSERT(chime_lease_get_token(la) > chime_lease_get_token(lb));
  /* The skewed node's stale lease is refused; the other's is untouched. */
  CU_ASSERT_EQUAL(chime_lease_extend(lb, at_most), CHIME_ENOTOWNER);
  CU_ASSERT_TRUE(chime_lease_is_held(la));
  /* And the other way round. */
  CU_ASSERT_EQUAL(chime_lease_release(la), 0);
  chime_lease_free(lb);
  lb = NULL;
  CU_ASSERT_EQUAL(chime_lease_acquire(b, "shared", at_most, 0, 0, &lb), 0);
  chime_lease_free(la);
  chime_lease_free(lb);
  chime_scheduler_free(a);
  chime_scheduler_free(b);
}

/* A restore that recreates the leases table empty (or loads an older
 * copy of it) must not send tokens back: the next acquisition's token is
 * still greater than every one handed out before (issue 29). */
static void test_lease_tokens_survive_lost_rows(void) {
  chime_scheduler *s = sched();
  chime_lease *a = NULL, *b = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "restored", 60000, 0, 0, &a), 0);
  int64_t before = chime_lease_get_token(a);
  CU_ASSERT_EQUAL(chime_lease_release(a), 0);
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  CU_ASSERT_EQUAL(mysql_query(db, "DELETE FROM chime_le_leases WHERE "
                                  "lease_name = 'restored'"),
                  0);
  CU_ASSERT_EQUAL(mysql_affected_rows(db), 1);
  mysql_close(db);
  CU_ASSERT_EQUAL_FATAL(chime_lease_acquire(s, "restored", 60000, 0, 0, &b), 0);
  CU_ASSERT(chime_lease_get_token(b) > before);
  chime_lease_free(a);
  chime_lease_free(b);
  chime_scheduler_free(s);
}
#endif

static CU_TestInfo lease_tests[] = {
    {"a scheduler never started takes leases", test_lease_never_started},
    {"bad arguments and NULL handles", test_lease_bad_arguments},
    {"acquire within a wait bound", test_lease_acquire_waits},
    {"chime_lease_run runs fn only when acquired", test_lease_with_lease},
    {"a stale holder is refused", test_lease_stale_holder},
    {"keep-alive extends while the holder lives", test_lease_keep_alive},
    {"after shutdown", test_lease_after_shutdown},
#ifdef CHIME_TEST_MYSQL
    {"two nodes, one clock ten minutes off", test_lease_two_nodes_skewed},
    {"tokens never go back when the rows are lost",
     test_lease_tokens_survive_lost_rows},
#endif
    CU_TEST_INFO_NULL,
};

#ifdef CHIME_TEST_MYSQL
static int init_url(void) {
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&prefix=chime_le_");
}

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/lease-mysql",
       .pInitFunc = init_url,
       .pTests = lease_tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end(); /* Connector/C's one-time allocations */
  return r;
}
#else
int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/lease", .pTests = lease_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
#endif
