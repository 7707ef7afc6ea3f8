/*
 * test-mysql-runs.c: runs kept in their trigger rows (jobstore/mysql/runs.c,
 * migration 018) on the throwaway MariaDB, through the store's operations
 * as the engine calls them (tables prefixed mrn_*_):
 *   - a one-shot fired by a claim writes no fired row: its trigger row is
 *     EXECUTING, this node's, for that fire id; the run is this node's
 *     (fencing), its trigger reads COMPLETE, and its completion removes the
 *     row and records the run under its fire id; fire ids stay unique and
 *     in claim order beside fired rows, and no reservation marker is left;
 *   - not while a node of an earlier release (one whose row does not say it
 *     reads such runs) is live: fired rows then, kept runs again once it is
 *     gone;
 *   - a dead node's kept runs are recovered (run again or recorded FAILED),
 *     also when its row is gone (a node of an earlier release recovered it
 *     and saw none of them), and its late completion is refused;
 *   - removing the trigger or its job, cancelling the run, a checkpoint, a
 *     stopping node's hand-over and the local queue's release move the run
 *     to a fired row first: the run goes on and completes once, or runs
 *     again once; a pause leaves it alone;
 *   - a stolen run is refused; a limited type counts kept runs; a job made
 *     FORBID meanwhile is not claimed beside one; a keyed run's retry takes
 *     its row over.
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/store.h"
#include "model/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 INT64_C(1893456000000) /* 2030-01-01T00:00:00Z */

static MYSQL *db;
static char prefix[32];

/* Runs a statement over the test's tables: fmt's first "%s" is the prefix,
 * its second (if any) arg; fatal on failure. */
static void sql(const char *fmt, const char *arg) {
  char q[1024];
  snprintf(q, sizeof q, fmt, prefix, arg);
  if (mysql_query(db, q) != 0)
    fprintf(stderr, "%s: %s\n", q, mysql_error(db));
  CU_ASSERT_EQUAL_FATAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
}

/* One integer from a query over the test's tables ("%s" is the prefix,
 * every time it appears, at most four). */
static long long count(const char *fmt) {
  char q[1024];
  snprintf(q, sizeof q, fmt, prefix, prefix, prefix, prefix);
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, q), 0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  MYSQL_ROW row = mysql_fetch_row(res);
  long long v = row && row[0] ? strtoll(row[0], NULL, 10) : -1;
  mysql_free_result(res);
  return v;
}

/* Opens node id on the tables of prefix p (cleared when clear). */
static chime_store *open_node(const char *p, const char *id, bool clear) {
  char params[128], url[1024], err[512] = "";
  snprintf(params, sizeof params, "prefix=%s&auto_create=1%s", p,
           clear ? "&clear=1" : "");
  CU_ASSERT_EQUAL_FATAL(chime_test_mysql_url_with(url, sizeof url, params), 0);
  chime_store_options o = {.scheduler_name = "mrn",
                           .instance_id = id,
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = 2};
  chime_store *st = NULL;
  int r = chime__store_open(url, &o, &st, err, sizeof err);
  if (r != 0)
    fprintf(stderr, "open: %s: %s\n", chime_err_name(r), err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  return st;
}

/* Starts a test on fresh tables mrn_<name>_: node-a open. */
static chime_store *begin(const char *name) {
  snprintf(prefix, sizeof prefix, "mrn_%s_", name);
  db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  return open_node(prefix, "node-a", true);
}

static void end(chime_store *st) {
  st->ops->free(st);
  mysql_close(db);
  db = NULL;
}

/* Job g.<name> of type t (recovery as recover) and its one-shot trigger
 * tg.<name>, due at T0. */
static void add_one_shot(chime_store *st, const char *name, bool recover) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", name, "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_requests_recovery(job, recover), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tg", name, 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", name), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, job, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  chime_job_free(job);
}

/* Claims and fires what is due at T0 (max of them) on st. */
static size_t claim(chime_store *st, size_t max, chime_fire ***ret) {
  size_t n = 0;
  *ret = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->acquire_due(st, T0, T0, max, NULL, ret, &n),
                        0);
  return n;
}

