/*
 * store-conformance-figures.c: the job store conformance suite: the
 * cluster's figures each store lists for an operator (chime-admin.h's
 * CHIME_ADMIN_RUN_COUNTS to _LIMITS, what chimectl metrics prints) and
 * what chimectl explain reads of a trigger (CHIME_ADMIN_PAUSED_GROUPS, the
 * trigger list's key filter and columns): the
 * same rows, in the same order, from the memory store's records and from
 * the MySQL store's statements.
 */
#include "store-conformance-impl.h"

#include "jobstore/admin.h"

#include <string.h>

/* The whole list kind of admin's store (the caller frees it). */
static chime_admin_table *list(chime_admin *a, chime_admin_kind kind) {
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(kind, &q), 0);
  chime_admin_table *t = NULL;
  int r = chime_admin_list(a, q, &t);
  CU_ASSERT_EQUAL(r, 0);
  if (r)
    fprintf(stderr, "list %d: %s\n", (int)kind, chime_admin_errmsg(a));
  chime_admin_query_free(q);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  return t;
}

#define TEXT(t, i, c) chime_admin_table_get_text(t, i, c)
#define INT(t, i, c) chime_admin_table_get_int64(t, i, c)

/* Whether row i of a state count is state with count n. */
static bool state_is(const chime_admin_table *t, size_t i, const char *state,
                     int64_t n) {
  return i < chime_admin_table_get_row_count(t) &&
         strcmp(TEXT(t, i, "state"), state) == 0 && INT(t, i, "count") == n;
}

/* Fires what is due by now, each started 7 ms after its time; trigger
 * "two"'s run fails. */
static void run_due(chime_store *st, chime_admin *a, int64_t now) {
  for (int k = 0; k < 3; k++) {
    chime_fire *f = sc_fire_next(st, now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    if (k == 0) { /* running: one fire, executing */
      chime_admin_table *t = list(a, CHIME_ADMIN_FIRE_STATES);
      CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 1);
      CU_ASSERT(state_is(t, 0, "EXECUTING", 1));
      chime_admin_table_free(t);
    }
    chime_run_result o = {.started_ms = f->scheduled_ms + 7,
                          .finished_ms = f->scheduled_ms + 9};
    if (strcmp(f->trigger->name, "two") == 0) {
      o.error = CHIME_EINTERNAL;
      o.message = "failed on purpose";
    }
    CU_ASSERT_EQUAL(st->ops->complete(st, f, &o), 0);
    chime__fire_free(f);
  }
}

static void test_store_figures_runs(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  sc_add_job(st, "g", "a", "x", true);
  int64_t now = st->ops->now(st);
  sc_add_simple(st, "t", "one", "g", "a", now - 3 * SEC, 0, 0);
  sc_add_simple(st, "t", "two", "g", "a", now - 2 * SEC, 0, 0);
  sc_add_simple(st, "MANUAL_TRIGGER", "m", "g", "a", now - SEC, 0, 0);
  sc_add_simple(st, "t", "later", "g", "a", now + HOUR, 0, 0);
  sc_add_simple(st, "t", "paused", "g", "a", now + HOUR, 0, 0);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "t", "paused"), 0);

  chime_admin_table *t = list(a, CHIME_ADMIN_TRIGGER_STATES);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 2);
  CU_ASSERT(state_is(t, 0, "PAUSED", 1));
  CU_ASSERT(state_is(t, 1, "WAITING", 4));
  chime_admin_table_free(t);
  t = list(a, CHIME_ADMIN_FIRE_STATES);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);

  run_due(st, a, now);
  /* By job, then outcome. */
  t = list(a, CHIME_ADMIN_RUN_COUNTS);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 2);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_group"), "g");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_name"), "a");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "outcome"), "FAILED");
  CU_ASSERT_EQUAL(INT(t, 0, "runs"), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "outcome"), "OK");
  CU_ASSERT_EQUAL(INT(t, 1, "runs"), 2);
  chime_admin_table_free(t);

  /* The scheduled runs only (not the fire-now): two, 7 ms late each. */
  t = list(a, CHIME_ADMIN_LATENESS);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t),
                        CHIME__ADMIN_NBUCKETS + 1);
  for (size_t b = 0; b < CHIME__ADMIN_NBUCKETS; b++) {
    bool in = chime__admin_lateness_ms[b] >= 7;
    CU_ASSERT_EQUAL(INT(t, b, "le_ms"), chime__admin_lateness_ms[b]);
    CU_ASSERT_EQUAL(INT(t, b, "runs"), in ? 2 : 0);
    CU_ASSERT_EQUAL(INT(t, b, "late_ms"), in ? 14 : 0);
  }
  CU_ASSERT(chime_admin_table_is_null(t, CHIME__ADMIN_NBUCKETS, "le_ms"));
  CU_ASSERT_EQUAL(INT(t, CHIME__ADMIN_NBUCKETS, "runs"), 2);
  CU_ASSERT_EQUAL(INT(t, CHIME__ADMIN_NBUCKETS, "late_ms"), 14);
  chime_admin_table_free(t);

  /* Minute by minute: three runs, one failed, the scheduled 7 ms late. */
  t = list(a, CHIME_ADMIN_ACTIVITY);
  size_t n = chime_admin_table_get_row_count(t);
  CU_ASSERT(n >= 1 && n <= 2);
  int64_t fires = 0, failures = 0;
  for (size_t i = 0; i < n; i++) {
    fires += INT(t, i, "fires");
    failures += INT(t, i, "failures");
    CU_ASSERT_EQUAL(INT(t, i, "minute_ms") % 60000, 0);
    CU_ASSERT(i == 0 || INT(t, i, "minute_ms") > INT(t, i - 1, "minute_ms"));
    CU_ASSERT(chime_admin_table_is_null(t, i, "late_max_ms") ||
              (INT(t, i, "late_max_ms") == 7 && INT(t, i, "late_avg_ms") == 7));
  }
  CU_ASSERT_EQUAL(fires, 3);
  CU_ASSERT_EQUAL(failures, 1);
  chime_admin_table_free(t);
  /* No node lost a run; the operator's own node is no event. */
  t = list(a, CHIME_ADMIN_EVENTS);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  chime_admin_free(a);
  sc_close(st);
}

