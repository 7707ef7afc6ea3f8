/*
 * store-conformance-limits.c: the job store conformance suite: the limits
 * of job types (store.h's limit_* ops; docs/queue.md, "Limits"): a
 * concurrency limit, per-partition limits, a smoothed rate, a waiting fire
 * claimed when a slot frees (oldest first), never misfired, and never
 * holding up the fires of other types; the per-partition half: a partition
 * key taken from a run's JSON data, a smoothed rate per partition key.
 */
#include "store-conformance-impl.h"

#include "model/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Adds a one-shot trigger "t"/name of job g/job due at start, with
 * partition key key (NULL: none). */
static void add_one(chime_store *st, const char *name, const char *job,
                    int64_t start, const char *key) {
  chime_trigger *t = sc_simple("t", name, "g", job, start, 0, 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_partition_key(t, key), 0);
  char err[256] = "";
  int r = st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err);
  if (r != 0)
    fprintf(stderr, "trigger_add %s: %s\n", name, err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  chime_trigger_free(t);
}

static void set_limit(chime_store *st, const char *type, int max, int per,
                      int rate, int64_t period) {
  chime_limit_def d = {.max_running = max,
                       .max_per_partition = per,
                       .rate_count = rate,
                       .rate_period_ms = period};
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_set(st, type, &d), 0);
}

/* Acquires and fires what is due at now (max at most); returns how many,
 * the fires in *ret when ret is not NULL (else freed). */
static size_t take(chime_store *st, int64_t now, size_t max,
                   chime_fire ***ret) {
  chime_fire **fires = NULL;
  size_t n = sc_acquire(st, now, now, max, NULL, &fires);
  if (n > 0) {
    CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, fires, n, now), 0);
  }
  if (ret)
    *ret = fires;
  else
    sc_fires_free(fires, n);
  return n;
}

/* Takes what is due every 10 ms for ms of the store's clock; returns how
 * many. */
static size_t take_for(chime_store *st, int64_t ms) {
  int64_t begin = st->ops->now(st);
  size_t n = 0;
  while (st->ops->now(st) < begin + ms) {
    struct timespec d = {0, 10 * 1000000L};
    nanosleep(&d, NULL);
    n += take(st, st->ops->now(st), 40, NULL);
  }
  return n;
}

static bool has_trigger(chime_fire **fires, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(fires[i]->trigger->name, name) == 0)
      return true;
  return false;
}

static void test_limit_kept(void) {
  chime_store *st = sc_open();
  chime_limit_def d;
  CU_ASSERT_EQUAL(st->ops->limit_get(st, "x", &d), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->limit_set(st, "x", NULL), CHIME_ENOTFOUND);
  set_limit(st, "x", 3, 1, 10, 1000);
  CU_ASSERT_EQUAL(st->ops->limit_get(st, "x", &d), 0);
  CU_ASSERT_EQUAL(d.max_running, 3);
  CU_ASSERT_EQUAL(d.max_per_partition, 1);
  CU_ASSERT_EQUAL(d.rate_count, 10);
  CU_ASSERT_EQUAL(d.rate_period_ms, 1000);
  set_limit(st, "x", 5, 0, 0, 0); /* replaces */
  CU_ASSERT_EQUAL(st->ops->limit_get(st, "x", &d), 0);
  CU_ASSERT_EQUAL(d.max_running, 5);
  CU_ASSERT_EQUAL(d.rate_count, 0);
  CU_ASSERT_EQUAL(st->ops->limit_set(st, "x", NULL), 0);
  CU_ASSERT_EQUAL(st->ops->limit_get(st, "x", &d), CHIME_ENOTFOUND);
  /* The partition key is kept with the trigger. */
  sc_add_job(st, "g", "j", "x", true);
  add_one(st, "p", "j", T0, "tenant-7");
  chime_trigger *t = sc_get(st, "t", "p");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_partition_key(t), "tenant-7");
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(chime_trigger_set_partition_key(NULL, "a"), CHIME_EINVAL);
  sc_close(st);
}