static void free_fires(chime_fire **fires, size_t n) {
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
}

static int complete(chime_store *st, const chime_fire *f, int error) {
  chime_run_result out = {.error = error,
                          .message = error ? "it failed" : NULL,
                          .started_ms = T0,
                          .finished_ms = T0 + 5};
  return st->ops->complete(st, f, &out);
}

#define KEPT                                                                   \
  "SELECT COUNT(*) FROM %striggers WHERE state = 'EXECUTING' AND owner IS "    \
  "NOT "                                                                       \
  "NULL"
#define FIRED "SELECT COUNT(*) FROM %sfired"

/* ------------------------------------------------------------ the claim */

static void test_mysql_runs_one_shot_kept_in_its_row(void) {
  chime_store *st = begin("k");
  add_one_shot(st, "once", false);
  chime_fire **fires;
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &fires), 1);
  chime_fire *f = fires[0];
  CU_ASSERT_TRUE(f->in_trigger_row);
  CU_ASSERT(f->fire_id > 0);
  CU_ASSERT_EQUAL(count(FIRED), 0);
  char q[256];
  snprintf(q, sizeof q,
           "SELECT COUNT(*) FROM %%striggers WHERE trigger_name = 'once' AND "
           "state = 'EXECUTING' AND owner = 'node-a' AND claim_fire_id = "
           "%lld AND run_acquired_ms IS NOT NULL",
           (long long)f->fire_id);
  CU_ASSERT_EQUAL(count(q), 1);
  bool owned = false;
  CU_ASSERT_EQUAL(st->ops->still_owned(st, f, &owned), 0);
  CU_ASSERT_TRUE(owned);
  /* A one-shot whose run goes on has no fire left. */
  chime_trigger_status status;
  CU_ASSERT_EQUAL(st->ops->trigger_status(st, "tg", "once", &status), 0);
  CU_ASSERT_EQUAL(status, CHIME_TRIGGER_COMPLETE);
  CU_ASSERT_EQUAL(complete(st, f, 0), 0);
  snprintf(q, sizeof q,
           "SELECT COUNT(*) FROM %%shistory WHERE fire_id = %lld AND "
           "trigger_name = 'once' AND outcome = 'OK' AND node = 'node-a' AND "
           "scheduled_ms = %lld",
           (long long)f->fire_id, (long long)T0);
  CU_ASSERT_EQUAL(count(q), 1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %striggers"), 0);
  CU_ASSERT_EQUAL(count(FIRED), 0);
  /* Completed once: again is refused. */
  CU_ASSERT_EQUAL(complete(st, f, 0), CHIME_ENOTOWNER);
  free_fires(fires, 1);
  end(st);
}