static void test_store_figures_drains_limits(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  chime_admin_table *t = list(a, CHIME_ADMIN_DRAINS);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->drain_set(st, NULL, true, HOUR, "tester", NULL), 0);
  t = list(a, CHIME_ADMIN_DRAINS);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "node"), "node-a");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "state"), "draining");
  CU_ASSERT_EQUAL(INT(t, 0, "timeout_ms"), HOUR);
  CU_ASSERT(INT(t, 0, "requested_ms") > 0);
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL(st->ops->drain_report(st, 0), 0);
  t = list(a, CHIME_ADMIN_DRAINS);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "state"), "drained");
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL(st->ops->drain_set(st, NULL, false, 0, NULL, NULL), 0);
  t = list(a, CHIME_ADMIN_DRAINS);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);

  /* A limited type: its own row, no partition; due fires wait. */
  chime_limit_def d = {
      .max_running = 2, .rate_count = 5, .rate_period_ms = SEC};
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_set(st, "x", &d), 0);
  sc_add_job(st, "g", "a", "x", true);
  int64_t now = st->ops->now(st);
  sc_add_simple(st, "t", "one", "g", "a", now - SEC, 0, 0);
  t = list(a, CHIME_ADMIN_LIMITS);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_type"), "x");
  CU_ASSERT(chime_admin_table_is_null(t, 0, "partition"));
  CU_ASSERT(chime_admin_table_is_null(t, 0, "partition_field"));
  CU_ASSERT_EQUAL(INT(t, 0, "max_running"), 2);
  CU_ASSERT_EQUAL(INT(t, 0, "max_per_partition"), 0);
  CU_ASSERT_EQUAL(INT(t, 0, "rate_count"), 5);
  CU_ASSERT_EQUAL(INT(t, 0, "rate_period_ms"), SEC);
  CU_ASSERT_EQUAL(INT(t, 0, "waiting"), 1);
  CU_ASSERT_EQUAL(INT(t, 0, "running"), 0);
  chime_admin_table_free(t);
  chime_admin_free(a);
  sc_close(st);
}

/* The one trigger (group, name) of the trigger list. */
static chime_admin_table *one_trigger(chime_admin *a, const char *group,
                                      const char *name) {
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_TRIGGERS, &q), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_trigger(q, group, name), 0);
  chime_admin_table *t = NULL;
  CU_ASSERT_EQUAL(chime_admin_list(a, q, &t), 0);
  chime_admin_query_free(q);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  return t;
}

/* What explain reads: a trigger by key with its end, its job's type and
 * tags and its claim; the group pauses covering it. */
