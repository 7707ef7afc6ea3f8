/*
 * store-conformance-fire.c: the job store conformance suite, part two:
 * the firing protocol (acquire, fire, complete, release), FORBID jobs,
 * fencing, job data, misfire scans, next_due and trigger states, a load
 * test and a multi-threaded test.  Times are explicit (see T0).
 */
#include "store-conformance-impl.h"

#include "model/records.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_x[] = {"x"};
static const chime_type_set only_x = {type_x, 1};

/* ---------------------------------------------------------------- acquire */

static void test_store_acquire_order(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  static const struct {
    const char *name;
    int64_t start;
    int priority;
  } rows[] = {
      {"late", T0 + 3 * SEC, 5},  {"low", T0 + SEC, 1},
      {"high", T0 + SEC, 9},      {"mid", T0 + 2 * SEC, 5},
      {"b-tie", T0 + 4 * SEC, 5}, {"a-tie", T0 + 4 * SEC, 5},
  };
  static const char *const order[] = {"high", "low",   "mid",
                                      "late", "a-tie", "b-tie"};
  sc_add_job(st, "g", "j", "t", true);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_trigger *t =
        sc_simple("tg", rows[i].name, "g", "j", rows[i].start, 0, 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_priority(t, rows[i].priority), 0);
    char err[256];
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
  }
  size_t n = sc_acquire(st, T0, T0 + MINUTE, 10, NULL, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 6);
  for (size_t i = 0; i < n; i++) {
    CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[i]->trigger), order[i]);
    CU_ASSERT_EQUAL(fires[i]->phase, CHIME_FIRE_ACQUIRED);
    CU_ASSERT_EQUAL(fires[i]->scheduled_ms,
                    chime_trigger_get_next_fire_ms(fires[i]->trigger));
    CU_ASSERT_STRING_EQUAL(chime_job_get_name(fires[i]->job), "j");
    if (i > 0)
      CU_ASSERT(fires[i]->fire_id > fires[i - 1]->fire_id);
  }
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_store_acquire_limits(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  sc_add_job(st, "g", "x-job", "x", true);
  sc_add_job(st, "g", "y-job", "y", true);
  sc_add_simple(st, "tg", "x1", "g", "x-job", T0, 0, 0);
  sc_add_simple(st, "tg", "x2", "g", "x-job", T0 + SEC, 0, 0);
  sc_add_simple(st, "tg", "x3", "g", "x-job", T0 + 10 * SEC, 0, 0);
  sc_add_simple(st, "tg", "y1", "g", "y-job", T0, 0, 0);

  /* The window: nothing due after no_later_than. */
  CU_ASSERT_EQUAL(sc_acquire(st, T0, T0 - 1, 10, NULL, &fires), 0);
  free(fires);
  /* max == 0. */
  CU_ASSERT_EQUAL(sc_acquire(st, T0, T0 + HOUR, 0, NULL, &fires), 0);
  free(fires);
  /* The type set. */
  chime_type_set none = {type_x, 0};
  CU_ASSERT_EQUAL(sc_acquire(st, T0, T0 + HOUR, 10, &none, &fires), 0);
  free(fires);
  size_t n = sc_acquire(st, T0, T0 + SEC, 1, &only_x, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[0]->trigger), "x1");
  CU_ASSERT_EQUAL(sc_status(st, "tg", "x1"), CHIME_TRIGGER_NORMAL);
  chime_fire **more;
  size_t m = sc_acquire(st, T0, T0 + SEC, 10, &only_x, &more);
  CU_ASSERT_EQUAL_FATAL(m, 1); /* x1 is ACQUIRED: never twice */
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(more[0]->trigger), "x2");
  /* Release returns the claims. */
  CU_ASSERT_EQUAL(st->ops->release(st, fires, n), 0);
  CU_ASSERT_EQUAL(st->ops->release(st, more, m), 0);
  sc_fires_free(fires, n);
  sc_fires_free(more, m);
  n = sc_acquire(st, T0, T0 + HOUR, 10, &only_x, &fires);
  CU_ASSERT_EQUAL(n, 3);
  sc_fires_free(fires, n);
  n = sc_acquire(st, T0, T0 + HOUR, 10, NULL, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[0]->trigger), "y1");
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_store_acquire_skips_misfired(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "late", "g", "j", T0 - THRESHOLD - 1, 0, 0);
  sc_add_simple(st, "tg", "edge", "g", "j", T0 - THRESHOLD + 1, 0, 0);
  chime_trigger *t = sc_simple("tg", "ignore", "g", "j", T0 - HOUR, 0, 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_misfire(t, CHIME_MISFIRE_IGNORE), 0);
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  size_t n = sc_acquire(st, T0, T0, 10, NULL, &fires);
  /* IGNORE triggers are never misfired: they fire late, as scheduled. */
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[0]->trigger), "ignore");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[1]->trigger), "edge");
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_store_acquire_across_types(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  static const char *const both_names[] = {"x", "y"};
  chime_type_set both = {both_names, 2};
  sc_add_job(st, "g", "x-job", "x", true);
  sc_add_job(st, "g", "y-job", "y", true);
  sc_add_simple(st, "tg", "x2", "g", "x-job", T0 + 2 * SEC, 0, 0);
  sc_add_simple(st, "tg", "y1", "g", "y-job", T0 + SEC, 0, 0);
  sc_add_simple(st, "tg", "y3", "g", "y-job", T0 + 3 * SEC, 0, 0);
  size_t n = sc_acquire(st, T0, T0 + HOUR, 10, &both, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[0]->trigger), "y1");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[1]->trigger), "x2");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[2]->trigger), "y3");
  CU_ASSERT_EQUAL(st->ops->release(st, fires, n), 0);
  sc_fires_free(fires, n);
  /* A job replaced with another type takes its triggers along. */
  chime_job *job = sc_job("g", "y-job", "x", true);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, true), 0);
  chime_job_free(job);
  n = sc_acquire(st, T0, T0 + HOUR, 10, &only_x, &fires);
  CU_ASSERT_EQUAL(n, 3);
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_store_fire_ignore_late(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", true);
  chime_trigger *t = sc_simple("tg", "t", "g", "j", T0, MINUTE, 3);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_misfire(t, CHIME_MISFIRE_IGNORE), 0);
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  /* An hour late, every missed time still fires, as scheduled. */
  for (int i = 0; i < 4; i++) {
    chime_fire *f = sc_fire_next(st, T0 + HOUR);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->scheduled_ms, T0 + i * MINUTE);
    CU_ASSERT_EQUAL(sc_complete(st, f), 0);
    chime__fire_free(f);
  }
  CU_ASSERT_PTR_NULL(sc_fire_next(st, T0 + HOUR));
  CU_ASSERT_EQUAL(sc_status(st, "tg", "t"), CHIME_TRIGGER_NONE);
  sc_close(st);
}

