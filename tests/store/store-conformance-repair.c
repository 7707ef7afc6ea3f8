/*
 * store-conformance-repair.c: the job store conformance suite: the stuck
 * states an operator lists (chime-admin.h's CHIME_ADMIN_STUCK) and fixes
 * (chime_admin_repair).  The MySQL store, shared by processes that can go
 * away, lists a lease whose holder left the cluster and releases it once;
 * the memory store, which lives in its one process, is never left stuck
 * and answers CHIME_EUNSUPPORTED to both.  Also an operator's clock
 * (chime_admin_get_now_ms), check-in (chime_admin_check_in) and audit
 * record (chime_admin_audit: MySQL only, as the audit list), and the
 * figures of a job's runs (CHIME_ADMIN_JOB_STATS), by one rule on both.
 */
#include "store-conformance-impl.h"

#include "jobstore/admin.h"
#include "model/records.h"

#include <string.h>

/* The stuck states st lists now into *ret (the caller frees it). */
static int stuck(chime_admin *a, chime_admin_table **ret) {
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_STUCK, &q), 0);
  int r = chime_admin_list(a, q, ret);
  chime_admin_query_free(q);
  return r;
}

static void test_store_repair_lease(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  bool fixed = true;
  CU_ASSERT_EQUAL(
      chime_admin_repair(NULL, "lease", NULL, "x", 0, NULL, NULL, NULL, &fixed),
      CHIME_EINVAL);
  CU_ASSERT_FALSE(fixed);
  chime_admin_table *t = NULL;
  if (!st->ops->admin_repair) { /* memory: never stuck */
    CU_ASSERT_EQUAL(stuck(a, &t), CHIME_EUNSUPPORTED);
    CU_ASSERT_EQUAL(
        chime_admin_repair(a, "lease", NULL, "x", 0, NULL, NULL, NULL, &fixed),
        CHIME_EUNSUPPORTED);
    CU_ASSERT(strlen(chime_admin_errmsg(a)) > 0);
    chime_admin_free(a);
    sc_close(st);
    return;
  }
  /* A healthy cluster: nothing stuck; a kind it does not know. */
  CU_ASSERT_EQUAL_FATAL(stuck(a, &t), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  CU_ASSERT(chime_admin_table_get_column_index(t, "held_at_ms") >= 0);
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL(
      chime_admin_repair(a, "stuck", "g", "n", 0, NULL, NULL, NULL, &fixed),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_admin_repair(a, "lease", NULL, NULL, 0, NULL, NULL, NULL, &fixed),
      CHIME_EINVAL);

  /* A lease whose holder left the cluster without releasing it. */
  chime_lease_info info;
  CU_ASSERT_EQUAL_FATAL(
      st->ops->lease_acquire(st, "held-by-gone", HOUR, 0, &info), 0);
  size_t handed = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->hand_over(st, 10 * SEC, NULL, NULL, &handed),
                        0);
  CU_ASSERT_EQUAL_FATAL(stuck(a, &t), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "kind"), "lease");
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "name"),
                         "held-by-gone");
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "node"), "node-a");
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "reason"),
                         "node_gone");
  CU_ASSERT(chime_admin_table_is_null(t, 0, "fire_id"));
  chime_admin_table_free(t);

  /* Fixed once; then no longer stuck (no error). */
  CU_ASSERT_EQUAL(chime_admin_repair(a, "lease", NULL, "held-by-gone", 0, NULL,
                                     "tester", "conformance", &fixed),
                  0);
  CU_ASSERT_TRUE(fixed);
  CU_ASSERT_EQUAL(chime_admin_repair(a, "lease", NULL, "held-by-gone", 0, NULL,
                                     NULL, NULL, &fixed),
                  0);
  CU_ASSERT_FALSE(fixed);
  CU_ASSERT_EQUAL_FATAL(stuck(a, &t), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  /* Recorded in the audit trail as who from origin. */
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_AUDIT, &q), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_list(a, q, &t), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "action"), "repair");
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "target"),
                         "lease held-by-gone");
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "who"), "tester");
  chime_admin_table_free(t);
  chime_admin_query_free(q);
  chime_admin_free(a);
  sc_close(st);
}