static void test_limit_running(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "lim", "limited", true);
  sc_add_job(st, "g", "free", "other", true);
  set_limit(st, "limited", 2, 0, 0, 0);
  for (int i = 0; i < 5; i++) {
    char name[16];
    snprintf(name, sizeof name, "l%d", i);
    add_one(st, name, "lim", T0 + i, NULL);
  }
  add_one(st, "f0", "free", T0 + 10, NULL);
  chime_fire **fires;
  size_t n = take(st, T0 + 20, 10, &fires);
  /* The two oldest of the limited type, and the other type's. */
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT(has_trigger(fires, n, "l0"));
  CU_ASSERT(has_trigger(fires, n, "l1"));
  CU_ASSERT(has_trigger(fires, n, "f0"));
  CU_ASSERT_EQUAL(st->ops->limit_wait_ms(st), CHIME__LIMIT_POLL_MS);
  /* Full: nothing more, however late (a limited fire is not misfired). */
  int64_t late = T0 + 3 * THRESHOLD;
  CU_ASSERT_EQUAL(take(st, late, 10, NULL), 0);
  size_t handled = 99;
  bool more = true;
  CU_ASSERT_EQUAL(
      st->ops->scan_misfires(st, late, 100, NULL, NULL, &handled, &more), 0);
  CU_ASSERT_EQUAL(handled, 0);
  CU_ASSERT_EQUAL(sc_status(st, "t", "l2"), CHIME_TRIGGER_NORMAL);
  /* A slot frees: the oldest waiting one, at its own scheduled time. */
  for (size_t i = 0; i < n; i++)
    if (strcmp(fires[i]->trigger->name, "l0") == 0)
      CU_ASSERT_EQUAL(sc_complete(st, fires[i]), 0);
  chime_fire **next;
  CU_ASSERT_EQUAL_FATAL(take(st, late, 10, &next), 1);
  CU_ASSERT_STRING_EQUAL(next[0]->trigger->name, "l2");
  CU_ASSERT_EQUAL(next[0]->scheduled_ms, T0 + 2);
  /* A release frees its slot too. */
  for (size_t i = 0; i < n; i++)
    if (strcmp(fires[i]->trigger->name, "l1") == 0)
      CU_ASSERT_EQUAL(sc_complete(st, fires[i]), 0);
  chime_fire **claims;
  CU_ASSERT_EQUAL_FATAL(sc_acquire(st, late, late, 10, NULL, &claims), 1);
  CU_ASSERT_EQUAL(st->ops->release(st, claims, 1), 0);
  sc_fires_free(claims, 1);
  CU_ASSERT_EQUAL_FATAL(sc_acquire(st, late, late, 10, NULL, &claims), 1);
  CU_ASSERT_STRING_EQUAL(claims[0]->trigger->name, "l3");
  CU_ASSERT_EQUAL(st->ops->release(st, claims, 1), 0);
  sc_fires_free(claims, 1);
  /* Cleared: the rest are ordinary late fires again (the misfire scan's,
   * whose policy here runs them now). */
  CU_ASSERT_EQUAL(st->ops->limit_set(st, "limited", NULL), 0);
  CU_ASSERT_EQUAL(
      st->ops->scan_misfires(st, late, 100, NULL, NULL, &handled, &more), 0);
  CU_ASSERT_EQUAL(handled, 2);
  CU_ASSERT_EQUAL(take(st, late, 10, NULL), 2);
  CU_ASSERT_EQUAL(st->ops->limit_wait_ms(st), -1);
  sc_fires_free(next, 1);
  sc_fires_free(fires, n);
  sc_close(st);
}

/* A batch smaller than the queue of a full type still gets the fires of
 * other types behind it. */
