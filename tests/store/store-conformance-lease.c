/*
 * store-conformance-lease.c: the job store conformance suite, part three:
 * named leases (store.h's lease_*): tokens that only grow, a held lease
 * refused, contention among threads, at_least, expiry by the store's
 * clock with a node clock skewed by minutes, and a stale holder's extend
 * and release refused.  Waits poll the store with wide deadlines; lower
 * bounds on how long a lease lasts are the lease's promise, not a speed.
 */
#include "store-conformance-impl.h"

#include "core/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* How long any wait for a lease to run out may take, at most. */
#define LEASE_WAIT_MAX_MS (20 * SEC)

static int take(chime_store *st, const char *name, int64_t at_most,
                int64_t at_least, chime_lease_info *ret) {
  return st->ops->lease_acquire(st, name, at_most, at_least, ret);
}

/* Tries to take name until it is free; returns how long that took (ms on
 * the monotonic clock).  Fails the test after LEASE_WAIT_MAX_MS. */
static int64_t take_when_free(chime_store *st, const char *name,
                              int64_t at_most, chime_lease_info *ret) {
  int64_t start = chime__mono_ms();
  for (;;) {
    int r = take(st, name, at_most, 0, ret);
    if (r == 0)
      return chime__mono_ms() - start;
    CU_ASSERT_EQUAL_FATAL(r, CHIME_EBUSY);
    CU_ASSERT_FATAL(chime__mono_ms() - start < LEASE_WAIT_MAX_MS);
    chime__sleep_ms(10);
  }
}

static bool held(chime_store *st, const char *name, int64_t token) {
  bool h = true;
  CU_ASSERT_EQUAL_FATAL(st->ops->lease_held(st, name, token, &h), 0);
  return h;
}

static void test_store_lease_tokens_grow(void) {
  chime_store *st = sc_open();
  chime_lease_info a, b, c, d;
  CU_ASSERT_EQUAL_FATAL(take(st, "tok", 60 * SEC, 0, &a), 0);
  CU_ASSERT(a.token >= 1);
  CU_ASSERT_EQUAL(a.expires_ms - a.acquired_ms, 60 * SEC);
  CU_ASSERT(held(st, "tok", a.token));
  /* Released: the next token is greater. */
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "tok", a.token), 0);
  CU_ASSERT_FALSE(held(st, "tok", a.token));
  CU_ASSERT_EQUAL_FATAL(take(st, "tok", 300, 0, &b), 0);
  CU_ASSERT(b.token > a.token);
  /* Expired, never released: greater again. */
  take_when_free(st, "tok", 60 * SEC, &c);
  CU_ASSERT(c.token > b.token);
  /* Another name has tokens of its own. */
  CU_ASSERT_EQUAL_FATAL(take(st, "other", 60 * SEC, 0, &d), 0);
  CU_ASSERT(d.token >= 1);
  CU_ASSERT(held(st, "tok", c.token));
  CU_ASSERT(held(st, "other", d.token));
  sc_close(st);
}

static void test_store_lease_busy(void) {
  chime_store *st = sc_open();
  chime_lease_info a, b;
  CU_ASSERT_EQUAL_FATAL(take(st, "busy", 60 * SEC, 0, &a), 0);
  /* Held: refused at once, told whose lease it is. */
  CU_ASSERT_EQUAL(take(st, "busy", 60 * SEC, 0, &b), CHIME_EBUSY);
  CU_ASSERT_EQUAL(b.token, a.token);
  CU_ASSERT_EQUAL(b.expires_ms, a.expires_ms);
  CU_ASSERT(held(st, "busy", a.token));
  CU_ASSERT_FALSE(held(st, "busy", a.token + 1));
  CU_ASSERT_FALSE(held(st, "never-taken", 1));
  sc_close(st);
}

/* ------------------------------------------------------------ contention */

#define CONTENDERS 8
#define TRIES 25

typedef struct contention {
  chime_store *st;
  atomic_int inside;  /* holders in the section now */
  atomic_int overlap; /* times a holder found another inside */
  atomic_int taken;
  pthread_mutex_t mu; /* tokens, in the order holders entered */
  int64_t tokens[CONTENDERS * TRIES];
  size_t ntokens;
  atomic_int errors;
} contention;

static void *contender(void *arg) {
  contention *c = arg;
  for (int i = 0; i < TRIES; i++) {
    chime_lease_info info;
    int r = take(c->st, "contended", 60 * SEC, 0, &info);
    if (r == CHIME_EBUSY)
      continue;
    if (r != 0) {
      atomic_fetch_add(&c->errors, 1);
      continue;
    }
    if (atomic_fetch_add(&c->inside, 1) != 0)
      atomic_fetch_add(&c->overlap, 1);
    pthread_mutex_lock(&c->mu);
    c->tokens[c->ntokens++] = info.token;
    pthread_mutex_unlock(&c->mu);
    atomic_fetch_add(&c->taken, 1);
    atomic_fetch_sub(&c->inside, 1);
    if (c->st->ops->lease_release(c->st, "contended", info.token) != 0)
      atomic_fetch_add(&c->errors, 1);
  }
  return NULL;
}

