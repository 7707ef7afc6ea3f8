/*
 * store-conformance-policies.c: the job store conformance suite, part
 * three: run policies (store.h's interrupt and interrupted; a job's
 * timeout kept with the job).
 */
#include "store-conformance-impl.h"

#include "harness.h"

#include "model/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  CU_ASSERT_EQUAL(chime_job_set_starting_deadline_ms(job, 700), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_trigger *trig = sc_simple("t", "a", "g", "j", T0, MINUTE, 5);
  CU_ASSERT_EQUAL(chime_trigger_set_timeout_ms(trig, 900), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_starting_deadline_ms(trig, 300), 0);
  CU_ASSERT_EQUAL(st->ops->trigger_add(st, NULL, trig, false, NULL, NULL, 0),
                  0);
  chime_trigger_free(trig);
  chime_trigger *tback = sc_get(st, "t", "a");
  CU_ASSERT_PTR_NOT_NULL_FATAL(tback);
  CU_ASSERT_EQUAL(tback->timeout_ms, 900);
  CU_ASSERT_EQUAL(tback->starting_deadline_ms, 300);
  chime_trigger_free(tback);
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "j", &back), 0);
  CU_ASSERT_EQUAL(back->timeout_ms, 2500);
  CU_ASSERT_EQUAL(back->starting_deadline_ms, 700);
  chime_job_free(back);
  /* The fire carries it to the engine. */
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->job->timeout_ms, 2500);
  CU_ASSERT_EQUAL(f->job->starting_deadline_ms, 700);
  CU_ASSERT_EQUAL(f->trigger->timeout_ms, 900);
  CU_ASSERT_EQUAL(f->trigger->starting_deadline_ms, 300);
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

/* Adds job g.name of policy c with a simple trigger t.name every second,
 * started 10 s ago (by the store's clock), fires it once and returns the
 * fire (EXECUTING). */
static chime_fire *fire_late_job(chime_store *st, const char *name,
                                 chime_concurrency c, int64_t now) {
  chime_job *job = sc_job("g", name, "x", true);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, c), 0);
  if (strcmp(name, "capped") == 0)
    CU_ASSERT_EQUAL(chime_job_set_queue_cap(job, 2), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  sc_add_simple(st, "t", name, "g", name, now - 10 * SEC, SEC, 100);
  chime_fire *f = sc_fire_next(st, now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->scheduled_ms, now - 10 * SEC);
  return f;
}

/* FORBID_SKIP blocks like FORBID while it runs; at completion the times
 * its trigger missed are dropped (FORBID keeps the next one due). */
static void test_store_forbid_skip(void) {
  chime_store *st = sc_open();
  int64_t now = st->ops->now(st);
  chime_fire *skip =
      fire_late_job(st, "skip", CHIME_CONCURRENCY_FORBID_SKIP, now);
  chime_fire *queue = fire_late_job(st, "queue", CHIME_CONCURRENCY_FORBID, now);
  CU_ASSERT_EQUAL(sc_status(st, "t", "skip"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_EQUAL(sc_status(st, "t", "queue"), CHIME_TRIGGER_BLOCKED);
  /* Nothing of either job is claimed while they run. */
  chime_fire **none = NULL;
  CU_ASSERT_EQUAL(sc_acquire(st, now, now, 10, NULL, &none), 0);
  sc_fires_free(none, 0);
  CU_ASSERT_EQUAL(sc_complete(st, skip), 0);
  CU_ASSERT_EQUAL(sc_complete(st, queue), 0);
  int64_t after = now; /* the completions ran at or after now */
  chime_trigger *t = sc_get(st, "t", "skip");
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(t->store_state, CHIME_STATE_WAITING);
  CU_ASSERT(t->state.next_fire_ms >= after);
  CU_ASSERT(t->state.next_fire_ms <= st->ops->now(st) + SEC);
  /* The skipped times count as triggered (9 or 10 of them, plus the run). */
  CU_ASSERT(t->state.times_triggered >= 10);
  chime_trigger_free(t);
  t = sc_get(st, "t", "queue");
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(t->store_state, CHIME_STATE_WAITING);
  CU_ASSERT_EQUAL(t->state.next_fire_ms, now - 9 * SEC);
  CU_ASSERT_EQUAL(t->state.times_triggered, 1);
  chime_trigger_free(t);
  chime__fire_free(skip);
  chime__fire_free(queue);
  /* The policy is kept with the job; an unknown one is refused. */
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "skip", &back), 0);
  CU_ASSERT_EQUAL(back->concurrency, CHIME_CONCURRENCY_FORBID_SKIP);
  back->concurrency = (chime_concurrency)7;
  CU_ASSERT_EQUAL(st->ops->job_add(st, back, true), CHIME_EINVAL);
  chime_job_free(back);
  sc_close(st);
}