static void test_limit_does_not_hold_others(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "lim", "limited", true);
  sc_add_job(st, "g", "free", "other", true);
  set_limit(st, "limited", 1, 0, 0, 0);
  for (int i = 0; i < 8; i++) {
    char name[16];
    snprintf(name, sizeof name, "l%d", i);
    add_one(st, name, "lim", T0 + i, NULL);
  }
  add_one(st, "f0", "free", T0 + 50, NULL);
  add_one(st, "f1", "free", T0 + 51, NULL);
  chime_fire **fires;
  size_t n = take(st, T0 + 100, 3, &fires);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT(has_trigger(fires, n, "l0"));
  CU_ASSERT(has_trigger(fires, n, "f0"));
  CU_ASSERT(has_trigger(fires, n, "f1"));
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_limit_partitions(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "lim", "limited", true);
  set_limit(st, "limited", 3, 1, 0, 0);
  add_one(st, "a0", "lim", T0, "A");
  add_one(st, "a1", "lim", T0 + 1, "A");
  add_one(st, "b0", "lim", T0 + 2, "B");
  add_one(st, "n0", "lim", T0 + 3, NULL);
  add_one(st, "c0", "lim", T0 + 4, "C");
  chime_fire **fires;
  size_t n = take(st, T0 + 10, 10, &fires);
  /* One of A, then B and the one without a key: the type's 3. */
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT(has_trigger(fires, n, "a0"));
  CU_ASSERT(has_trigger(fires, n, "b0"));
  CU_ASSERT(has_trigger(fires, n, "n0"));
  /* What operators see. */
  chime_limit_stat *stats = NULL;
  size_t ns = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_stats(st, T0 + 10, &stats, &ns), 0);
  CU_ASSERT_FATAL(ns >= 1);
  CU_ASSERT_STRING_EQUAL(stats[0].job_type, "limited");
  CU_ASSERT_PTR_NULL(stats[0].partition);
  CU_ASSERT_EQUAL(stats[0].def.max_running, 3);
  CU_ASSERT_EQUAL(stats[0].running, 3);
  CU_ASSERT_EQUAL(stats[0].waiting, 2);
  bool seen_a = false;
  for (size_t i = 1; i < ns; i++)
    if (stats[i].partition && strcmp(stats[i].partition, "A") == 0) {
      seen_a = true;
      CU_ASSERT_EQUAL(stats[i].running, 1);
      CU_ASSERT_EQUAL(stats[i].waiting, 1);
    }
  CU_ASSERT(seen_a);
  chime__limit_stats_free(stats, ns);
  /* A's run ends: a1 may run, but the type is full until one more ends. */
  CU_ASSERT_EQUAL(sc_complete(st, fires[0]), 0); /* a0: the oldest */
  chime_fire **next;
  CU_ASSERT_EQUAL_FATAL(take(st, T0 + 20, 10, &next), 1);
  CU_ASSERT_STRING_EQUAL(next[0]->trigger->name, "a1");
  CU_ASSERT_EQUAL(take(st, T0 + 30, 10, NULL), 0);
  sc_fires_free(next, 1);
  sc_fires_free(fires, n);
  sc_close(st);
}

/* The rate is judged by the store's clock (the MySQL store: the
 * database's NOW(3)), so this test runs in real time: a second. */
static void test_limit_rate(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "lim", "limited", true);
  /* 20 a second: one start every 50 ms, one more may come early. */
  set_limit(st, "limited", 0, 0, 20, 1000);
  int64_t t0 = st->ops->now(st);
  for (int i = 0; i < 40; i++) {
    char name[16];
    snprintf(name, sizeof name, "r%d", i);
    add_one(st, name, "lim", t0 - SEC, NULL);
  }
  /* The burst: two at once, then the wait until the next start. */
  size_t total = take(st, st->ops->now(st), 40, NULL);
  CU_ASSERT_EQUAL(total, 2);
  CU_ASSERT_EQUAL(take(st, st->ops->now(st), 40, NULL), 0);
  int64_t wait = st->ops->limit_wait_ms(st);
  CU_ASSERT(wait >= 1 && wait <= 50);
  /* Polled every 10 ms for a second: 20 more starts, never more than one
   * over; fewer when a loaded machine (the sanitizer build beside other
   * tests) polls late, as a poll past a start's time loses it to the next
   * (a burst of one catches up at most one). */
  size_t more = take_for(st, 1000);
  CU_ASSERT(more >= 14 && more <= 22);
  sc_close(st);
}

/* The per-partition half (chime_scheduler_set_partition_limit). */
static void set_partition(chime_store *st, const char *type, const char *field,
                          int per, int rate, int64_t period) {
  chime_limit_def d = {.max_per_partition = per,
                       .key_rate_count = rate,
                       .key_rate_period_ms = period,
                       .sets = CHIME__LIMIT_SET_PARTITION};
  snprintf(d.partition_field, sizeof d.partition_field, "%s",
           field ? field : "");
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_set(st, type, &d), 0);
}