/* ------------------------------------------------------------------ fire */

static void test_store_fire_simple_repeat(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", false);
  sc_add_simple(st, "tg", "t", "g", "j", T0, MINUTE, 2);
  for (int i = 0; i < 3; i++) {
    int64_t now = T0 + i * MINUTE;
    chime_fire *f = sc_fire_next(st, now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->phase, CHIME_FIRE_EXECUTING);
    CU_ASSERT_EQUAL(f->scheduled_ms, now);
    CU_ASSERT_EQUAL(chime_trigger_get_times_triggered(f->trigger), i + 1);
    CU_ASSERT_EQUAL(chime_trigger_get_prev_fire_ms(f->trigger), now);
    CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(f->trigger),
                    i < 2 ? now + MINUTE : CHIME_NO_FIRE_MS);
    CU_ASSERT_EQUAL(sc_status(st, "tg", "t"),
                    i < 2 ? CHIME_TRIGGER_NORMAL : CHIME_TRIGGER_COMPLETE);
    /* Not acquired again before its next time. */
    chime_fire **fires;
    CU_ASSERT_EQUAL(sc_acquire(st, now, now + MINUTE - 1, 10, NULL, &fires), 0);
    free(fires);
    CU_ASSERT_EQUAL(sc_complete(st, f), 0);
    chime__fire_free(f);
  }
  /* Complete removed the finished trigger, and its non-durable job. */
  CU_ASSERT_EQUAL(sc_status(st, "tg", "t"), CHIME_TRIGGER_NONE);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "j", &job), CHIME_ENOTFOUND);
  int64_t due;
  CU_ASSERT_EQUAL(st->ops->next_due(st, NULL, INT64_MIN, &due),
                  CHIME_ENOTFOUND);
  sc_close(st);
}