/* A FORBID_QUEUE job with a cap of 2: when its run ends, the trigger's due
 * times beyond the 2 latest are dropped (9 or 10 are due: the run took
 * 10 s of schedule), recorded SKIPPED where the store keeps history; the
 * cap is kept with the job and checked. */
static void test_store_forbid_queue_cap(void) {
  chime_store *st = sc_open();
  int64_t now = st->ops->now(st);
  chime_fire *f =
      fire_late_job(st, "capped", CHIME_CONCURRENCY_FORBID_QUEUE, now);
  CU_ASSERT_EQUAL(sc_status(st, "t", "capped"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  chime_trigger *t = sc_get(st, "t", "capped");
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(t->store_state, CHIME_STATE_WAITING);
  int64_t next = t->state.next_fire_ms;
  CU_ASSERT(next == now - 2 * SEC || next == now - SEC);
  int64_t dropped = t->state.times_triggered - 1;
  CU_ASSERT(dropped == 7 || dropped == 8);
  chime_trigger_free(t);
  /* The two kept run in order. */
  f = sc_fire_next(st, st->ops->now(st));
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->scheduled_ms, next);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  if (strcmp(st->ops->name, "memory") != 0) {
    chime_history_filter hf = {
        .job_group = "g", .job_name = "capped", .limit = 100};
    chime_history_entry *h = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(st->ops->history_list(st, &hf, &h, &n), 0);
    size_t skipped = 0;
    for (size_t i = 0; i < n; i++)
      skipped += strcmp(h[i].outcome, "SKIPPED") == 0;
    CU_ASSERT_EQUAL(skipped, (size_t)dropped);
    chime__history_entries_free(h, n);
  }
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "capped", &back), 0);
  CU_ASSERT_EQUAL(chime_job_get_queue_cap(back), 2);
  back->queue_cap = -1;
  CU_ASSERT_EQUAL(st->ops->job_add(st, back, true), CHIME_EINVAL);
  chime_job_free(back);
  sc_close(st);
}

/* Runs job name (history level level) twice, OK then failed, and returns
 * how many history rows it got, checking their outcomes. */
static size_t run_with_level(chime_store *st, const char *name,
                             chime_history_level level, int64_t now) {
  chime_job *job = sc_job("g", name, "x", true);
  CU_ASSERT_EQUAL(chime_job_set_history_level(job, level), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  sc_add_simple(st, "t", name, "g", name, now - 10 * SEC, SEC, 1);
  chime_run_result ok = {.started_ms = now, .finished_ms = now};
  chime_run_result failed = {.started_ms = now,
                             .finished_ms = now,
                             .error = CHIME_EJOBFAILED,
                             .message = "it failed"};
  for (int i = 0; i < 2; i++) {
    chime_fire *f = sc_fire_next(st, now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->job->name, name);
    CU_ASSERT_EQUAL(f->job->history_level, level);
    CU_ASSERT_EQUAL(st->ops->complete(st, f, i == 0 ? &ok : &failed), 0);
    chime__fire_free(f);
  }
  chime_history_filter hf = {.job_group = "g", .job_name = name, .limit = 10};
  chime_history_entry *h = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->history_list(st, &hf, &h, &n), 0);
  for (size_t i = 0; i < n; i++)
    CU_ASSERT_STRING_EQUAL(h[i].outcome, i == 0 ? "FAILED" : "OK");
  chime__history_entries_free(h, n);
  return n;
}