/* The two halves of a limit are set apart and kept together. */
static void test_limit_partition_half_kept(void) {
  chime_store *st = sc_open();
  chime_limit_def d;
  set_partition(st, "x", "tenant", 2, 5, 1000); /* creates the limit */
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_get(st, "x", &d), 0);
  CU_ASSERT_EQUAL(d.max_running, 0);
  CU_ASSERT_EQUAL(d.max_per_partition, 2);
  CU_ASSERT_EQUAL(d.key_rate_count, 5);
  CU_ASSERT_EQUAL(d.key_rate_period_ms, 1000);
  CU_ASSERT_STRING_EQUAL(d.partition_field, "tenant");
  chime_limit_def t = {.max_running = 4,
                       .max_per_partition = 1,
                       .rate_count = 50,
                       .rate_period_ms = 1000,
                       .sets = CHIME__LIMIT_SET_TYPE};
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_set(st, "x", &t), 0);
  memset(&d, 0, sizeof d);
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_get(st, "x", &d), 0);
  CU_ASSERT_EQUAL(d.max_running, 4);
  CU_ASSERT_EQUAL(d.max_per_partition, 1);
  CU_ASSERT_EQUAL(d.rate_count, 50);
  CU_ASSERT_EQUAL(d.key_rate_count, 5); /* the other half stays */
  CU_ASSERT_STRING_EQUAL(d.partition_field, "tenant");
  set_partition(st, "x", NULL, 0, 0, 0); /* the half removed */
  memset(&d, 0, sizeof d);
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_get(st, "x", &d), 0);
  CU_ASSERT_EQUAL(d.max_running, 4);
  CU_ASSERT_EQUAL(d.max_per_partition, 0);
  CU_ASSERT_EQUAL(d.key_rate_count, 0);
  CU_ASSERT_STRING_EQUAL(d.partition_field, "");
  /* What operators see carries both halves. */
  set_partition(st, "x", "tenant", 1, 5, 1000);
  chime_limit_stat *stats = NULL;
  size_t ns = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->limit_stats(st, T0, &stats, &ns), 0);
  CU_ASSERT_EQUAL_FATAL(ns, 1);
  CU_ASSERT_EQUAL(stats[0].def.max_running, 4);
  CU_ASSERT_EQUAL(stats[0].def.key_rate_count, 5);
  CU_ASSERT_EQUAL(stats[0].def.key_rate_period_ms, 1000);
  CU_ASSERT_STRING_EQUAL(stats[0].def.partition_field, "tenant");
  chime__limit_stats_free(stats, ns);
  CU_ASSERT_EQUAL(st->ops->limit_set(st, "x", NULL), 0);
  CU_ASSERT_EQUAL(st->ops->limit_get(st, "x", &d), CHIME_ENOTFOUND);
  sc_close(st);
}

/* A run of job g/j with data (NULL: none) and partition key key. */
static chime_trigger *run_with(const char *data, const char *key) {
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_run_at_ms(o, T0), 0);
  if (data)
    CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_data(o, data, strlen(data)), 0);
  if (key)
    CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_partition_key(o, key), 0);
  chime_trigger *t = NULL;
  char err[256];
  static uint64_t tag;
  CU_ASSERT_EQUAL_FATAL(
      chime__enqueue_trigger("g", "j", o, ++tag, &t, err, sizeof err), 0);
  chime_enqueue_free(o);
  return t;
}

/* The partition key of stored trigger group/name, or "-" for none, into
 * buf. */
static const char *key_of(chime_store *st, const char *group, const char *name,
                          char *buf, size_t len) {
  chime_trigger *t = sc_get(st, group, name);
  const char *k = t ? chime_trigger_get_partition_key(t) : NULL;
  snprintf(buf, len, "%s", k ? k : "-");
  chime_trigger_free(t);
  return buf;
}

/* A partition key taken from the runs' data, once, as they are stored:
 * by a batch, by one run, and by a scheduled trigger of a job with data. */
static void test_limit_partition_from_data(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "export", true);
  set_partition(st, "export", "tenant", 1, 0, 0);
  static const char *const data[] = {
      "{\"tenant\":\"acme\",\"n\":1}",
      " { \"n\" : [1, {\"tenant\": \"no\"}], \"tenant\" : \"acme\" } ",
      "{\"tenant\":\"be\\u0074a\"}",
      "{\"tenant\":42}",
      "not json",
      "{\"other\":\"acme\"}",
      "{\"tenant\":null}",
      "{\"tenant\":\"\"}",
      NULL,
      "{\"tenant\":\"acme\"}", /* an explicit key wins */
  };
  static const char *const want[] = {"acme", "acme", "beta", "42", "-",
                                     "-",    "-",    "-",    "-",  "mine"};
  enum { N = sizeof data / sizeof data[0] };
  chime_trigger *ts[N];
  bool existed[N];
  for (size_t i = 0; i < N; i++)
    ts[i] = run_with(data[i], i == N - 1 ? "mine" : NULL);
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add_many(st, ts, N - 1, existed, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add_many(st, ts + N - 1, 1, existed, err, sizeof err),
      0);
  char buf[CHIME_MAX_NAME_LEN + 1];
  for (size_t i = 0; i < N; i++) {
    key_of(st, ts[i]->group, ts[i]->name, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, want[i]);
  }
  /* The claim counts them as keys given: one of acme at a time. */
  chime_fire **fires = NULL;
  size_t n = take(st, T0 + 10, 20, &fires);
  size_t acme = 0;
  for (size_t i = 0; i < n; i++) {
    const char *k = fires[i]->trigger->partition_key;
    acme += k && strcmp(k, "acme") == 0;
  }
  CU_ASSERT_EQUAL(acme, 1);
  CU_ASSERT_EQUAL(n, N - 1);
  sc_fires_free(fires, n);
  for (size_t i = 0; i < N; i++)
    chime_trigger_free(ts[i]);
  /* A scheduled trigger of a job whose data names the tenant. */
  chime_job *job = sc_job("g", "jd", "export", true);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_data(job, "{\"tenant\":\"zed\"}", 16), 0);
  chime_trigger *t = sc_simple("t", "sched", "g", "jd", T0, 0, 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, job, t, false, NULL, err, sizeof err), 0);
  CU_ASSERT_STRING_EQUAL(key_of(st, "t", "sched", buf, sizeof buf), "zed");
  chime_trigger_free(t);
  chime_job_free(job);
  sc_close(st);
}

