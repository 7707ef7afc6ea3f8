/*
 * store-conformance-queue.c: the job store conformance suite, part six:
 * enqueued runs (store.h's trigger_add_many; docs/queue.md): a batch in
 * one step, unique keys while a run waits and while it runs, free again
 * once it completed, held while a failed run waits for its retry and for
 * the run's unique period after its final outcome, and threads racing
 * with the same keys storing each once.
 */
#include "store-conformance-impl.h"

#include "harness.h"

#include "model/records.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The trigger of a run of job (g, j) due at T0, keyed when key. */
static chime_trigger *run_of(const char *key, const char *data) {
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_run_at_ms(o, T0), 0);
  if (key)
    CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_unique_key(o, key), 0);
  if (data)
    CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_data(o, data, strlen(data)), 0);
  chime_trigger *t = NULL;
  char err[256];
  static uint64_t tag;
  CU_ASSERT_EQUAL_FATAL(
      chime__enqueue_trigger("g", "j", o, ++tag, &t, err, sizeof err), 0);
  chime_enqueue_free(o);
  return t;
}

/* The trigger of a run of job (g, j) due at T0 with key and a unique
 * period of for_ms. */
static chime_trigger *held_run_of(const char *key, int64_t for_ms) {
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_run_at_ms(o, T0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_unique_key(o, key), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_unique_for_ms(o, for_ms), 0);
  CU_ASSERT_EQUAL(chime_enqueue_get_unique_for_ms(o), for_ms);
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      chime__enqueue_trigger("g", "j", o, 1, &t, err, sizeof err), 0);
  chime_enqueue_free(o);
  return t;
}

/* Adds t (owned); returns whether its key existed. */
static bool add_run(chime_store *st, chime_trigger *t) {
  bool existed = false;
  char err[256];
  CU_ASSERT_EQUAL(
      st->ops->trigger_add_many(st, &t, 1, &existed, err, sizeof err), 0);
  chime_trigger_free(t);
  return existed;
}

/* Adds one run; returns whether its key existed. */
static bool add_one(chime_store *st, const char *key) {
  return add_run(st, run_of(key, NULL));
}

static size_t queued(chime_store *st) {
  chime_key *keys = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL(st->ops->trigger_list(st, CHIME_MATCH_EQUALS,
                                        CHIME_QUEUE_GROUP, &keys, &n),
                  0);
  chime_key_free_array(keys, n);
  return n;
}

static void test_queue_batch(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "type", true);
  chime_trigger *ts[5] = {run_of("a", "one"), run_of(NULL, NULL),
                          run_of("a", "again"), run_of("b", NULL),
                          run_of(NULL, NULL)};
  bool existed[5];
  char err[256];
  CU_ASSERT_EQUAL(
      st->ops->trigger_add_many(st, ts, 5, existed, err, sizeof err), 0);
  CU_ASSERT(!existed[0] && !existed[1] && existed[2] && !existed[3] &&
            !existed[4]);
  CU_ASSERT_EQUAL(queued(st), 4);
  chime_trigger *a = sc_get(st, CHIME_QUEUE_GROUP, "K_a");
  size_t len = 0;
  const void *data = chime_trigger_get_data(a, &len);
  CU_ASSERT(len == 3 && memcmp(data, "one", 3) == 0);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(a), T0);
  chime_trigger_free(a);
  /* A second batch: a's key is stored now. */
  CU_ASSERT_EQUAL(
      st->ops->trigger_add_many(st, ts + 2, 1, existed, err, sizeof err), 0);
  CU_ASSERT(existed[0]);
  for (int i = 0; i < 5; i++)
    chime_trigger_free(ts[i]);
  /* No such job: nothing stored. */
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "g", "j"), 0);
  CU_ASSERT_EQUAL(queued(st), 0);
  chime_trigger *t = run_of("c", NULL);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add_many(st, &t, 1, existed, err, sizeof err),
      CHIME_ENOTFOUND);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(queued(st), 0);
  sc_close(st);
}