/* Issue 34: a job's history level says which runs are recorded (ALL: both,
 * FAILURES: the failed one, NONE: neither), and is kept with the job. */
static void test_store_history_level(void) {
  chime_store *st = sc_open();
  int64_t now = st->ops->now(st);
  CU_ASSERT_EQUAL(run_with_level(st, "h-all", CHIME_HISTORY_ALL, now), 2);
  CU_ASSERT_EQUAL(run_with_level(st, "h-failures", CHIME_HISTORY_FAILURES, now),
                  1);
  CU_ASSERT_EQUAL(run_with_level(st, "h-none", CHIME_HISTORY_NONE, now), 0);
  /* The fire times a FORBID_SKIP run dropped are SKIPPED rows (where the
   * store keeps them: not the memory store) at FAILURES, none at NONE. */
  static const chime_history_level skip_levels[] = {CHIME_HISTORY_FAILURES,
                                                    CHIME_HISTORY_NONE};
  for (size_t k = 0; k < 2; k++) {
    const char *name = k == 0 ? "h-skip-failures" : "h-skip-none";
    chime_job *job = sc_job("g", name, "x", true);
    CU_ASSERT_EQUAL(
        chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID_SKIP), 0);
    CU_ASSERT_EQUAL(chime_job_set_history_level(job, skip_levels[k]), 0);
    CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
    chime_job_free(job);
    sc_add_simple(st, "t", name, "g", name, now - 10 * SEC, SEC, 100);
    chime_fire *f = sc_fire_next(st, now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->job->name, name);
    CU_ASSERT_EQUAL(sc_complete(st, f), 0); /* OK: no row at either */
    chime__fire_free(f);
    chime_history_filter hf = {
        .job_group = "g", .job_name = name, .limit = 100};
    chime_history_entry *h = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(st->ops->history_list(st, &hf, &h, &n), 0);
    bool keeps = strcmp(st->ops->name, "memory") != 0 && k == 0;
    CU_ASSERT(keeps ? n >= 8 : n == 0);
    for (size_t i = 0; i < n; i++)
      CU_ASSERT_STRING_EQUAL(h[i].outcome, "SKIPPED");
    chime__history_entries_free(h, n);
  }
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "h-failures", &back), 0);
  CU_ASSERT_EQUAL(chime_job_get_history_level(back), CHIME_HISTORY_FAILURES);
  CU_ASSERT_EQUAL(chime_job_set_history_level(back, (chime_history_level)3),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_get_history_level(back), CHIME_HISTORY_FAILURES);
  back->history_level = (chime_history_level)7;
  CU_ASSERT_EQUAL(st->ops->job_add(st, back, true), CHIME_EINVAL);
  chime_job_free(back);
  CU_ASSERT_EQUAL(chime_job_get_history_level(NULL), CHIME_HISTORY_ALL);
  CU_ASSERT_EQUAL(chime_job_set_history_level(NULL, CHIME_HISTORY_NONE),
                  CHIME_EINVAL);
  sc_close(st);
}

/* A REPLACE job's run counts as interrupted once its blocked trigger comes
 * due; not before, and never another policy's. */
