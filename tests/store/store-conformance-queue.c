/*
 * store-conformance-queue.c: the job store conformance suite, part six:
 * enqueued runs (store.h's trigger_add_many; docs/queue.md): a batch in
 * one step, unique keys while a run waits and while it runs, free again
 * once it completed, and threads racing with the same keys storing each
 * once.
 */
#include "store-conformance-impl.h"

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

/* Adds one run; returns whether its key existed. */
static bool add_one(chime_store *st, const char *key) {
  chime_trigger *t = run_of(key, NULL);
  bool existed = false;
  char err[256];
  CU_ASSERT_EQUAL(
      st->ops->trigger_add_many(st, &t, 1, &existed, err, sizeof err), 0);
  chime_trigger_free(t);
  return existed;
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
    CU_TEST_INFO_NULL,
};
