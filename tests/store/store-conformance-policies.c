/*
 * store-conformance-policies.c: the job store conformance suite, part
 * three: run policies (store.h's interrupt and interrupted; a job's
 * timeout kept with the job).
 */
#include "store-conformance-impl.h"

#include "model/records.h"

#include <stdlib.h>

/* The ids interrupted() lists (count of them in *n; the caller frees). */
static int64_t *flagged(chime_store *st, size_t *n) {
  int64_t *ids = NULL;
  *n = 99;
  CU_ASSERT_EQUAL(st->ops->interrupted(st, &ids, n), 0);
  return ids;
}

static void test_store_interrupt(void) {
  chime_store *st = sc_open();
  size_t n = 99;
  sc_add_job(st, "g", "j", "x", true);
  sc_add_job(st, "g", "other", "x", true);
  sc_add_simple(st, "t", "a", "g", "j", T0, MINUTE, 5);
  sc_add_simple(st, "t", "b", "g", "other", T0, MINUTE, 5);
  /* Arguments. */
  CU_ASSERT_EQUAL(st->ops->interrupt(st, NULL, "j", 0, &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->interrupt(st, "g", "j", 5, &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->interrupt(st, NULL, NULL, -1, &n), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->interrupted(st, NULL, &n), CHIME_EINVAL);
  /* Nothing executes: nothing flagged. */
  CU_ASSERT_EQUAL(st->ops->interrupt(st, "g", "j", 0, &n), 0);
  CU_ASSERT_EQUAL(n, 0);
  int64_t *ids = flagged(st, &n);
  CU_ASSERT_EQUAL(n, 0);
  free(ids);
  /* A claim not fired yet is not a run: not flagged. */
  chime_fire **claims = NULL;
  CU_ASSERT_EQUAL_FATAL(sc_acquire(st, T0, T0, 2, NULL, &claims), 2);
  CU_ASSERT_EQUAL(st->ops->interrupt(st, "g", "j", 0, &n), 0);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_EQUAL(st->ops->fire(st, claims, 2, T0), 0);
  CU_ASSERT_EQUAL(claims[0]->result, 0);
  CU_ASSERT_EQUAL(claims[1]->result, 0);
  chime_fire *fj =
      claims[0]->job && claims[0]->job->name[0] == 'j' ? claims[0] : claims[1];
  chime_fire *fo = fj == claims[0] ? claims[1] : claims[0];
  ids = flagged(st, &n);
  CU_ASSERT_EQUAL(n, 0);
  free(ids);
  /* By job key: only that job's fire. */
  CU_ASSERT_EQUAL(st->ops->interrupt(st, "g", "j", 0, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  ids = flagged(st, &n);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL(ids[0], fj->fire_id);
  free(ids);
  /* Again: still counted, still listed once. */
  CU_ASSERT_EQUAL(st->ops->interrupt(st, "g", "j", 0, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  /* By fire id. */
  CU_ASSERT_EQUAL(st->ops->interrupt(st, NULL, NULL, fo->fire_id, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_EQUAL(st->ops->interrupt(st, NULL, NULL, fo->fire_id + 1000, &n),
                  0);
  CU_ASSERT_EQUAL(n, 0);
  ids = flagged(st, &n);
  CU_ASSERT_EQUAL(n, 2);
  free(ids);
  /* A completed fire is no longer listed. */
  CU_ASSERT_EQUAL(sc_complete(st, fj), 0);
  ids = flagged(st, &n);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL(ids[0], fo->fire_id);
  free(ids);
  CU_ASSERT_EQUAL(sc_complete(st, fo), 0);
  ids = flagged(st, &n);
  CU_ASSERT_EQUAL(n, 0);
  free(ids);
  sc_fires_free(claims, 2);
  sc_close(st);
}

static void test_store_job_timeout_kept(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "j", "x", true);
  CU_ASSERT_EQUAL(chime_job_set_timeout_ms(job, 2500), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  sc_add_simple(st, "t", "a", "g", "j", T0, MINUTE, 5);
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "j", &back), 0);
  CU_ASSERT_EQUAL(back->timeout_ms, 2500);
  chime_job_free(back);
  /* The fire carries it to the engine. */
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->job->timeout_ms, 2500);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  /* Replacing the job changes it; an invalid one is refused. */
  CU_ASSERT_EQUAL(chime_job_set_timeout_ms(job, 0), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "j", &back), 0);
  CU_ASSERT_EQUAL(back->timeout_ms, 0);
  chime_job_free(back);
  job->timeout_ms = -5;
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), CHIME_EINVAL);
  chime_job_free(job);
  sc_close(st);
}

CU_TestInfo sc_policy_tests[] = {
    {"interrupt flags executing fires; interrupted lists them",
     test_store_interrupt},
    {"a job's timeout is kept with the job", test_store_job_timeout_kept},
    CU_TEST_INFO_NULL,
};