static void test_store_fire_lost_claims(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  char err[256];
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "a", "g", "j", T0, 0, 0);
  sc_add_simple(st, "tg", "b", "g", "j", T0, 0, 0);
  sc_add_simple(st, "tg", "c", "g", "j", T0, 0, 0);
  sc_add_simple(st, "tg", "d", "g", "j", T0, 0, 0);
  size_t n = sc_acquire(st, T0, T0, 10, NULL, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "tg", "a"), 0);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "b"), 0);
  chime_trigger *t = sc_simple("tg", "d", "g", "j", T0 + HOUR, 0, 0);
  CU_ASSERT_EQUAL(
      st->ops->trigger_replace(st, "tg", "d", t, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, fires, n, T0), 0);
  CU_ASSERT_NOT_EQUAL(fires[0]->result, 0); /* removed */
  CU_ASSERT_NOT_EQUAL(fires[1]->result, 0); /* paused */
  CU_ASSERT_EQUAL(fires[2]->result, 0);
  CU_ASSERT_NOT_EQUAL(fires[3]->result, 0); /* replaced */
  CU_ASSERT_EQUAL(sc_complete(st, fires[0]), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(sc_complete(st, fires[2]), 0);
  CU_ASSERT_EQUAL(st->ops->release(st, fires, n), 0);
  sc_fires_free(fires, n);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "b"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "d"), T0 + HOUR);
  CU_ASSERT_EQUAL(st->ops->resume_trigger(st, "tg", "b"), 0);
  n = sc_acquire(st, T0, T0 + HOUR, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 2); /* b again, and the new d */
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_store_complete_fencing(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  bool owned = true;
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "t", "g", "j", T0, MINUTE, 5);
  chime_fire unknown = {.fire_id = INT64_C(999999999)};
  CU_ASSERT_EQUAL(sc_complete(st, &unknown), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(st->ops->still_owned(st, &unknown, &owned), 0);
  CU_ASSERT_FALSE(owned);
  size_t n = sc_acquire(st, T0, T0, 1, NULL, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  /* Claimed but not fired: not executing. */
  CU_ASSERT_EQUAL(sc_complete(st, fires[0]), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(st->ops->fire(st, fires, 1, T0), 0);
  CU_ASSERT_EQUAL(fires[0]->result, 0);
  CU_ASSERT_EQUAL(st->ops->still_owned(st, fires[0], &owned), 0);
  CU_ASSERT_TRUE(owned);
  /* Firing twice is refused. */
  CU_ASSERT_EQUAL(st->ops->fire(st, fires, 1, T0), 0);
  CU_ASSERT_NOT_EQUAL(fires[0]->result, 0);
  CU_ASSERT_EQUAL(sc_complete(st, fires[0]), 0);
  CU_ASSERT_EQUAL(st->ops->still_owned(st, fires[0], &owned), 0);
  CU_ASSERT_FALSE(owned);
  CU_ASSERT_EQUAL(sc_complete(st, fires[0]), CHIME_ENOTOWNER);
  int64_t last = fires[0]->fire_id;
  sc_fires_free(fires, n);
  /* Fire ids grow. */
  chime_fire *f = sc_fire_next(st, T0 + MINUTE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT(f->fire_id > last);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  sc_close(st);
}

static void test_store_persist_data(void) {
  chime_store *st = sc_open();
  static const struct {
    const char *name;
    bool persist;
    const char *expect;
  } rows[] = {{"keeps", true, "new"}, {"forgets", false, "old"}};
  for (size_t i = 0; i < 2; i++) {
    chime_job *job = sc_job("g", rows[i].name, "t", true);
    CU_ASSERT_EQUAL_FATAL(chime_job_set_data(job, "old", 3), 0);
    CU_ASSERT_EQUAL_FATAL(chime_job_set_persist_data(job, rows[i].persist), 0);
    CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
    chime_job_free(job);
    sc_add_simple(st, "tg", rows[i].name, "g", rows[i].name, T0, 0, 0);
  }
  for (size_t i = 0; i < 2; i++) {
    chime_fire *f = sc_fire_next(st, T0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t len = 0;
    const void *data = chime_job_get_data(f->job, &len);
    CU_ASSERT_EQUAL(len, 3);
    CU_ASSERT(data && memcmp(data, "old", 3) == 0);
    chime_run_result o = {.started_ms = T0,
                          .finished_ms = T0 + 1,
                          .set_data = true,
                          .data = "new",
                          .data_len = 3};
    CU_ASSERT_EQUAL(st->ops->complete(st, f, &o), 0);
    chime__fire_free(f);
  }
  for (size_t i = 0; i < 2; i++) {
    chime_job *job = NULL;
    CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", rows[i].name, &job), 0);
    size_t len = 0;
    const void *data = chime_job_get_data(job, &len);
    CU_ASSERT_EQUAL(len, 3);
    CU_ASSERT(data && memcmp(data, rows[i].expect, 3) == 0);
    chime_job_free(job);
  }
  sc_close(st);
}

/* ------------------------------------------------------------------ FORBID */

static void add_prio(chime_store *st, const char *name, const char *job,
                     int64_t start, int prio, int32_t repeat) {
  chime_trigger *t = sc_simple("tg", name, "g", job, start, MINUTE, repeat);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_priority(t, prio), 0);
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
}

static void test_store_forbid_blocks(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  chime_job *job = sc_job("g", "f", "t", true);
  CU_ASSERT_EQUAL_FATAL(
      chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  sc_add_job(st, "g", "free", "t", true);
  add_prio(st, "a", "f", T0, 9, 1);
  add_prio(st, "b", "f", T0, 1, 0);
  add_prio(st, "c", "free", T0, 5, 0);
  add_prio(st, "d", "free", T0, 5, 0);
  /* One trigger per FORBID job per batch; ALLOW jobs are not limited. */
  size_t n = sc_acquire(st, T0, T0, 10, NULL, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[0]->trigger), "a");
  /* Nor across batches while the claim is held. */
  chime_fire **again;
  CU_ASSERT_EQUAL(sc_acquire(st, T0, T0, 10, NULL, &again), 0);
  free(again);
  CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, fires, 1, T0), 0);
  CU_ASSERT_EQUAL(fires[0]->result, 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "a"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "b"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_EQUAL(fires[0]->trigger->store_state, CHIME_STATE_BLOCKED);
  CU_ASSERT_EQUAL(sc_acquire(st, T0 + MINUTE, T0 + MINUTE, 10, NULL, &again),
                  0);
  free(again);
  /* Paused while blocked, resumed while still blocked. */
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "b"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "b"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(st->ops->resume_trigger(st, "tg", "b"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "b"), CHIME_TRIGGER_BLOCKED);
  /* A trigger added to a running FORBID job starts blocked. */
  add_prio(st, "e", "f", T0, 5, 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "e"), CHIME_TRIGGER_BLOCKED);
  /* Completing unblocks. */
  CU_ASSERT_EQUAL(sc_complete(st, fires[0]), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "a"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "b"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "e"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(st->ops->release(st, fires + 1, 2), 0);
  sc_fires_free(fires, n);
  /* (At T0 + MINUTE those due at T0 would be misfired.) */
  n = sc_acquire(st, T0 + SEC, T0 + MINUTE, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 3); /* c, d and e: one of a, b, e */
  static const char *const expect[] = {"c", "d", "e"};
  for (size_t i = 0; i < n && i < 3; i++)
    CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[i]->trigger),
                           expect[i]);
  sc_fires_free(fires, n);
  sc_close(st);
}