static void test_queue_unique_wait_run(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "type", true);
  CU_ASSERT(!add_one(st, "k"));
  CU_ASSERT(add_one(st, "k")); /* waiting */
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(f->trigger), "K_k");
  CU_ASSERT(add_one(st, "k")); /* running */
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT(!add_one(st, "k")); /* done: free again */
  CU_ASSERT_EQUAL(queued(st), 1);
  /* Unscheduled: free again. */
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, CHIME_QUEUE_GROUP, "K_k"), 0);
  CU_ASSERT(!add_one(st, "k"));
  sc_close(st);
}

/* A keyed run of a job with retries keeps its key while it waits for its
 * retry (the retry is the run's own trigger again, with the next attempt)
 * and, with a unique period, after its last attempt failed. */
static void test_queue_unique_retry(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "j", "type", true);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 2, SEC, 1.0, 0, 0), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  CU_ASSERT(!add_run(st, held_run_of("r", HOUR)));
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL_FATAL(sc_fail(st, f), 0);
  chime__fire_free(f);
  chime_trigger *rt = sc_get(st, CHIME_QUEUE_GROUP, "K_r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
  CU_ASSERT_EQUAL(rt->store_state, CHIME_STATE_WAITING);
  CU_ASSERT_EQUAL(rt->retry_attempt, 2);
  CU_ASSERT_EQUAL(rt->unique_for_ms, HOUR);
  int64_t due = rt->state.next_fire_ms;
  chime_trigger_free(rt);
  CU_ASSERT(add_one(st, "r")); /* waiting for its retry */
  f = sc_fire_next(st, due);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(chime__run_attempt(f->trigger), 2);
  CU_ASSERT(add_one(st, "r")); /* its retry runs */
  CU_ASSERT_EQUAL_FATAL(sc_fail(st, f), 0);
  chime__fire_free(f);
  /* The last attempt failed: held for its hour, COMPLETE, never fired. */
  CU_ASSERT(add_one(st, "r"));
  rt = sc_get(st, CHIME_QUEUE_GROUP, "K_r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
  CU_ASSERT_EQUAL(rt->store_state, CHIME_STATE_COMPLETE);
  CU_ASSERT(rt->held_until_ms > st->ops->now(st) + HOUR - MINUTE);
  chime_trigger_free(rt);
  CU_ASSERT_PTR_NULL(sc_fire_next(st, T0 + DAY));
  /* Unscheduled: free at once. */
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, CHIME_QUEUE_GROUP, "K_r"), 0);
  CU_ASSERT(!add_one(st, "r"));
  sc_close(st);
}

/* A successful keyed run with a unique period keeps its key that long
 * (by the store's clock), then an enqueue takes it over; a period without
 * a key is refused. */
static void test_queue_unique_for(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "type", true);
  enum { PERIOD_MS = 1500 };
  CU_ASSERT(!add_run(st, held_run_of("p", PERIOD_MS)));
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  int64_t done = chime_test_wall_ms();
  bool held = add_run(st, held_run_of("p", PERIOD_MS));
  /* Within its period (unless this machine stalled past it). */
  CU_ASSERT(held || chime_test_wall_ms() - done >= PERIOD_MS);
  bool freed = false;
  for (int i = 0; i < 200 && !freed; i++) {
    freed = !add_one(st, "p");
    if (!freed)
      chime_test_sleep_ms(50);
  }
  CU_ASSERT(freed);
  CU_ASSERT(chime_test_wall_ms() - done >= PERIOD_MS - 500);
  /* The new run waits, without a period of its own. */
  chime_trigger *t = sc_get(st, CHIME_QUEUE_GROUP, "K_p");
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(t->store_state, CHIME_STATE_WAITING);
  CU_ASSERT_EQUAL(t->held_until_ms, 0);
  CU_ASSERT_EQUAL(t->unique_for_ms, 0);
  chime_trigger_free(t);
  /* A period needs a key. */
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL(chime_enqueue_set_unique_for_ms(o, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_set_unique_for_ms(NULL, 1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_set_unique_for_ms(o, 10), 0);
  char err[256];
  CU_ASSERT_EQUAL(chime__enqueue_trigger("g", "j", o, 1, &t, err, sizeof err),
                  CHIME_EINVAL);
  chime_enqueue_free(o);
  sc_close(st);
}

/* The trigger of a run of job (g, j) due at T0, with a policy of its own
 * of attempts, SEC apart. */
static chime_trigger *run_retried(int attempts) {
  chime_enqueue *o = NULL;
  chime_retry *p = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_run_at_ms(o, T0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_retry_new(&p), 0);
  CU_ASSERT_EQUAL_FATAL(chime_retry_set_max_attempts(p, attempts), 0);
  CU_ASSERT_EQUAL_FATAL(chime_retry_set_initial_delay_ms(p, SEC), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_retry(o, p), 0);
  chime_retry_free(p);
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      chime__enqueue_trigger("g", "j", o, 7, &t, err, sizeof err), 0);
  chime_enqueue_free(o);
  return t;
}