static void test_store_replace(void) {
  chime_store *st = sc_open();
  int64_t now = st->ops->now(st);
  chime_fire *due = fire_late_job(st, "due", CHIME_CONCURRENCY_REPLACE, now);
  chime_fire *queue = fire_late_job(st, "queue", CHIME_CONCURRENCY_FORBID, now);
  chime_job *job = sc_job("g", "later", "x", true);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, CHIME_CONCURRENCY_REPLACE), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  sc_add_simple(st, "t", "later", "g", "later", now, HOUR, 5);
  chime_fire *later = sc_fire_next(st, now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(later);
  size_t n = 0;
  int64_t *ids = flagged(st, &n);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL(ids[0], due->fire_id);
  free(ids);
  CU_ASSERT_EQUAL(sc_complete(st, due), 0);
  ids = flagged(st, &n);
  CU_ASSERT_EQUAL(n, 0);
  free(ids);
  CU_ASSERT_EQUAL(sc_complete(st, queue), 0);
  CU_ASSERT_EQUAL(sc_complete(st, later), 0);
  chime__fire_free(due);
  chime__fire_free(queue);
  chime__fire_free(later);
  sc_close(st);
}

/* A REPLACE job whose run held its trigger up for 10 s of schedule (the
 * run ignored its cancellation): when the run ends, only the newest due
 * time stays due (it replaces the run); the older ones (8 or 9) are
 * dropped, recorded SKIPPED where the store keeps history, not replayed
 * (issue 30, fault 6). */
static void test_store_replace_drops_pileup(void) {
  chime_store *st = sc_open();
  int64_t now = st->ops->now(st);
  chime_fire *f = fire_late_job(st, "piled", CHIME_CONCURRENCY_REPLACE, now);
  CU_ASSERT_EQUAL(sc_status(st, "t", "piled"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  int64_t done = st->ops->now(st);
  chime_trigger *t = sc_get(st, "t", "piled");
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(t->store_state, CHIME_STATE_WAITING);
  int64_t next = t->state.next_fire_ms;
  /* The newest time due at the completion: within a second before it. */
  CU_ASSERT(next < done && next >= now - SEC);
  int64_t dropped = t->state.times_triggered - 1;
  CU_ASSERT(dropped == 8 || dropped == 9);
  chime_trigger_free(t);
  /* One fire follows, then the trigger is on time again: nothing more is
   * due. */
  f = sc_fire_next(st, st->ops->now(st));
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->scheduled_ms, next);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  t = sc_get(st, "t", "piled");
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT(t->state.next_fire_ms > now - SEC);
  chime_trigger_free(t);
  if (strcmp(st->ops->name, "memory") != 0) {
    chime_history_filter hf = {
        .job_group = "g", .job_name = "piled", .limit = 100};
    chime_history_entry *h = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(st->ops->history_list(st, &hf, &h, &n), 0);
    size_t skipped = 0;
    for (size_t i = 0; i < n; i++)
      if (strcmp(h[i].outcome, "SKIPPED") == 0) {
        skipped++;
        CU_ASSERT_PTR_NOT_NULL(h[i].message);
        if (h[i].message)
          CU_ASSERT_PTR_NOT_NULL(strstr(h[i].message, "REPLACE"));
      }
    CU_ASSERT_EQUAL(skipped, (size_t)dropped);
    chime__history_entries_free(h, n);
  }
  sc_close(st);
}

/* A job's retry policy is stored with it, reaches the engine with its
 * fires, and a policy out of range is refused by the store too. */
static void test_store_job_retry_kept(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "r", "x", true);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 4, 1500, 2.5, 60000, 250), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "r", &back), 0);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(back)), 4);
  CU_ASSERT_EQUAL(chime_retry_get_initial_delay_ms(chime_job_get_retry(back)),
                  1500);
  CU_ASSERT_DOUBLE_EQUAL(chime_retry_get_multiplier(chime_job_get_retry(back)),
                         2.5, 1e-9);
  CU_ASSERT_EQUAL(chime_retry_get_max_delay_ms(chime_job_get_retry(back)),
                  60000);
  CU_ASSERT_EQUAL(chime_retry_get_jitter_ms(chime_job_get_retry(back)), 250);
  chime_job_free(back);
  chime_trigger *trig = sc_simple("t", "r", "g", "r", T0, MINUTE, 5);
  CU_ASSERT_EQUAL(st->ops->trigger_add(st, NULL, trig, false, NULL, NULL, 0),
                  0);
  chime_trigger_free(trig);
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(f->job)), 4);
  CU_ASSERT_DOUBLE_EQUAL(
      chime_retry_get_multiplier(chime_job_get_retry(f->job)), 2.5, 1e-9);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  /* Replacing the job changes it; an invalid one is refused. */
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 0, 0, 1.0, 0, 0), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "r", &back), 0);
  CU_ASSERT_EQUAL(chime_retry_get_max_attempts(chime_job_get_retry(back)), 0);
  CU_ASSERT_DOUBLE_EQUAL(chime_retry_get_multiplier(chime_job_get_retry(back)),
                         1.0, 1e-9);
  chime_job_free(back);
  job->retry.jitter_ms = -1;
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), CHIME_EINVAL);
  chime_job_free(job);
  sc_close(st);
}