/* acquire_due claims and fires in one step: what the engine does when it
 * claims nothing ahead (the default). */
static void test_store_acquire_due(void) {
  chime_store *st = sc_open();
  chime_fire **fires = NULL;
  size_t n = 0;
  chime_job *job = sc_job("g", "f", "t", true);
  CU_ASSERT_EQUAL_FATAL(
      chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "every", "g", "j", T0, MINUTE, 1);
  sc_add_simple(st, "tg", "once", "g", "j", T0, 0, 0);
  sc_add_simple(st, "tg", "later", "g", "j", T0 + SEC, 0, 0);
  add_prio(st, "forbid-a", "f", T0, 9, 1);
  add_prio(st, "forbid-b", "f", T0, 1, 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->acquire_due(st, T0, T0, 10, NULL, &fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, 3); /* every, once, one FORBID; not later */
  for (size_t i = 0; i < n; i++) {
    CU_ASSERT_EQUAL(fires[i]->phase, CHIME_FIRE_EXECUTING);
    CU_ASSERT_EQUAL(fires[i]->result, 0);
    CU_ASSERT_EQUAL(fires[i]->scheduled_ms, T0);
    CU_ASSERT(fires[i]->fire_id > 0);
  }
  /* Fired: the triggers moved on, the FORBID job is blocked. */
  CU_ASSERT_EQUAL(sc_next(st, "tg", "every"), T0 + MINUTE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "once"), CHIME_TRIGGER_COMPLETE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "forbid-a"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "forbid-b"), CHIME_TRIGGER_BLOCKED);
  chime_fire **again = NULL;
  size_t m = 9;
  CU_ASSERT_EQUAL(st->ops->acquire_due(st, T0, T0, 10, NULL, &again, &m), 0);
  CU_ASSERT_EQUAL(m, 0);
  free(again);
  for (size_t i = 0; i < n; i++)
    CU_ASSERT_EQUAL(sc_complete(st, fires[i]), 0);
  sc_fires_free(fires, n);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "once"), CHIME_TRIGGER_NONE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "forbid-a"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "forbid-b"), CHIME_TRIGGER_NORMAL);
  /* The other FORBID trigger now, and later's time. */
  CU_ASSERT_EQUAL_FATAL(
      st->ops->acquire_due(st, T0 + SEC, T0 + SEC, 10, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL(n, 2);
  sc_fires_free(fires, n);
  sc_close(st);
}

/* acquire_due claims ahead: a fire due within no_later_than_ms is claimed
 * and fired at once, with its own scheduled time (the engine starts it
 * then); one due after it is left. */
static void test_store_acquire_due_ahead(void) {
  chime_store *st = sc_open();
  chime_fire **fires = NULL;
  size_t n = 0;
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "soon", "g", "j", T0 + 15, MINUTE, 1);
  sc_add_simple(st, "tg", "after", "g", "j", T0 + 30, 0, 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->acquire_due(st, T0, T0 + 20, 10, NULL, &fires, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL(fires[0]->phase, CHIME_FIRE_EXECUTING);
  CU_ASSERT_EQUAL(fires[0]->scheduled_ms, T0 + 15);
  CU_ASSERT_STRING_EQUAL(fires[0]->trigger->name, "soon");
  CU_ASSERT_EQUAL(sc_next(st, "tg", "soon"), T0 + 15 + MINUTE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "after"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(sc_complete(st, fires[0]), 0);
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_store_trigger_states(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "f", "t", true);
  CU_ASSERT_EQUAL_FATAL(
      chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  add_prio(st, "once", "f", T0, 9, 0);
  add_prio(st, "other", "f", T0 + HOUR, 5, 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "none"), CHIME_TRIGGER_NONE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "once"), CHIME_TRIGGER_NORMAL);
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->trigger->store_state, CHIME_STATE_COMPLETE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "once"), CHIME_TRIGGER_COMPLETE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "other"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "other"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "other"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "once"), CHIME_TRIGGER_NONE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "other"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(st->ops->resume_trigger(st, "tg", "other"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "other"), CHIME_TRIGGER_NORMAL);
  sc_close(st);
}