static void test_mysql_runs_ids_unique_in_claim_order(void) {
  chime_store *st = begin("i");
  char name[16];
  for (int i = 0; i < 6; i++) {
    snprintf(name, sizeof name, "o%d", i);
    add_one_shot(st, name, false);
  }
  /* A repeating trigger's fire keeps its fired row, beside them. */
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tg", "every", 60000, -1, &t, err, sizeof err),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "o0"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  chime_fire **a, **b;
  CU_ASSERT_EQUAL_FATAL(claim(st, 4, &a), 4);
  CU_ASSERT_EQUAL_FATAL(claim(st, 10, &b), 3);
  size_t kept = 0, fired = 0;
  int64_t max_a = 0;
  for (size_t i = 0; i < 4; i++) {
    kept += a[i]->in_trigger_row;
    fired += !a[i]->in_trigger_row;
    if (a[i]->fire_id > max_a)
      max_a = a[i]->fire_id;
    for (size_t k = 0; k < i; k++)
      CU_ASSERT_NOT_EQUAL(a[i]->fire_id, a[k]->fire_id);
  }
  for (size_t i = 0; i < 3; i++) {
    kept += b[i]->in_trigger_row;
    fired += !b[i]->in_trigger_row;
    CU_ASSERT(b[i]->fire_id > max_a); /* a later claim, a larger id */
    for (size_t k = 0; k < i; k++)
      CU_ASSERT_NOT_EQUAL(b[i]->fire_id, b[k]->fire_id);
  }
  CU_ASSERT_EQUAL(kept, 6);
  CU_ASSERT_EQUAL(fired, 1);
  CU_ASSERT_EQUAL(count(FIRED), 1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %sfired WHERE state = "
                        "'RESERVED'"),
                  0);
  CU_ASSERT_EQUAL(count(KEPT), 6);
  for (size_t i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(complete(st, a[i], 0), 0);
  for (size_t i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(complete(st, b[i], 0), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(DISTINCT fire_id) FROM %shistory"), 7);
  CU_ASSERT_EQUAL(count(FIRED), 0);
  CU_ASSERT_EQUAL(count(KEPT), 0);
  free_fires(a, 4);
  free_fires(b, 3);
  end(st);
}

/* A live node of an earlier release: its row leaves runs_in_triggers at
 * its default, 0. */
static void test_mysql_runs_not_beside_an_earlier_release(void) {
  chime_store *st = begin("e");
  sql("INSERT INTO %snodes (sched_name, instance_id, host, pid, started_ms, "
      "last_checkin_ms, checkin_interval_ms, version, tags) VALUES ('mrn', "
      "'old', 'h', 1, 1, %s, 60000, '0.1.0', '')",
      "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)");
  /* Read as the node claims its id, and at each check-in. */
  chime_store *b = open_node(prefix, "node-b", false);
  add_one_shot(b, "first", false);
  add_one_shot(b, "second", false);
  chime_fire **fires;
  CU_ASSERT_EQUAL_FATAL(claim(b, 1, &fires), 1);
  CU_ASSERT_FALSE(fires[0]->in_trigger_row);
  CU_ASSERT_EQUAL(count(FIRED), 1);
  CU_ASSERT_EQUAL(complete(b, fires[0], 0), 0);
  free_fires(fires, 1);
  /* It is gone: from the next check-in on, runs are kept again. */
  sql("DELETE FROM %snodes WHERE instance_id = '%s'", "old");
  CU_ASSERT_EQUAL(b->ops->checkin(b, T0, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(claim(b, 1, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->in_trigger_row);
  CU_ASSERT_EQUAL(count(FIRED), 0);
  CU_ASSERT_EQUAL(complete(b, fires[0], 0), 0);
  free_fires(fires, 1);
  b->ops->free(b);
  end(st);
}

/* ------------------------------------------------------------- recovery */

/* Makes node id's check-in stale (its lease ran out long ago). */
static void stale(const char *id) {
  sql("UPDATE %snodes SET last_checkin_ms = 0 WHERE instance_id = '%s'", id);
}

static void test_mysql_runs_recovered_with_their_node(void) {
  chime_store *a = begin("r");
  chime_store *dead = open_node(prefix, "dead", false);
  add_one_shot(a, "rerun", true);
  add_one_shot(a, "plain", false);
  chime_fire **fires;
  CU_ASSERT_EQUAL_FATAL(claim(dead, 5, &fires), 2);
  CU_ASSERT_TRUE(fires[0]->in_trigger_row && fires[1]->in_trigger_row);
  CU_ASSERT_EQUAL(a->ops->checkin(a, T0, NULL), 0);
  stale("dead");
  size_t recovered = 0;
  CU_ASSERT_EQUAL(a->ops->recover_dead_nodes(a, T0, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 2);
  CU_ASSERT_EQUAL(count(KEPT), 0);
  CU_ASSERT_EQUAL(count(FIRED), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE job_name = "
                        "'plain' AND outcome = 'FAILED'"),
                  1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE job_name = "
                        "'rerun' AND outcome = 'REQUEUED'"),
                  1);
  /* The run again, on the survivor; the dead node's completions refused. */
  for (size_t i = 0; i < 2; i++) {
    bool owned = true;
    CU_ASSERT_EQUAL(dead->ops->still_owned(dead, fires[i], &owned), 0);
    CU_ASSERT_FALSE(owned);
    CU_ASSERT_EQUAL(complete(dead, fires[i], 0), CHIME_ENOTOWNER);
  }
  free_fires(fires, 2);
  CU_ASSERT_EQUAL_FATAL(claim(a, 5, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->recovering);
  CU_ASSERT_STRING_EQUAL(fires[0]->job->name, "rerun");
  CU_ASSERT_EQUAL(complete(a, fires[0], 0), 0);
  free_fires(fires, 1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE outcome = "
                        "'OK'"),
                  1);
  dead->ops->free(dead);
  end(a);
}

/* A node of an earlier release recovered a dead node, deleting its row
 * and ending its fired rows, and saw none of its kept runs. */
static void test_mysql_runs_of_a_vanished_node_recovered(void) {
  chime_store *a = begin("v");
  chime_store *gone = open_node(prefix, "gone", false);
  add_one_shot(a, "left", false);
  chime_fire **fires;
  CU_ASSERT_EQUAL_FATAL(claim(gone, 5, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->in_trigger_row);
  sql("DELETE FROM %snodes WHERE instance_id = '%s'", "gone");
  CU_ASSERT_EQUAL(a->ops->checkin(a, T0, NULL), 0);
  size_t recovered = 0;
  CU_ASSERT_EQUAL(a->ops->recover_dead_nodes(a, T0, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 1);
  CU_ASSERT_EQUAL(count(KEPT), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE job_name = "
                        "'left' AND outcome = 'FAILED' AND node = 'gone'"),
                  1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %striggers"), 0);
  CU_ASSERT_EQUAL(complete(gone, fires[0], 0), CHIME_ENOTOWNER);
  free_fires(fires, 1);
  gone->ops->free(gone);
  end(a);
}

/* -------------------------------------- moved to a fired row, and on */

/* A kept run of one-shot name, claimed on st: *ret its fire. */
static chime_fire **kept_run(chime_store *st, const char *name) {
  add_one_shot(st, name, false);
  chime_fire **fires;
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &fires), 1);
  CU_ASSERT_TRUE_FATAL(fires[0]->in_trigger_row);
  return fires;
}

/* The run of fire f is now a fired row, EXECUTING, node-a's, its trigger
 * row no longer keeping it; it completes once, recorded. */
static void assert_moved_and_completes(chime_store *st, const chime_fire *f) {
  char q[256];
  snprintf(q, sizeof q,
           "SELECT COUNT(*) FROM %%sfired WHERE fire_id = %lld AND state = "
           "'EXECUTING' AND node = 'node-a'",
           (long long)f->fire_id);
  CU_ASSERT_EQUAL(count(q), 1);
  CU_ASSERT_EQUAL(count(KEPT), 0);
  bool owned = false;
  CU_ASSERT_EQUAL(st->ops->still_owned(st, f, &owned), 0);
  CU_ASSERT_TRUE(owned);
  CU_ASSERT_EQUAL(complete(st, f, 0), 0);
  snprintf(q, sizeof q, "SELECT COUNT(*) FROM %%shistory WHERE fire_id = %lld",
           (long long)f->fire_id);
  CU_ASSERT_EQUAL(count(q), 1);
  CU_ASSERT_EQUAL(count(FIRED), 0);
}

static void test_mysql_runs_outlive_their_trigger(void) {
  chime_store *st = begin("u");
  chime_fire **fires = kept_run(st, "gone");
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "tg", "gone"), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %striggers"), 0);
  assert_moved_and_completes(st, fires[0]);
  free_fires(fires, 1);
  /* And their job. */
  fires = kept_run(st, "job-gone");
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "g", "job-gone"), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %sjobs"), 0);
  assert_moved_and_completes(st, fires[0]);
  free_fires(fires, 1);
  end(st);
}

static void test_mysql_runs_cancelled(void) {
  chime_store *st = begin("c");
  chime_fire **fires = kept_run(st, "long");
  size_t n = 0;
  CU_ASSERT_EQUAL(st->ops->interrupt(st, NULL, NULL, fires[0]->fire_id, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  int64_t *ids = NULL;
  CU_ASSERT_EQUAL(st->ops->interrupted(st, &ids, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL(ids[0], fires[0]->fire_id);
  free(ids);
  assert_moved_and_completes(st, fires[0]);
  free_fires(fires, 1);
  /* Every run of a job. */
  fires = kept_run(st, "long2");
  CU_ASSERT_EQUAL(st->ops->interrupt(st, "g", "long2", 0, &n), 0);
  CU_ASSERT_EQUAL(n, 1);
  assert_moved_and_completes(st, fires[0]);
  free_fires(fires, 1);
  end(st);
}

static void test_mysql_runs_checkpoint(void) {
  chime_store *st = begin("p");
  chime_fire **fires = kept_run(st, "steps");
  CU_ASSERT_EQUAL(st->ops->checkpoint_set(st, fires[0], "page 3", 6), 0);
  void *data = NULL;
  size_t len = 0;
  CU_ASSERT_EQUAL(st->ops->checkpoint_get(st, fires[0], &data, &len), 0);
  CU_ASSERT_EQUAL(len, 6);
  CU_ASSERT(data && memcmp(data, "page 3", 6) == 0);
  free(data);
  assert_moved_and_completes(st, fires[0]);
  free_fires(fires, 1);
  end(st);
}

static void test_mysql_runs_handed_over(void) {
  chime_store *st = begin("h");
  add_one_shot(st, "again", true);
  chime_fire **fires;
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->in_trigger_row);
  size_t handed = 0;
  CU_ASSERT_EQUAL(st->ops->hand_over(st, 5000, NULL, NULL, &handed), 0);
  CU_ASSERT_EQUAL(handed, 1);
  CU_ASSERT_EQUAL(count(KEPT), 0);
  CU_ASSERT_EQUAL(count(FIRED), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE outcome = "
                        "'REQUEUED'"),
                  1);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), CHIME_ENOTOWNER);
  free_fires(fires, 1);
  /* Another node runs it again. */
  chime_store *b = open_node(prefix, "node-b", false);
  CU_ASSERT_EQUAL_FATAL(claim(b, 5, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->recovering);
  CU_ASSERT_EQUAL(complete(b, fires[0], 0), 0);
  free_fires(fires, 1);
  b->ops->free(b);
  end(st);
}

/* The local queue gives back a kept run no worker could start: it runs
 * again at once, on whichever node claims it. */
static void test_mysql_runs_released(void) {
  chime_store *st = begin("x");
  chime_fire **fires = kept_run(st, "queued");
  size_t released = 0;
  CU_ASSERT_EQUAL(st->ops->release_fired(st, fires, 1, &released), 0);
  CU_ASSERT_EQUAL(released, 1);
  CU_ASSERT_EQUAL(count(KEPT), 0);
  CU_ASSERT_EQUAL(count(FIRED), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE outcome = "
                        "'REQUEUED'"),
                  1);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), CHIME_ENOTOWNER);
  free_fires(fires, 1);
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->recovering);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), 0);
  free_fires(fires, 1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE outcome = "
                        "'OK'"),
                  1);
  end(st);
}

