/*
 * store-conformance-history.c: the job store conformance suite, part six:
 * what history keeps of a run beyond its outcome: the data it ran with
 * when that was its own (its trigger's), so that a retry of a one-off run
 * still has it once the trigger is gone (issue 35, migration 015).
 */
#include "store-conformance-impl.h"

#include "model/records.h"

#include <stdlib.h>
#include <string.h>

/* Adds trigger t.name of job g.rd with len bytes of data (none: 0). */
static void add_with_data(chime_store *st, const char *name, int64_t start,
                          const void *data, size_t len) {
  chime_trigger *t = sc_simple("t", name, "g", "rd", start, 0, 0);
  if (len)
    CU_ASSERT_EQUAL(chime_trigger_set_data(t, data, len), 0);
  CU_ASSERT_EQUAL(st->ops->trigger_add(st, NULL, t, false, NULL, NULL, 0), 0);
  chime_trigger_free(t);
}

/* The history of job g.rd, newest first (n rows into *ret_n). */
static chime_history_entry *runs(chime_store *st, size_t *ret_n) {
  chime_history_filter hf = {.job_group = "g", .job_name = "rd", .limit = 50};
  chime_history_entry *h = NULL;
  *ret_n = 0;
  CU_ASSERT_EQUAL(st->ops->history_list(st, &hf, &h, ret_n), 0);
  return h;
}

/* The row of trigger t.name among the n at h; NULL when none. */
static const chime_history_entry *row_of(const chime_history_entry *h, size_t n,
                                         const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(h[i].trigger_name, name) == 0)
      return &h[i];
  return NULL;
}

/* A run records its trigger's data, binary bytes as they are; a run that
 * read its job's data records none, whatever its outcome. */
static void test_store_history_run_data(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "rd", "x", true);
  CU_ASSERT_EQUAL(chime_job_set_data(job, "job's", 5), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  static const unsigned char own[] = {'{', 0, 0xff, '\n', '"', 0x80};
  int64_t now = st->ops->now(st);
  add_with_data(st, "own", now, own, sizeof own);
  add_with_data(st, "plain", now, NULL, 0);
  add_with_data(st, "own-ok", now, "ok", 2);
  for (int k = 0; k < 3; k++) {
    chime_fire *f = sc_fire_next(st, now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    chime_run_result o = {.error = CHIME_EINTERNAL,
                          .message = "failed on purpose",
                          .started_ms = now,
                          .finished_ms = now};
    bool fail = strcmp(f->trigger->name, "own-ok") != 0;
    CU_ASSERT_EQUAL(st->ops->complete(st, f, fail ? &o : NULL), 0);
    chime__fire_free(f);
  }
  size_t n;
  chime_history_entry *h = runs(st, &n);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  const chime_history_entry *e = row_of(h, n, "own");
  CU_ASSERT_PTR_NOT_NULL_FATAL(e);
  CU_ASSERT_STRING_EQUAL(e->outcome, "FAILED");
  CU_ASSERT_EQUAL_FATAL(e->data_len, sizeof own);
  CU_ASSERT_PTR_NOT_NULL_FATAL(e->data);
  CU_ASSERT_EQUAL(memcmp(e->data, own, sizeof own), 0);
  e = row_of(h, n, "plain");
  CU_ASSERT_PTR_NOT_NULL_FATAL(e);
  CU_ASSERT_PTR_NULL(e->data);
  CU_ASSERT_EQUAL(e->data_len, 0);
  e = row_of(h, n, "own-ok");
  CU_ASSERT_PTR_NOT_NULL_FATAL(e);
  CU_ASSERT_STRING_EQUAL(e->outcome, "OK");
  CU_ASSERT_EQUAL_FATAL(e->data_len, 2);
  CU_ASSERT_EQUAL(memcmp(e->data, "ok", 2), 0);
  chime__history_entries_free(h, n);
  sc_close(st);
}

/* Runs with the most data a trigger holds, completed together: each row
 * keeps all of it (the MySQL store spreads such a batch over several
 * INSERTs, each below the server's packet limit). */
static void test_store_history_large_data(void) {
  enum { RUNS = 3 };
  chime_store *st = sc_open();
  sc_add_job(st, "g", "rd", "x", true);
  unsigned char *data = malloc(CHIME_MAX_DATA_LEN);
  CU_ASSERT_PTR_NOT_NULL_FATAL(data);
  int64_t now = st->ops->now(st);
  for (int k = 0; k < RUNS; k++) {
    char name[16] = "big-0";
    name[4] = (char)('0' + k);
    memset(data, 'a' + k, CHIME_MAX_DATA_LEN);
    data[0] = (unsigned char)k; /* and a NUL in the first */
    add_with_data(st, name, now, data, CHIME_MAX_DATA_LEN);
  }
  chime_fire *fires[RUNS];
  const chime_run_result *outs[RUNS];
  int results[RUNS];
  for (int k = 0; k < RUNS; k++) {
    fires[k] = sc_fire_next(st, now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fires[k]);
    outs[k] = NULL;
  }
  if (st->ops->complete_many) {
    st->ops->complete_many(st, (const chime_fire *const *)fires, outs, RUNS,
                           results);
  } else {
    for (int k = 0; k < RUNS; k++)
      results[k] = st->ops->complete(st, fires[k], NULL);
  }
  for (int k = 0; k < RUNS; k++) {
    CU_ASSERT_EQUAL(results[k], 0);
    chime__fire_free(fires[k]);
  }
  size_t n;
  chime_history_entry *h = runs(st, &n);
  CU_ASSERT_EQUAL_FATAL(n, RUNS);
  for (int k = 0; k < RUNS; k++) {
    char name[16] = "big-0";
    name[4] = (char)('0' + k);
    const chime_history_entry *e = row_of(h, n, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL_FATAL(e->data_len, CHIME_MAX_DATA_LEN);
    memset(data, 'a' + k, CHIME_MAX_DATA_LEN);
    data[0] = (unsigned char)k;
    CU_ASSERT_EQUAL(memcmp(e->data, data, CHIME_MAX_DATA_LEN), 0);
  }
  chime__history_entries_free(h, n);
  free(data);
  sc_close(st);
}

CU_TestInfo sc_history_tests[] = {
    {"a run's own data is recorded with it, its job's is not",
     test_store_history_run_data},
    {"runs with the largest data, completed together, keep all of it",
     test_store_history_large_data},
    CU_TEST_INFO_NULL,
};