static void test_store_next_due(void) {
  chime_store *st = sc_open();
  int64_t due = 0;
  CU_ASSERT_EQUAL(st->ops->next_due(st, NULL, INT64_MIN, &due),
                  CHIME_ENOTFOUND);
  sc_add_job(st, "g", "x-job", "x", true);
  sc_add_job(st, "g", "y-job", "y", true);
  sc_add_simple(st, "tg", "x", "g", "x-job", T0 + 5 * SEC, 0, 0);
  sc_add_simple(st, "tg", "y", "g", "y-job", T0 + SEC, 0, 0);
  CU_ASSERT_EQUAL(st->ops->next_due(st, NULL, INT64_MIN, &due), 0);
  CU_ASSERT_EQUAL(due, T0 + SEC);
  CU_ASSERT_EQUAL(st->ops->next_due(st, &only_x, INT64_MIN, &due), 0);
  CU_ASSERT_EQUAL(due, T0 + 5 * SEC);
  static const char *const type_z[] = {"z"};
  chime_type_set only_z = {type_z, 1};
  CU_ASSERT_EQUAL(st->ops->next_due(st, &only_z, INT64_MIN, &due),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "y"), 0);
  CU_ASSERT_EQUAL(st->ops->next_due(st, NULL, INT64_MIN, &due), 0);
  CU_ASSERT_EQUAL(due, T0 + 5 * SEC);
  /* Misfired triggers count. */
  sc_add_simple(st, "tg", "old", "g", "x-job", T0 - DAY, 0, 0);
  CU_ASSERT_EQUAL(st->ops->next_due(st, &only_x, INT64_MIN, &due), 0);
  CU_ASSERT_EQUAL(due, T0 - DAY);
  /* Looking past the due ones (a row held by another session, which
   * acquire skips): the first one later than after_ms. */
  CU_ASSERT_EQUAL(st->ops->next_due(st, &only_x, T0 - DAY, &due), 0);
  CU_ASSERT_EQUAL(due, T0 + 5 * SEC);
  CU_ASSERT_EQUAL(st->ops->next_due(st, &only_x, T0, &due), 0);
  CU_ASSERT_EQUAL(due, T0 + 5 * SEC);
  CU_ASSERT_EQUAL(st->ops->next_due(st, &only_x, T0 + 5 * SEC, &due),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->next_due(st, NULL, T0 + 4 * SEC, &due), 0);
  CU_ASSERT_EQUAL(due, T0 + 5 * SEC);
  /* The held-out ones are back: nothing lost. */
  CU_ASSERT_EQUAL(st->ops->next_due(st, &only_x, INT64_MIN, &due), 0);
  CU_ASSERT_EQUAL(due, T0 - DAY);
  sc_close(st);
}

/* ---------------------------------------------------------------- misfires */

/* What a misfire callback saw. */
typedef struct seen {
  int count;
  int64_t next[16];
  char names[16][32];
} seen;

static void on_misfire(void *user_data, const chime_trigger *t) {
  seen *s = user_data;
  if (s->count < 16) {
    s->next[s->count] = chime_trigger_get_next_fire_ms(t);
    snprintf(s->names[s->count], sizeof s->names[0], "%s",
             chime_trigger_get_name(t));
  }
  s->count++;
}

#define NOW_MARK (INT64_MIN + 1) /* "now" in a table row */
#define NONE CHIME_NO_FIRE_MS

/* Simple triggers: start T0, every minute; scanned at T0 + 10.5 minutes. */
static const struct {
  chime_misfire misfire;
  int32_t repeat;
  int64_t end; /* 0: none */
  bool handled;
  int64_t next;  /* NOW_MARK: now */
  int64_t times; /* times_triggered after */
  int32_t repeat_after;
  chime_trigger_status status;
  int line;
} simple_rows[] = {
    {CHIME_MISFIRE_SMART, 20, 0, true, NOW_MARK, 0, 20, CHIME_TRIGGER_NORMAL,
     __LINE__},
    {CHIME_MISFIRE_SMART, 0, 0, true, NOW_MARK, 0, 0, CHIME_TRIGGER_NORMAL,
     __LINE__},
    {CHIME_MISFIRE_SMART, CHIME_REPEAT_INDEFINITELY, 0, true, T0 + 11 * MINUTE,
     11, CHIME_REPEAT_INDEFINITELY, CHIME_TRIGGER_NORMAL, __LINE__},
    {CHIME_MISFIRE_IGNORE, 20, 0, false, T0, 0, 20, CHIME_TRIGGER_NORMAL,
     __LINE__},
    {CHIME_MISFIRE_FIRE_NOW, 20, 0, true, NOW_MARK, 0, 10, CHIME_TRIGGER_NORMAL,
     __LINE__},
    {CHIME_MISFIRE_FIRE_NOW, 0, 0, true, NOW_MARK, 0, 0, CHIME_TRIGGER_NORMAL,
     __LINE__},
    {CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT, 20, 0, true, NOW_MARK, 0, 20,
     CHIME_TRIGGER_NORMAL, __LINE__},
    {CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT, 20, T0 + 5 * MINUTE, true,
     NONE, 0, 20, CHIME_TRIGGER_COMPLETE, __LINE__},
    {CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT, 20, 0, true, NOW_MARK, 0, 10,
     CHIME_TRIGGER_NORMAL, __LINE__},
    {CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT, 5, 0, true, NOW_MARK, 0, 0,
     CHIME_TRIGGER_NORMAL, __LINE__},
    {CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT, 20, 0, true,
     T0 + 11 * MINUTE, 11, 20, CHIME_TRIGGER_NORMAL, __LINE__},
    {CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT, 20, 0, true,
     T0 + 11 * MINUTE, 0, 20, CHIME_TRIGGER_NORMAL, __LINE__},
    {CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT, 5, 0, true, NONE, 0, 5,
     CHIME_TRIGGER_COMPLETE, __LINE__},
};