static void test_mysql_runs_pause_leaves_them(void) {
  chime_store *st = begin("z");
  chime_fire **fires = kept_run(st, "paused");
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "paused"), 0);
  CU_ASSERT_EQUAL(st->ops->pause_job(st, "g", "paused"), 0);
  CU_ASSERT_EQUAL(count(KEPT), 1);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), 0);
  CU_ASSERT_EQUAL(count(KEPT), 0);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory"), 1);
  free_fires(fires, 1);
  end(st);
}

/* ------------------------------------------------- fencing and counting */

static void test_mysql_runs_stolen_refused(void) {
  chime_store *st = begin("s");
  chime_fire **fires = kept_run(st, "taken");
  sql("UPDATE %striggers SET owner = 'thief' WHERE trigger_name = '%s'",
      "taken");
  bool owned = true;
  CU_ASSERT_EQUAL(st->ops->still_owned(st, fires[0], &owned), 0);
  CU_ASSERT_FALSE(owned);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory"), 0);
  CU_ASSERT_EQUAL(count(KEPT), 1); /* the thief's */
  free_fires(fires, 1);
  end(st);
}

static void test_mysql_runs_counted_by_limits(void) {
  chime_store *st = begin("l");
  chime_limit_def one = {.max_running = 1};
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_set(st, "t", &one), 0);
  add_one_shot(st, "l1", false);
  add_one_shot(st, "l2", false);
  chime_fire **fires, **more;
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->in_trigger_row);
  CU_ASSERT_EQUAL(claim(st, 5, &more), 0); /* the type is full */
  free(more);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), 0);
  free_fires(fires, 1);
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &fires), 1);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), 0);
  free_fires(fires, 1);
  end(st);
}