static void test_store_lease_contention(void) {
  contention *c = calloc(1, sizeof *c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  c->st = sc_open();
  pthread_mutex_init(&c->mu, NULL);
  pthread_t t[CONTENDERS];
  for (int i = 0; i < CONTENDERS; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, contender, c), 0);
  for (int i = 0; i < CONTENDERS; i++)
    pthread_join(t[i], NULL);
  CU_ASSERT_EQUAL(atomic_load(&c->errors), 0);
  CU_ASSERT_EQUAL(atomic_load(&c->overlap), 0);
  CU_ASSERT(atomic_load(&c->taken) > 0);
  /* One holder at a time, each with a greater token than the last. */
  for (size_t i = 1; i < c->ntokens; i++)
    CU_ASSERT(c->tokens[i] > c->tokens[i - 1]);
  pthread_mutex_destroy(&c->mu);
  sc_close(c->st);
  free(c);
}

/* ---------------------------------------------------------------- timing */

static void test_store_lease_at_least(void) {
  chime_store *st = sc_open();
  chime_lease_info a, b;
  const int64_t at_least = 800;
  int64_t start = chime__mono_ms();
  CU_ASSERT_EQUAL_FATAL(take(st, "quick", 60 * SEC, at_least, &a), 0);
  /* The quick task is done at once; its lease stays for at_least. */
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "quick", a.token), 0);
  CU_ASSERT_FALSE(held(st, "quick", a.token)); /* released, though kept */
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "quick", a.token),
                  CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(st->ops->lease_extend(st, "quick", a.token, SEC, NULL),
                  CHIME_ENOTOWNER);
  take_when_free(st, "quick", 60 * SEC, &b);
  /* The store's clock and the monotonic one may differ by a few ms. */
  CU_ASSERT(chime__mono_ms() - start >= at_least - 50);
  CU_ASSERT(b.token > a.token);
  CU_ASSERT(b.acquired_ms >= a.acquired_ms + at_least);
  sc_close(st);
}

/* A node whose clock is ten minutes off, either way: the lease lasts
 * at_most by the store's clock, neither ten minutes nor nothing. */
static void test_store_lease_skewed_clock(void) {
  static const int64_t skews[] = {10 * MINUTE, -10 * MINUTE};
  for (size_t i = 0; i < 2; i++) {
    chime_store *st = sc_open_skewed(skews[i]);
    chime_lease_info a, b;
    const int64_t at_most = 700;
    int64_t start = chime__mono_ms();
    CU_ASSERT_EQUAL_FATAL(take(st, "skew", at_most, 0, &a), 0);
    CU_ASSERT_EQUAL(a.expires_ms - a.acquired_ms, at_most);
    CU_ASSERT_EQUAL(take(st, "skew", at_most, 0, &b), CHIME_EBUSY);
    CU_ASSERT(held(st, "skew", a.token));
    take_when_free(st, "skew", at_most, &b);
    CU_ASSERT(chime__mono_ms() - start >= at_most - 50);
    CU_ASSERT(b.token > a.token);
    CU_ASSERT_FALSE(held(st, "skew", a.token));
    sc_close(st);
  }
}

static void test_store_lease_extend(void) {
  chime_store *st = sc_open();
  chime_lease_info a, b;
  CU_ASSERT_EQUAL_FATAL(take(st, "ext", 500, 0, &a), 0);
  int64_t expires = 0;
  CU_ASSERT_EQUAL(st->ops->lease_extend(st, "ext", a.token, 60 * SEC, &expires),
                  0);
  CU_ASSERT(expires >= a.expires_ms + 60 * SEC - 500);
  /* Past the first expiry by the store's clock, it is still held. */
  while (st->ops->now(st) < a.expires_ms + 300)
    chime__sleep_ms(20);
  CU_ASSERT(held(st, "ext", a.token));
  CU_ASSERT_EQUAL(take(st, "ext", 500, 0, &b), CHIME_EBUSY);
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "ext", a.token), 0);
  sc_close(st);
}

/* A holder whose lease ran out can neither extend nor release it, before
 * or after someone else took it. */
static void test_store_lease_stale_holder(void) {
  chime_store *st = sc_open();
  chime_lease_info stale, next;
  CU_ASSERT_EQUAL_FATAL(take(st, "stale", 300, 0, &stale), 0);
  int64_t start = chime__mono_ms();
  while (held(st, "stale", stale.token)) {
    CU_ASSERT_FATAL(chime__mono_ms() - start < LEASE_WAIT_MAX_MS);
    chime__sleep_ms(10);
  }
  CU_ASSERT_EQUAL(st->ops->lease_extend(st, "stale", stale.token, SEC, NULL),
                  CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "stale", stale.token),
                  CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL_FATAL(take(st, "stale", 60 * SEC, 0, &next), 0);
  CU_ASSERT(next.token > stale.token);
  CU_ASSERT_EQUAL(st->ops->lease_extend(st, "stale", stale.token, SEC, NULL),
                  CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "stale", stale.token),
                  CHIME_ENOTOWNER);
  CU_ASSERT_FALSE(held(st, "stale", stale.token));
  /* The stale holder changed nothing of the new one's. */
  CU_ASSERT(held(st, "stale", next.token));
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "stale", next.token), 0);
  sc_close(st);
}

CU_TestInfo sc_lease_tests[] = {
    {"lease tokens only grow", test_store_lease_tokens_grow},
    {"a held lease is busy", test_store_lease_busy},
    {"lease contention among threads", test_store_lease_contention},
    {"lease at_least keeps a quick task's lease", test_store_lease_at_least},
    {"lease expiry by the store's clock, node clock skewed",
     test_store_lease_skewed_clock},
    {"lease extend", test_store_lease_extend},
    {"a stale lease holder is refused", test_store_lease_stale_holder},
    CU_TEST_INFO_NULL,
};