static void test_store_misfire_simple(void) {
  const int64_t now = T0 + 10 * MINUTE + 30 * SEC;
  for (size_t i = 0; i < sizeof simple_rows / sizeof simple_rows[0]; i++) {
    chime_store *st = sc_open();
    char err[256];
    sc_add_job(st, "g", "j", "t", true);
    chime_trigger *t =
        sc_simple("tg", "t", "g", "j", T0, MINUTE, simple_rows[i].repeat);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_misfire(t, simple_rows[i].misfire),
                          0);
    if (simple_rows[i].end)
      CU_ASSERT_EQUAL_FATAL(chime_trigger_set_end_ms(t, simple_rows[i].end), 0);
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
    seen s = {0};
    size_t handled = 99;
    bool more = true;
    CU_ASSERT_EQUAL_FATAL(
        st->ops->scan_misfires(st, now, 10, on_misfire, &s, &handled, &more),
        0);
    int64_t next = simple_rows[i].next == NOW_MARK ? now : simple_rows[i].next;
    chime_trigger *got = sc_get(st, "tg", "t");
    bool good =
        handled == (simple_rows[i].handled ? 1u : 0u) && !more &&
        s.count == (int)handled &&
        chime_trigger_get_next_fire_ms(got) == next &&
        chime_trigger_get_times_triggered(got) == simple_rows[i].times &&
        got->state.repeat_count == simple_rows[i].repeat_after &&
        sc_status(st, "tg", "t") == simple_rows[i].status &&
        (s.count == 0 || s.next[0] == next);
    if (!good)
      fprintf(stderr,
              "row at line %d: handled %zu, next %+lld s, times %lld, "
              "repeat %d, status %d\n",
              simple_rows[i].line, handled,
              (long long)((chime_trigger_get_next_fire_ms(got) - T0) / SEC),
              (long long)chime_trigger_get_times_triggered(got),
              (int)got->state.repeat_count, (int)sc_status(st, "tg", "t"));
    CU_ASSERT(good);
    chime_trigger_free(got);
    sc_close(st);
  }
}

static void test_store_misfire_cron(void) {
  const int64_t now = T0 + 2 * HOUR + 30 * MINUTE;
  static const struct {
    chime_misfire misfire;
    int64_t end; /* 0: none */
    bool handled;
    int64_t next;
    chime_trigger_status status;
    int line;
  } rows[] = {
      {CHIME_MISFIRE_SMART, 0, true, NOW_MARK, CHIME_TRIGGER_NORMAL, __LINE__},
      {CHIME_MISFIRE_FIRE_NOW, 0, true, NOW_MARK, CHIME_TRIGGER_NORMAL,
       __LINE__},
      {CHIME_MISFIRE_DO_NOTHING, 0, true, T0 + 3 * HOUR, CHIME_TRIGGER_NORMAL,
       __LINE__},
      {CHIME_MISFIRE_DO_NOTHING, T0 + 2 * HOUR, true, NONE,
       CHIME_TRIGGER_COMPLETE, __LINE__},
      {CHIME_MISFIRE_IGNORE, 0, false, T0, CHIME_TRIGGER_NORMAL, __LINE__},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_store *st = sc_open();
    char err[256];
    sc_add_job(st, "g", "j", "t", true);
    chime_trigger *t = sc_cron("tg", "t", "g", "j", "0 0 * * * ?", T0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_misfire(t, rows[i].misfire), 0);
    if (rows[i].end)
      CU_ASSERT_EQUAL_FATAL(chime_trigger_set_end_ms(t, rows[i].end), 0);
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
    seen s = {0};
    size_t handled = 99;
    bool more = true;
    CU_ASSERT_EQUAL_FATAL(
        st->ops->scan_misfires(st, now, 10, on_misfire, &s, &handled, &more),
        0);
    int64_t next = rows[i].next == NOW_MARK ? now : rows[i].next;
    int64_t got = sc_next(st, "tg", "t");
    chime_trigger_status status = sc_status(st, "tg", "t");
    bool good = handled == (rows[i].handled ? 1u : 0u) && !more &&
                got == next && status == rows[i].status &&
                s.count == (int)handled;
    if (!good)
      fprintf(stderr, "row at line %d: handled %zu, next %+lld s, status %d\n",
              rows[i].line, handled, (long long)((got - T0) / SEC),
              (int)status);
    CU_ASSERT(good);
    sc_close(st);
  }
}