/* Completes f as a failed run. */
static int fail_run(chime_store *st, const chime_fire *f) {
  return sc_fail(st, f);
}

/* The retry trigger the failure of fire_id left; NULL when none. */
static chime_trigger *retry_of(chime_store *st, int64_t fire_id) {
  char name[48];
  snprintf(name, sizeof name, "retry-%lld", (long long)fire_id);
  chime_trigger *t = NULL;
  int r = st->ops->trigger_get(st, CHIME__RETRY_GROUP, name, &t);
  CU_ASSERT(r == 0 || r == CHIME_ENOTFOUND);
  return r == 0 ? t : NULL;
}

/* A failing job of 3 attempts runs 3 times: each retry is a durable fire
 * of its own (distinct fire ids), due no earlier than its back-off after
 * the failure, with the next attempt number and the original scheduled
 * time; the last failure leaves no retry.  History: RETRIED, RETRIED,
 * FAILED. */
static void test_store_retry_runs(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "r", "x", true);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 3, 2 * SEC, 2.0, 0, 0), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  int64_t start = st->ops->now(st);
  chime_trigger *trig = sc_simple("t", "r", "g", "r", start, 0, 0);
  CU_ASSERT_EQUAL(chime_trigger_set_data(trig, "abc", 3), 0);
  CU_ASSERT_EQUAL(st->ops->trigger_add(st, NULL, trig, false, NULL, NULL, 0),
                  0);
  chime_trigger_free(trig);
  chime_fire *f = sc_fire_next(st, start);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(chime__run_attempt(f->trigger), 1);
  CU_ASSERT_EQUAL(chime__fire_original_ms(f), start);
  int64_t ids[3] = {f->fire_id, 0, 0};
  for (int attempt = 2; attempt <= 3; attempt++) {
    int64_t before = st->ops->now(st);
    CU_ASSERT_EQUAL_FATAL(fail_run(st, f), 0);
    int64_t after = st->ops->now(st);
    chime__fire_free(f);
    chime_trigger *rt = retry_of(st, ids[attempt - 2]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
    int64_t delay = attempt == 2 ? 2 * SEC : 4 * SEC;
    int64_t due = rt->state.next_fire_ms;
    CU_ASSERT(due >= before + delay && due <= after + delay);
    CU_ASSERT_EQUAL(rt->retry_attempt, attempt);
    CU_ASSERT_EQUAL(rt->retry_scheduled_ms, start);
    CU_ASSERT_EQUAL(rt->data_len, 3);
    chime_trigger_free(rt);
    /* Not before its delay. */
    CU_ASSERT_PTR_NULL(sc_fire_next(st, due - 1));
    f = sc_fire_next(st, due);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(chime__run_attempt(f->trigger), attempt);
    CU_ASSERT_EQUAL(chime__fire_original_ms(f), start);
    CU_ASSERT_EQUAL(f->trigger->data_len, 3);
    ids[attempt - 1] = f->fire_id;
    CU_ASSERT(f->fire_id != ids[attempt - 2]);
  }
  CU_ASSERT_EQUAL(fail_run(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT_PTR_NULL(retry_of(st, ids[2]));
  chime_history_filter hf = {.job_group = "g", .job_name = "r", .limit = 10};
  chime_history_entry *h = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->history_list(st, &hf, &h, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  for (size_t i = 0; i < n; i++) {
    const char *want = h[i].fire_id == ids[2] ? "FAILED" : "RETRIED";
    CU_ASSERT_STRING_EQUAL(h[i].outcome, want);
    CU_ASSERT_EQUAL(h[i].scheduled_ms, start);
    /* Every attempt ran with the trigger's data, and records it. */
    CU_ASSERT_EQUAL(h[i].data_len, 3);
    CU_ASSERT(h[i].data && memcmp(h[i].data, "abc", 3) == 0);
  }
  chime__history_entries_free(h, n);
  sc_close(st);
}

/* Adds job g.name retried up to attempts times, 1 s apart, with trigger
 * t.name from the store's now (interval, repeat); returns that now. */
static int64_t add_retry_job(chime_store *st, const char *name, int attempts,
                             int64_t interval, int32_t repeat) {
  chime_job *job = sc_job("g", name, "x", true);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, attempts, SEC, 1.0, 0, 0), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  int64_t start = st->ops->now(st);
  sc_add_simple(st, "t", name, "g", name, start, interval, repeat);
  return start;
}

/* A cancelled run is not retried; a successful one neither. */
static void test_store_retry_not_cancelled(void) {
  chime_store *st = sc_open();
  int64_t start = add_retry_job(st, "c", 3, HOUR, 1);
  chime_fire *f = sc_fire_next(st, start);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  chime_run_result o = {.error = CHIME_ECANCELLED, .status = "CANCELLED"};
  CU_ASSERT_EQUAL(st->ops->complete(st, f, &o), 0);
  CU_ASSERT_PTR_NULL(retry_of(st, f->fire_id));
  chime__fire_free(f);
  f = sc_fire_next(st, start + HOUR);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  CU_ASSERT_PTR_NULL(retry_of(st, f->fire_id));
  chime__fire_free(f);
  sc_close(st);
}

/* The retry of a job paused while its run failed starts PAUSED and is not
 * claimed when due, as any trigger of a paused job; resuming the job lets
 * it run. */
static void test_store_retry_of_paused_job(void) {
  chime_store *st = sc_open();
  int64_t start = add_retry_job(st, "p", 2, 0, 0);
  chime_fire *f = sc_fire_next(st, start);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(st->ops->pause_job(st, "g", "p"), 0);
  CU_ASSERT_EQUAL_FATAL(fail_run(st, f), 0);
  char name[48];
  snprintf(name, sizeof name, "retry-%lld", (long long)f->fire_id);
  chime_trigger *rt = retry_of(st, f->fire_id);
  chime__fire_free(f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
  int64_t due = rt->state.next_fire_ms;
  CU_ASSERT_EQUAL(rt->store_state, CHIME_STATE_PAUSED);
  chime_trigger_free(rt);
  CU_ASSERT_EQUAL(sc_status(st, CHIME__RETRY_GROUP, name),
                  CHIME_TRIGGER_PAUSED);
  CU_ASSERT_PTR_NULL(sc_fire_next(st, due + SEC));
  CU_ASSERT_EQUAL(st->ops->resume_job(st, "g", "p"), 0);
  f = sc_fire_next(st, due + SEC);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(chime__run_attempt(f->trigger), 2);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  sc_close(st);
}

/* A job that is not durable, fired by a one-shot trigger, keeps living for
 * its retry (its trigger completed with the failed run), then goes with
 * the retry's last run. */
static void test_store_retry_of_one_shot(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "once", "x", false);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, SEC, 1.0, 0, 0), 0);
  int64_t start = st->ops->now(st);
  chime_trigger *t = sc_simple("t", "once", "g", "once", start, 0, 0);
  CU_ASSERT_EQUAL(st->ops->trigger_add(st, job, t, false, NULL, NULL, 0), 0);
  chime_trigger_free(t);
  chime_job_free(job);
  chime_fire *f = sc_fire_next(st, start);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL_FATAL(fail_run(st, f), 0);
  chime_trigger *rt = retry_of(st, f->fire_id);
  chime__fire_free(f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
  int64_t due = rt->state.next_fire_ms;
  chime_trigger_free(rt);
  chime_job *back = NULL;
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "once", &back), 0);
  chime_job_free(back);
  f = sc_fire_next(st, due);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(chime__run_attempt(f->trigger), 2);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  back = NULL;
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "once", &back), CHIME_ENOTFOUND);
  chime_job_free(back);
  sc_close(st);
}