/* A job made FORBID while a run it allowed beside others goes on: its
 * other trigger waits for that run. */
static void test_mysql_runs_seen_by_forbid(void) {
  chime_store *st = begin("f");
  chime_fire **fires = kept_run(st, "solo");
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "solo", &job), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, true), 0);
  chime_job_free(job);
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tg", "solo2", 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "solo"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  chime_fire **more;
  CU_ASSERT_EQUAL(claim(st, 5, &more), 0);
  free(more);
  CU_ASSERT_EQUAL(complete(st, fires[0], 0), 0);
  free_fires(fires, 1);
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &more), 1);
  CU_ASSERT_FALSE(more[0]->in_trigger_row); /* FORBID: a fired row */
  CU_ASSERT_EQUAL(complete(st, more[0], 0), 0);
  free_fires(more, 1);
  end(st);
}

/* A keyed run that fails with a retry left: its retry is the run's own
 * trigger again, taking over the row that kept the run. */
static void test_mysql_runs_keyed_retry_takes_the_row(void) {
  chime_store *st = begin("q");
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "keyed", "t", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(chime_test_set_retry(job, 3, 5000, 1.0, 0, 0), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  chime_enqueue *o = NULL;
  chime_trigger *t = NULL;
  char err[256];
  bool existed = true;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_run_at_ms(o, T0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_unique_key(o, "k1"), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime__enqueue_trigger("g", "keyed", o, 1, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add_many(st, &t, 1, &existed, err, sizeof err), 0);
  CU_ASSERT_FALSE(existed);
  chime_trigger_free(t);
  chime_enqueue_free(o);
  chime_fire **fires;
  CU_ASSERT_EQUAL_FATAL(claim(st, 5, &fires), 1);
  CU_ASSERT_TRUE(fires[0]->in_trigger_row);
  CU_ASSERT_EQUAL(complete(st, fires[0], CHIME_EJOBFAILED), 0);
  free_fires(fires, 1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %shistory WHERE outcome = "
                        "'RETRIED'"),
                  1);
  CU_ASSERT_EQUAL(count("SELECT COUNT(*) FROM %striggers WHERE state = "
                        "'WAITING' AND retry_attempt = 2 AND owner IS NULL"),
                  1);
  end(st);
}

int main(void) {
  CU_TestInfo tests[] = {
      {"a one-shot's run is kept in its trigger row",
       test_mysql_runs_one_shot_kept_in_its_row},
      {"fire ids stay unique, in claim order, beside fired rows",
       test_mysql_runs_ids_unique_in_claim_order},
      {"not while a node of an earlier release is live",
       test_mysql_runs_not_beside_an_earlier_release},
      {"a dead node's kept runs are recovered",
       test_mysql_runs_recovered_with_their_node},
      {"the kept runs of a node whose row is gone are recovered",
       test_mysql_runs_of_a_vanished_node_recovered},
      {"a run outlives its removed trigger or job",
       test_mysql_runs_outlive_their_trigger},
      {"a kept run is cancelled", test_mysql_runs_cancelled},
      {"a kept run writes a checkpoint", test_mysql_runs_checkpoint},
      {"a stopping node hands kept runs over", test_mysql_runs_handed_over},
      {"the local queue gives a kept run back", test_mysql_runs_released},
      {"a pause leaves a kept run alone", test_mysql_runs_pause_leaves_them},
      {"a stolen kept run is refused", test_mysql_runs_stolen_refused},
      {"a limit counts kept runs", test_mysql_runs_counted_by_limits},
      {"a job made FORBID waits for its kept run",
       test_mysql_runs_seen_by_forbid},
      {"a keyed run's retry takes its row over",
       test_mysql_runs_keyed_retry_takes_the_row},
      CU_TEST_INFO_NULL};
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-runs", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