static void test_store_misfire_batches(void) {
  chime_store *st = sc_open();
  char name[16];
  sc_add_job(st, "g", "j", "t", true);
  /* m0 is the oldest. */
  for (int i = 0; i < 5; i++) {
    snprintf(name, sizeof name, "m%d", i);
    sc_add_simple(st, "tg", name, "g", "j", T0 - HOUR + i * MINUTE, 0, 0);
  }
  sc_add_simple(st, "tg", "fresh", "g", "j", T0, 0, 0);
  seen s = {0};
  size_t handled = 0;
  bool more = false;
  CU_ASSERT_EQUAL_FATAL(
      st->ops->scan_misfires(st, T0, 2, on_misfire, &s, &handled, &more), 0);
  CU_ASSERT_EQUAL(handled, 2);
  CU_ASSERT_TRUE(more);
  CU_ASSERT_EQUAL_FATAL(s.count, 2);
  CU_ASSERT_STRING_EQUAL(s.names[0], "m0");
  CU_ASSERT_STRING_EQUAL(s.names[1], "m1");
  CU_ASSERT_EQUAL_FATAL(
      st->ops->scan_misfires(st, T0, 2, on_misfire, &s, &handled, &more), 0);
  CU_ASSERT_EQUAL(handled, 2);
  CU_ASSERT_TRUE(more);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->scan_misfires(st, T0, 10, NULL, NULL, &handled, &more), 0);
  CU_ASSERT_EQUAL(handled, 1);
  CU_ASSERT_FALSE(more);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->scan_misfires(st, T0, 10, on_misfire, &s, &handled, &more), 0);
  CU_ASSERT_EQUAL(handled, 0);
  CU_ASSERT_FALSE(more);
  CU_ASSERT_EQUAL(s.count, 4);
  /* All six are due now (FIRE_NOW), "fresh" included. */
  chime_fire **fires;
  size_t n = sc_acquire(st, T0, T0, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 6);
  sc_fires_free(fires, n);
  sc_close(st);
}

/* ------------------------------------------------------------------ load */

static uint64_t next_random(uint64_t *state) {
  /* xorshift64*: deterministic and good enough for spreading times. */
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * UINT64_C(2685821657736338717);
}

static void test_store_many_triggers(void) {
  chime_store *st = sc_open();
  char name[32], err[256];
  uint64_t rnd = 42;
  sc_add_job(st, "g", "j", "t", true);
  for (size_t i = 0; i < sc_load_triggers; i++) {
    uint64_t r = next_random(&rnd);
    snprintf(name, sizeof name, "t%06zu", i);
    chime_trigger *t =
        sc_simple("load", name, "g", "j", T0 + (int64_t)(r % 1000000), 0, 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_priority(t, (int)(r >> 60)), 0);
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
  }
  size_t total = 0;
  int64_t last_ms = INT64_MIN;
  int last_prio = 0;
  bool ordered = true;
  for (;;) {
    chime_fire **fires;
    size_t n = sc_acquire(st, T0, INT64_MAX, 1000, NULL, &fires);
    if (n == 0) {
      free(fires);
      break;
    }
    for (size_t i = 0; i < n; i++) {
      int64_t ms = fires[i]->scheduled_ms;
      int prio = chime_trigger_get_priority(fires[i]->trigger);
      if (ms < last_ms || (ms == last_ms && prio > last_prio))
        ordered = false;
      last_ms = ms;
      last_prio = prio;
    }
    total += n;
    sc_fires_free(fires, n);
  }
  CU_ASSERT_TRUE(ordered);
  CU_ASSERT_EQUAL(total, sc_load_triggers);
  sc_close(st);
}

#define CHURN_TRIGGERS 2000

/* Pauses, resumes and removals at random leave acquire exact and ordered. */
static void test_store_churn_keeps_order(void) {
  chime_store *st = sc_open();
  char name[32];
  uint64_t rnd = 7;
  /* 0: waiting, 1: paused, 2: removed. */
  static unsigned char fate[CHURN_TRIGGERS];
  sc_add_job(st, "g", "j", "t", true);
  for (int i = 0; i < CHURN_TRIGGERS; i++) {
    snprintf(name, sizeof name, "c%d", i);
    int64_t start = T0 + (int64_t)(next_random(&rnd) % 5000);
    sc_add_simple(st, "churn", name, "g", "j", start, 0, 0);
    fate[i] = 0;
  }
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < CHURN_TRIGGERS; i++) {
      uint64_t r = next_random(&rnd) % 8;
      snprintf(name, sizeof name, "c%d", i);
      if (fate[i] == 2)
        continue;
      if (r == 0) {
        CU_ASSERT_EQUAL_FATAL(st->ops->trigger_remove(st, "churn", name), 0);
        fate[i] = 2;
      } else if (r <= 2) {
        CU_ASSERT_EQUAL_FATAL(st->ops->pause_trigger(st, "churn", name), 0);
        fate[i] = 1;
      } else if (r == 3) {
        CU_ASSERT_EQUAL_FATAL(st->ops->resume_trigger(st, "churn", name), 0);
        fate[i] = 0;
      }
    }
  }
  size_t expect = 0, got = 0;
  for (int i = 0; i < CHURN_TRIGGERS; i++)
    expect += fate[i] == 0;
  int64_t last = INT64_MIN;
  bool ordered = true, right = true;
  for (;;) {
    chime_fire **fires;
    size_t n = sc_acquire(st, T0, T0 + 5000, 64, NULL, &fires);
    for (size_t i = 0; i < n; i++) {
      int idx =
          (int)strtol(chime_trigger_get_name(fires[i]->trigger) + 1, NULL, 10);
      right = right && idx >= 0 && idx < CHURN_TRIGGERS && fate[idx] == 0;
      ordered = ordered && fires[i]->scheduled_ms >= last;
      last = fires[i]->scheduled_ms;
    }
    got += n;
    sc_fires_free(fires, n);
    if (n == 0)
      break;
  }
  CU_ASSERT_TRUE(ordered);
  CU_ASSERT_TRUE(right);
  CU_ASSERT_EQUAL(got, expect);
  sc_close(st);
}