static void test_store_admin_clock(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL, *own = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, false, &own), 0);
  int64_t now = 0;
  CU_ASSERT_EQUAL(chime_admin_get_now_ms(NULL, &now), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_get_now_ms(a, NULL), CHIME_EINVAL);
  int64_t before = st->ops->now(st);
  CU_ASSERT_EQUAL(chime_admin_get_now_ms(a, &now), 0);
  CU_ASSERT(now >= before && now <= st->ops->now(st));
  CU_ASSERT_EQUAL(chime_admin_check_in(NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_check_in(a), 0);   /* an operator's store */
  CU_ASSERT_EQUAL(chime_admin_check_in(own), 0); /* a scheduler's: nothing */
  /* An action recorded in the audit trail (the memory store keeps none). */
  CU_ASSERT_EQUAL(chime_admin_audit(NULL, NULL, NULL, "pause", NULL, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_admin_audit(a, NULL, NULL, "", NULL, NULL),
                  CHIME_EINVAL);
  int r = chime_admin_audit(a, "tester", "conformance", "pause", "trigger g.n",
                            NULL);
  chime_admin_query *q = NULL;
  chime_admin_table *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_AUDIT, &q), 0);
  if (strcmp(st->ops->name, "memory") == 0) {
    CU_ASSERT_EQUAL(r, CHIME_EUNSUPPORTED);
  } else {
    CU_ASSERT_EQUAL(r, 0);
    CU_ASSERT_EQUAL_FATAL(chime_admin_list(a, q, &t), 0);
    CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
    CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "target"),
                           "trigger g.n");
    CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "origin"),
                           "conformance");
    CU_ASSERT(chime_admin_table_is_null(t, 0, "details"));
    chime_admin_table_free(t);
  }
  chime_admin_query_free(q);
  chime_admin_free(own);
  chime_admin_free(a);
  sc_close(st);
}

/* Runs the fire due next at started_ms, failed or not. */
static void run_one(chime_store *st, int64_t started_ms, bool fail) {
  chime_fire *f = sc_fire_next(st, started_ms);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  chime_run_result o = {.error = fail ? CHIME_EINTERNAL : 0,
                        .message = fail ? "failed on purpose" : NULL,
                        .started_ms = started_ms,
                        .finished_ms = started_ms};
  CU_ASSERT_EQUAL(st->ops->complete(st, f, &o), 0);
  chime__fire_free(f);
}

static void test_store_job_stats(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  sc_add_job(st, "g", "st", "x", true);
  sc_add_job(st, "g", "idle", "x", true);
  int64_t now = st->ops->now(st);
  /* Three runs 1, 2 and 3 s late (one failed), and a trigger due later. */
  sc_add_simple(st, "t", "a", "g", "st", now - 1000, 0, 0);
  sc_add_simple(st, "t", "b", "g", "st", now - 2000, 0, 0);
  sc_add_simple(st, "t", "c", "g", "st", now - 3000, 0, 0);
  sc_add_simple(st, "t", "later", "g", "st", now + HOUR, 0, 0);
  for (int k = 0; k < 3; k++)
    run_one(st, now, k == 1);
  chime_admin_query *q = NULL;
  chime_admin_table *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_JOB_STATS, &q), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_started(q, now - HOUR, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_list(a, q, &t), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1); /* not idle */
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "job_name"), "st");
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "runs"), 3);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "failures"), 1);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "recovered"), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "late_p50_ms"), 2000);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "late_p99_ms"), 2980);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "last_started_ms"), now);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "next_fire_ms"),
                  now + HOUR);
  chime_admin_table_free(t);
  /* Another job, or a window after the runs: no row. */
  CU_ASSERT_EQUAL(chime_admin_query_set_job(q, "g", "idle"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_list(a, q, &t), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL(chime_admin_query_set_job(q, "g", "st"), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_started(q, now + 1, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_list(a, q, &t), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  chime_admin_query_free(q);
  chime_admin_free(a);
  sc_close(st);
}

CU_TestInfo sc_repair_tests[] = {
    {"a job's run figures", test_store_job_stats},
    {"operator's clock, check-in and audit record", test_store_admin_clock},
    {"stuck states listed and repaired", test_store_repair_lease},
    CU_TEST_INFO_NULL,
};