static void test_store_figures_explain(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  chime_job *job = sc_job("g", "a", "x", true);
  CU_ASSERT_EQUAL(chime_job_add_required_tag(job, "gpu"), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  int64_t now = st->ops->now(st);
  chime_trigger *tr = sc_simple("t", "one", "g", "a", now - SEC, 0, 0);
  CU_ASSERT_EQUAL(chime_trigger_set_end_ms(tr, now + HOUR), 0);
  CU_ASSERT_EQUAL(st->ops->trigger_add(st, NULL, tr, false, NULL, NULL, 0), 0);
  chime_trigger_free(tr);
  sc_add_simple(st, "t", "two", "g", "a", now + HOUR, 0, 0);

  chime_admin_table *t = one_trigger(a, "t", "one");
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "name"), "one");
  CU_ASSERT_EQUAL(INT(t, 0, "end_ms"), now + HOUR);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_type"), "x");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "job_tags"), "gpu");
  CU_ASSERT(chime_admin_table_is_null(t, 0, "claim_fire_id"));
  chime_admin_table_free(t);
  t = one_trigger(a, "t", "two");
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT(chime_admin_table_is_null(t, 0, "end_ms"));
  chime_admin_table_free(t);
  t = one_trigger(a, "t", "none");
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);

  /* Claimed: its fire (a job this node may run: it has no tag). */
  sc_add_job(st, "g", "b", "x", true);
  sc_add_simple(st, "t", "three", "g", "b", now - SEC, 0, 0);
  chime_fire **fires = NULL;
  CU_ASSERT_EQUAL_FATAL(sc_acquire(st, now, now, 1, NULL, &fires), 1);
  t = one_trigger(a, "t", "three");
  CU_ASSERT_EQUAL(INT(t, 0, "claim_fire_id"), fires[0]->fire_id);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "owner"), "node-a");
  chime_admin_table_free(t);
  sc_fires_free(fires, 1);

  /* The group pauses: all, or those covering a trigger. */
  CU_ASSERT_EQUAL(st->ops->pause_group(st, CHIME_MATCH_EQUALS, "zz"), 0);
  CU_ASSERT_EQUAL(st->ops->pause_group(st, CHIME_MATCH_STARTS_WITH, "t"), 0);
  CU_ASSERT_EQUAL(st->ops->pause_all(st), 0);
  t = list(a, CHIME_ADMIN_PAUSED_GROUPS);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 3);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "match"), "equals");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "pattern"), "zz");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "match"), "starts_with");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "pattern"), "t");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 2, "match"), "any");
  CU_ASSERT(chime_admin_table_is_null(t, 2, "pattern"));
  chime_admin_table_free(t);
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_PAUSED_GROUPS, &q),
                        0);
  CU_ASSERT_EQUAL(chime_admin_query_set_trigger(q, "t", "two"), 0);
  CU_ASSERT_EQUAL(chime_admin_list(a, q, &t), 0);
  chime_admin_query_free(q);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 2);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "match"), "starts_with");
  CU_ASSERT_STRING_EQUAL(TEXT(t, 1, "match"), "any");
  chime_admin_table_free(t);

  /* The nodes say their tags. */
  t = list(a, CHIME_ADMIN_NODES);
  CU_ASSERT(chime_admin_table_get_column_index(t, "tags") >= 0);
  chime_admin_table_free(t);
  chime_admin_free(a);
  sc_close(st);
}

/* Whether the retry list (of fire, 0: all) has exactly the link
 * (fire_id, retried). */
static bool only_link(chime_admin *a, int64_t fire, int64_t fire_id,
                      int64_t retried) {
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_RETRIES, &q), 0);
  if (fire)
    CU_ASSERT_EQUAL(chime_admin_query_set_fire(q, fire), 0);
  chime_admin_table *t = NULL;
  CU_ASSERT_EQUAL(chime_admin_list(a, q, &t), 0);
  chime_admin_query_free(q);
  bool ok = chime_admin_table_get_row_count(t) == 1 &&
            INT(t, 0, "fire_id") == fire_id &&
            INT(t, 0, "retried_fire_id") == retried;
  chime_admin_table_free(t);
  return ok;
}

/* A retry's run (trigger CHIME_RETRY.retry-F) is linked to F, running and
 * recorded, listed whole or by either fire. */
static void test_store_figures_retries(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  sc_add_job(st, "g", "a", "x", true);
  int64_t now = st->ops->now(st);
  sc_add_simple(st, "t", "one", "g", "a", now - SEC, 0, 0);
  chime_fire *f1 = sc_fire_next(st, now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f1);
  int64_t first = f1->fire_id;
  CU_ASSERT_EQUAL(sc_fail(st, f1), 0);
  chime__fire_free(f1);
  char name[40];
  snprintf(name, sizeof name, "retry-%lld", (long long)first);
  sc_add_simple(st, "CHIME_RETRY", name, "g", "a", now - SEC, 0, 0);
  chime_fire *f2 = sc_fire_next(st, now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f2);
  int64_t second = f2->fire_id;
  CU_ASSERT(only_link(a, 0, second, first)); /* running */
  CU_ASSERT(only_link(a, first, second, first));
  CU_ASSERT(only_link(a, second, second, first));
  CU_ASSERT_EQUAL(sc_complete(st, f2), 0);
  chime__fire_free(f2);
  CU_ASSERT(only_link(a, 0, second, first)); /* recorded */
  CU_ASSERT(only_link(a, first, second, first));
  CU_ASSERT(only_link(a, second, second, first));
  chime_admin_free(a);
  sc_close(st);
}