/* A run's own retry policy (chime_enqueue_set_retry) is stored with it and
 * carried by its retry: 2 attempts of a job that has none, then none of a
 * job that has 3. */
static void test_queue_run_retry(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "type", true);
  CU_ASSERT(!add_run(st, run_retried(2)));
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->trigger->retry.max_attempts, 2);
  CU_ASSERT_EQUAL_FATAL(sc_fail(st, f), 0);
  char name[48];
  snprintf(name, sizeof name, "retry-%lld", (long long)f->fire_id);
  chime__fire_free(f);
  chime_trigger *rt = sc_get(st, CHIME__RETRY_GROUP, name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
  CU_ASSERT_EQUAL(rt->retry.max_attempts, 2);
  CU_ASSERT_EQUAL(rt->retry.initial_delay_ms, SEC);
  int64_t due = rt->state.next_fire_ms;
  chime_trigger_free(rt);
  f = sc_fire_next(st, due);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(chime__run_attempt(f->trigger), 2);
  CU_ASSERT_EQUAL_FATAL(sc_fail(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT_PTR_NULL(sc_fire_next(st, due + DAY)); /* its 2 were made */
  /* The job retries 3 times; this run's own says 1. */
  chime_job *job = sc_job("g", "j", "type", true);
  CU_ASSERT_EQUAL(chime_test_set_retry(job, 3, SEC, 1.0, 0, 0), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), 0);
  chime_job_free(job);
  CU_ASSERT(!add_run(st, run_retried(1)));
  f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL_FATAL(sc_fail(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT_PTR_NULL(sc_fire_next(st, T0 + DAY));
  CU_ASSERT_EQUAL(queued(st), 0);
  sc_close(st);
}

/* Threads racing with the same keys. */
enum { RACERS = 4, RACE_KEYS = 40 };
typedef struct racer {
  chime_store *st;
  int stored;
} racer;

static void *race(void *arg) {
  racer *r = arg;
  for (int k = 0; k < RACE_KEYS; k++) {
    char key[32];
    snprintf(key, sizeof key, "race-%d", k);
    r->stored += !add_one(r->st, key);
  }
  return NULL;
}

static void test_queue_unique_race(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "type", true);
  pthread_t th[RACERS];
  racer rs[RACERS];
  for (int i = 0; i < RACERS; i++) {
    rs[i] = (racer){.st = st};
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, race, &rs[i]), 0);
  }
  int stored = 0;
  for (int i = 0; i < RACERS; i++) {
    pthread_join(th[i], NULL);
    stored += rs[i].stored;
  }
  CU_ASSERT_EQUAL(stored, RACE_KEYS);
  CU_ASSERT_EQUAL(queued(st), RACE_KEYS);
  sc_close(st);
}

CU_TestInfo sc_queue_tests[] = {
    {"queue batch", test_queue_batch},
    {"queue unique wait run", test_queue_unique_wait_run},
    {"queue unique race", test_queue_unique_race},
    {"queue unique retry", test_queue_unique_retry},
    {"queue unique for", test_queue_unique_for},
    {"queue run's own retry policy", test_queue_run_retry},
    CU_TEST_INFO_NULL,
};