/* --------------------------------------------------------------- threads */

#define THREADS 8

typedef struct race {
  chime_store *st;
  atomic_int *seen;
  int count;
  atomic_int errors;
} race;

static void *racer(void *arg) {
  race *r = arg;
  chime_store *st = r->st;
  const int64_t now = T0 + SEC;
  for (;;) {
    chime_fire **fires = NULL;
    size_t n = 0;
    if (st->ops->acquire(st, now, now, 16, NULL, &fires, &n) != 0) {
      atomic_fetch_add(&r->errors, 1);
      break;
    }
    if (n == 0) {
      free(fires);
      break;
    }
    for (size_t i = 0; i < n; i++) {
      int idx =
          (int)strtol(chime_trigger_get_name(fires[i]->trigger) + 1, NULL, 10);
      if (idx < 0 || idx >= r->count)
        atomic_fetch_add(&r->errors, 1);
      else
        atomic_fetch_add(&r->seen[idx], 1);
    }
    if (st->ops->fire(st, fires, n, now) != 0)
      atomic_fetch_add(&r->errors, 1);
    for (size_t i = 0; i < n; i++) {
      chime_run_result o = {.started_ms = now, .finished_ms = now};
      if (fires[i]->result != 0 || st->ops->complete(st, fires[i], &o) != 0)
        atomic_fetch_add(&r->errors, 1);
      chime__fire_free(fires[i]);
    }
    free(fires);
  }
  return NULL;
}

static void test_store_threads_never_share(void) {
  race *r = calloc(1, sizeof *r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  r->count = (int)sc_thread_triggers;
  r->seen = calloc((size_t)r->count, sizeof *r->seen);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->seen);
  r->st = sc_open();
  char name[32];
  sc_add_job(r->st, "g", "j", "t", false);
  for (int i = 0; i < r->count; i++) {
    snprintf(name, sizeof name, "t%d", i);
    sc_add_simple(r->st, "race", name, "g", "j", T0 + i % SEC, 0, 0);
  }
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, racer, r), 0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  CU_ASSERT_EQUAL(atomic_load(&r->errors), 0);
  int twice = 0, never = 0;
  for (int i = 0; i < r->count; i++) {
    int k = atomic_load(&r->seen[i]);
    twice += k > 1;
    never += k == 0;
  }
  CU_ASSERT_EQUAL(twice, 0);
  CU_ASSERT_EQUAL(never, 0);
  /* Every trigger completed and went, and the job with them. */
  chime_key *keys = NULL;
  size_t n = 99;
  CU_ASSERT_EQUAL(
      r->st->ops->trigger_list(r->st, CHIME_MATCH_ANY, NULL, &keys, &n), 0);
  CU_ASSERT_EQUAL(n, 0);
  chime_key_free_array(keys, n);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL(r->st->ops->job_get(r->st, "g", "j", &job), CHIME_ENOTFOUND);
  sc_close(r->st);
  free(r->seen);
  free(r);
}

CU_TestInfo sc_fire_tests[] = {
    {"acquire orders by time, then priority", test_store_acquire_order},
    {"acquire honours max, window, types, claims", test_store_acquire_limits},
    {"acquire skips misfired triggers", test_store_acquire_skips_misfired},
    {"acquire across job types; a job changing type",
     test_store_acquire_across_types},
    {"IGNORE triggers fire every missed time", test_store_fire_ignore_late},
    {"fire computes the next fire; complete removes finished",
     test_store_fire_simple_repeat},
    {"fire refuses lost claims", test_store_fire_lost_claims},
    {"acquire_due claims and fires in one step", test_store_acquire_due},
    {"acquire_due claims ahead with the fire's own time",
     test_store_acquire_due_ahead},
    {"complete and still_owned fence fires", test_store_complete_fencing},
    {"job data persisted after a run", test_store_persist_data},
    {"FORBID jobs block and unblock", test_store_forbid_blocks},
    {"trigger states", test_store_trigger_states},
    {"next_due", test_store_next_due},
    {"misfire instructions of simple triggers", test_store_misfire_simple},
    {"misfire instructions of cron triggers", test_store_misfire_cron},
    {"misfire scans in batches, oldest first", test_store_misfire_batches},
    {"100000 triggers acquire in order", test_store_many_triggers},
    {"random pauses and removals keep acquire exact",
     test_store_churn_keeps_order},
    {"threads never acquire one trigger twice", test_store_threads_never_share},
    CU_TEST_INFO_NULL,
};