/* Each partition has its own smoothed rate, judged by the store's clock:
 * real time, half a second. */
static void test_limit_partition_rate(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "lim", "limited", true);
  /* 10 a second per key: one start every 100 ms, one more may come early. */
  set_partition(st, "limited", NULL, 0, 10, 1000);
  int64_t t0 = st->ops->now(st);
  for (int i = 0; i < 20; i++) {
    char name[16];
    snprintf(name, sizeof name, "r%d", i);
    add_one(st, name, "lim", t0 - SEC + i, i % 2 ? "A" : "B");
  }
  add_one(st, "nokey", "lim", t0 - SEC + 30, NULL);
  /* The burst of each key (two), and the run without a key. */
  CU_ASSERT_EQUAL(take(st, st->ops->now(st), 40, NULL), 5);
  CU_ASSERT_EQUAL(take(st, st->ops->now(st), 40, NULL), 0);
  int64_t wait = st->ops->limit_wait_ms(st);
  CU_ASSERT(wait >= 1 && wait <= 100);
  /* Polled every 10 ms for half a second: 5 more starts per key, give or
   * take one. */
  size_t more = take_for(st, 500);
  CU_ASSERT(more >= 8 && more <= 12);
  if (more < 8 || more > 12)
    fprintf(stderr, "per-key rate: %zu starts in 500 ms\n", more);
  sc_close(st);
}

/* One partition's queue, longer than a claim's batch, does not hold up
 * another partition's fire behind it (for its concurrency or its rate). */
static void test_limit_partition_does_not_hold_others(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "lim", "limited", true);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 0)
      set_limit(st, "limited", 0, 1, 0, 0);
    else
      set_partition(st, "limited", NULL, 0, 1, 60000); /* 1 a minute */
    int64_t now = pass == 0 ? T0 + 100 : st->ops->now(st);
    for (int i = 0; i < 6; i++) {
      char name[16];
      snprintf(name, sizeof name, "a%d_%d", pass, i);
      add_one(st, name, "lim", now - 100 + i, "A");
    }
    char b[16];
    snprintf(b, sizeof b, "b%d", pass);
    add_one(st, b, "lim", now - 50, "B");
    chime_fire **fires;
    /* A's one (two with the rate's burst), and B's behind them. */
    size_t n = take(st, now, 3, &fires);
    CU_ASSERT_EQUAL(n, pass == 0 ? 2 : 3);
    CU_ASSERT(has_trigger(fires, n, b));
    for (size_t i = 0; i < n; i++)
      CU_ASSERT_EQUAL(sc_complete(st, fires[i]), 0);
    sc_fires_free(fires, n);
    CU_ASSERT_EQUAL(st->ops->limit_set(st, "limited", NULL), 0);
    /* The rest of A: out of the way of the next pass. */
    for (int i = 1; i < 6; i++) {
      char name[16];
      snprintf(name, sizeof name, "a%d_%d", pass, i);
      int r = st->ops->trigger_remove(st, "t", name);
      CU_ASSERT(r == 0 || r == CHIME_ENOTFOUND); /* claimed: gone */
    }
  }
  sc_close(st);
}

CU_TestInfo sc_limit_tests[] = {
    {"a limit and a partition key are kept", test_limit_kept},
    {"a concurrency limit: waiting fires run oldest first, never misfired",
     test_limit_running},
    {"a full limited type does not hold up other types",
     test_limit_does_not_hold_others},
    {"per-partition limits inside a type's limit", test_limit_partitions},
    {"a rate limit is smoothed", test_limit_rate},
    {"the per-partition half of a limit is kept",
     test_limit_partition_half_kept},
    {"a partition key is taken from the run's data",
     test_limit_partition_from_data},
    {"a per-partition rate limit is smoothed per key",
     test_limit_partition_rate},
    {"a full partition does not hold up another partition",
     test_limit_partition_does_not_hold_others},
    CU_TEST_INFO_NULL,
};