/* A timed-out run is retried unless its job says not to
 * (chime_job_set_retry_timed_out, kept by the store). */
static void test_store_retry_timed_out(void) {
  chime_store *st = sc_open();
  for (int retried = 0; retried < 2; retried++) {
    const char *name = retried ? "to-yes" : "to-no";
    chime_job *job = sc_job("g", name, "x", true);
    CU_ASSERT_TRUE(chime_retry_get_timed_out(chime_job_get_retry(job)));
    CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, SEC, 1.0, 0, 0), 0);
    CU_ASSERT_EQUAL(chime_test_set_retry_timed_out(job, retried), 0);
    CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
    chime_job_free(job);
    chime_job *back = NULL;
    CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", name, &back), 0);
    CU_ASSERT_EQUAL(chime_retry_get_timed_out(chime_job_get_retry(back)),
                    retried);
    chime_job_free(back);
    int64_t start = st->ops->now(st);
    sc_add_simple(st, "t", name, "g", name, start, 0, 0);
    chime_fire *f = sc_fire_next(st, start);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    chime_run_result o = {.error = CHIME_ETIMEDOUT, .status = "TIMED_OUT"};
    CU_ASSERT_EQUAL(st->ops->complete(st, f, &o), 0);
    chime_trigger *rt = retry_of(st, f->fire_id);
    CU_ASSERT_EQUAL(rt != NULL, retried);
    chime_trigger_free(rt);
    chime__fire_free(f);
  }
  CU_ASSERT_EQUAL(chime_test_set_retry_timed_out(NULL, true), CHIME_EINVAL);
  sc_close(st);
}

CU_TestInfo sc_policy_tests[] = {
    {"a timed-out run is retried unless the job says not",
     test_store_retry_timed_out},
    {"a one-shot job that is not durable lives for its retry",
     test_store_retry_of_one_shot},
    {"the retry of a paused job waits for its resume",
     test_store_retry_of_paused_job},
    {"a failing job of 3 attempts runs 3 times", test_store_retry_runs},
    {"cancelled and successful runs are not retried",
     test_store_retry_not_cancelled},
    {"REPLACE: a due trigger interrupts the run", test_store_replace},
    {"REPLACE drops the fires piled up behind a run",
     test_store_replace_drops_pileup},
    {"FORBID_SKIP drops the times missed while it ran", test_store_forbid_skip},
    {"FORBID_QUEUE with a cap drops the oldest beyond it",
     test_store_forbid_queue_cap},
    {"interrupt flags executing fires; interrupted lists them",
     test_store_interrupt},
    {"timeouts and starting deadlines (job, trigger) are kept",
     test_store_job_timeout_kept},
    {"a job's retry policy is kept", test_store_job_retry_kept},
    {"a job's history level says which runs are recorded (issue 34)",
     test_store_history_level},
    CU_TEST_INFO_NULL,
};