/* The list kind through a, its page (offset, limit: 0 all), into *ret. */
static int list_page(chime_admin *a, chime_admin_kind kind, size_t offset,
                     size_t limit, chime_admin_table **ret) {
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(kind, &q), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_page(q, offset, limit), 0);
  *ret = NULL;
  int r = chime_admin_list(a, q, ret);
  chime_admin_query_free(q);
  return r;
}

/* What the store holds: its tables' rows and bytes and each node's live
 * database sessions (MySQL); the memory store, which has neither, answers
 * CHIME_EUNSUPPORTED, saying why. */
static void test_store_figures_storage(void) {
  chime_store *st = sc_open();
  chime_admin *a = NULL; /* not an operator: the node's own sessions too */
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, false, &a), 0);
  sc_add_job(st, "g", "a", "x", true);
  sc_add_job(st, "g", "b", "x", true);
  chime_admin_table *t = NULL;
  if (!st->ops->admin_repair) { /* memory */
    CU_ASSERT_EQUAL(list_page(a, CHIME_ADMIN_STORAGE, 0, 0, &t),
                    CHIME_EUNSUPPORTED);
    CU_ASSERT(strlen(chime_admin_errmsg(a)) > 0);
    CU_ASSERT_EQUAL(list_page(a, CHIME_ADMIN_SESSIONS, 0, 0, &t),
                    CHIME_EUNSUPPORTED);
    chime_admin_free(a);
    sc_close(st);
    return;
  }
  /* Every table, in a fixed order, its counts and bytes. */
  CU_ASSERT_EQUAL_FATAL(list_page(a, CHIME_ADMIN_STORAGE, 0, 0, &t), 0);
  static const char *const cols[] = {"table", "rows", "est_rows", "bytes"};
  for (size_t k = 0; k < 4; k++)
    CU_ASSERT_STRING_EQUAL(chime_admin_table_get_column_name(t, k), cols[k]);
  size_t n = chime_admin_table_get_row_count(t);
  CU_ASSERT(n >= 14);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "table"), "schema_version");
  CU_ASSERT(INT(t, 0, "rows") >= 1);
  size_t jobs = n;
  for (size_t i = 0; i < n; i++) {
    CU_ASSERT(INT(t, i, "rows") >= 0);
    CU_ASSERT(INT(t, i, "est_rows") >= 0);
    CU_ASSERT(INT(t, i, "bytes") > 0);
    if (strcmp(TEXT(t, i, "table"), "jobs") == 0)
      jobs = i;
  }
  CU_ASSERT_FATAL(jobs < n);
  CU_ASSERT(INT(t, jobs, "rows") >= 2); /* the cluster's two, others' too */
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL_FATAL(list_page(a, CHIME_ADMIN_STORAGE, jobs, 1, &t), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "table"), "jobs");
  chime_admin_table_free(t);

  /* The node's own sessions: its connection at least. */
  CU_ASSERT_EQUAL_FATAL(list_page(a, CHIME_ADMIN_NODES, 0, 0, &t), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  char node[128];
  snprintf(node, sizeof node, "%s", TEXT(t, 0, "id"));
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL_FATAL(list_page(a, CHIME_ADMIN_SESSIONS, 0, 0, &t), 0);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_column_name(t, 0), "node");
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_column_name(t, 1), "sessions");
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(TEXT(t, 0, "node"), node);
  CU_ASSERT(INT(t, 0, "sessions") >= 1);
  chime_admin_table_free(t);
  chime_admin_free(a);
  /* An operator's view leaves the node it opened as out. */
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  CU_ASSERT_EQUAL_FATAL(list_page(a, CHIME_ADMIN_SESSIONS, 0, 0, &t), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  chime_admin_free(a);
  sc_close(st);
}

#undef INT
#undef TEXT

CU_TestInfo sc_figure_tests[] = {
    {"figures: storage, sessions", test_store_figures_storage},
    {"figures: retry links", test_store_figures_retries},
    {"figures: what explain reads", test_store_figures_explain},
    {"figures: runs, lateness, states", test_store_figures_runs},
    {"figures: drains, limits", test_store_figures_drains_limits},
    CU_TEST_INFO_NULL,
};
