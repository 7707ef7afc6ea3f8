/*
 * store-conformance-shards.c: the job store conformance suite, part five:
 * sharded fires, node tags and checkpoints (store.h's shard_split,
 * checkpoint_set, checkpoint_get; docs/batch.md).  What takes several
 * nodes (spread, broadcast over nodes, tags on another node) runs where a
 * store is shared between processes (not the memory store, whose one
 * process is one node).
 */
#include "store-conformance-impl.h"

#include "jobstore/admin.h"

#include "model/records.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What on_shards_done heard. */
typedef struct heard {
  int calls;
  chime_shards_done last;
  char message[256];
} heard;

static void on_done(void *user_data, const chime_shards_done *d) {
  heard *h = user_data;
  h->calls++;
  h->last = *d;
  snprintf(h->message, sizeof h->message, "%s", d->message ? d->message : "");
  h->last.message = h->message;
  h->last.job_group = h->last.job_name = NULL;
  h->last.trigger_group = h->last.trigger_name = NULL;
}

/* A store of node `node` with tags (may be NULL); reset empties the
 * database first (the first store of a test only). */
static chime_store *open_node(const char *node, const char *tags, heard *h,
                              bool reset) {
  chime_store_options o = {
      .scheduler_name = "conformance",
      .instance_id = node,
      .misfire_threshold_ms = THRESHOLD,
      .checkin_interval_ms = 1000,
      .connections = 4,
      .tags = tags,
      .on_shards_done = h ? on_done : NULL,
      .shards_user_data = h,
  };
  chime_store *st = NULL;
  char err[256] = "", url[2048];
  if (reset && sc_reset)
    sc_reset();
  /* Another node of the same cluster must not empty the tables again. */
  snprintf(url, sizeof url, "%s", sc_url);
  char *clear = strstr(url, "clear=1");
  if (clear && !reset)
    clear[strlen("clear=")] = '0';
  int r = chime__store_open(url, &o, &st, err, sizeof err);
  if (r != 0)
    fprintf(stderr, "cannot open store %s: %s: %s\n", sc_url, chime_err_name(r),
            err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  /* A clustered store's node is live from its check-in. */
  CU_ASSERT_EQUAL_FATAL(st->ops->checkin(st, st->ops->now(st), NULL), 0);
  return st;
}

static bool shared(const chime_store *st) {
  return strcmp(st->ops->name, "memory") != 0;
}

/* Adds job g.name of type "x" sharded count ways (params may be NULL),
 * requiring tag (may be NULL), with a one-shot trigger t.name at T0. */
static void add_sharded(chime_store *st, const char *name, int count,
                        const char *params, const char *tag) {
  chime_job *job = sc_job("g", name, "x", true);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_shards(job, count, params), 0);
  if (tag)
    CU_ASSERT_EQUAL_FATAL(chime_job_add_required_tag(job, tag), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  sc_add_simple(st, "t", name, "g", name, T0, 0, 0);
}

/* Acquires and fires what is due now (the store's clock: shards are due
 * when they were split), at most max. */
static size_t take(chime_store *st, size_t max, chime_fire ***ret) {
  int64_t now = st->ops->now(st);
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(
      st->ops->acquire_due(st, now, now, max, NULL, &fires, &n), 0);
  *ret = fires;
  return n;
}

static int complete_with(chime_store *st, const chime_fire *f, int error) {
  chime_run_result o = {.started_ms = T0,
                        .finished_ms = T0,
                        .error = error,
                        .message = error ? "shard failed" : NULL};
  return st->ops->complete(st, f, &o);
}

/* The history rows of job g.name. */
static size_t history_of(chime_store *st, const char *name,
                         chime_history_entry **ret) {
  chime_history_filter f = {.job_group = "g", .job_name = name, .limit = 100};
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->history_list(st, &f, ret, &n), 0);
  return n;
}

/* An operator's list kind of store st, of fire fire_id (the caller frees
 * it). */
static chime_admin_table *fire_list(chime_store *st, chime_admin_kind kind,
                                    int64_t fire_id) {
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(kind, &q), 0);
  CU_ASSERT_EQUAL(chime_admin_query_set_fire(q, fire_id), 0);
  chime_admin_table *t = NULL;
  int r = chime_admin_list(a, q, &t);
  CU_ASSERT_EQUAL(r, 0);
  if (r)
    fprintf(stderr, "list %d: %s\n", (int)kind, chime_admin_errmsg(a));
  chime_admin_query_free(q);
  chime_admin_free(a);
  return t;
}

/* A recorded fire's shard as an operator's history list says it: its
 * sharded fire * 100 + its index; -1 for no shard. */
static int64_t history_shard(chime_store *st, int64_t fire_id) {
  chime_admin_table *t = fire_list(st, CHIME_ADMIN_HISTORY, fire_id);
  int64_t v = chime_admin_table_get_row_count(t) != 1 ? -2
              : chime_admin_table_is_null(t, 0, "shard_parent")
                  ? -1
                  : chime_admin_table_get_int64(t, 0, "shard_parent") * 100 +
                        chime_admin_table_get_int64(t, 0, "shard_index");
  chime_admin_table_free(t);
  return v;
}

/* How many shard runs of sharded fire parent an operator's list says are
 * in state (all of them: -1 otherwise), by shard, each on node-a with
 * its fire. */
static int shards_in(chime_store *st, int64_t parent, const char *state) {
  chime_admin_table *t = fire_list(st, CHIME_ADMIN_SHARDS, parent);
  int n = (int)chime_admin_table_get_row_count(t);
  for (int i = 0; i < n; i++)
    if (strcmp(chime_admin_table_get_text(t, (size_t)i, "state"), state) ||
        chime_admin_table_get_int64(t, (size_t)i, "shard") != i ||
        strcmp(chime_admin_table_get_text(t, (size_t)i, "node"), "node-a") ||
        chime_admin_table_is_null(t, (size_t)i, "fire_id"))
      n = -1;
  chime_admin_table_free(t);
  return n;
}

static void test_store_shard_split(void) {
  heard h = {0};
  chime_store *st = open_node("node-a", NULL, &h, true);
  add_sharded(st, "s", 4, "0=Beijing,2=Shanghai", NULL);
  chime_fire *whole = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
  CU_ASSERT_TRUE(chime__fire_splits(whole));
  /* Not a sharded job's fire: refused. */
  int total = 0;
  CU_ASSERT_EQUAL(st->ops->shard_split(st, NULL, &total), CHIME_EINVAL);
  CU_ASSERT_EQUAL_FATAL(st->ops->shard_split(st, whole, &total), 0);
  CU_ASSERT_EQUAL(total, 4);
  /* Split once: the fire is no longer a run of this node. */
  CU_ASSERT_EQUAL(st->ops->shard_split(st, whole, &total), CHIME_ENOTOWNER);
  bool owned = true;
  CU_ASSERT_EQUAL(st->ops->still_owned(st, whole, &owned), 0);
  CU_ASSERT_FALSE(owned);
  CU_ASSERT_EQUAL(sc_complete(st, whole), CHIME_ENOTOWNER);
  chime_fire **fires = NULL;
  size_t n = take(st, 10, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  bool seen[4] = {false};
  for (size_t i = 0; i < n; i++) {
    const chime_trigger *t = fires[i]->trigger;
    CU_ASSERT_EQUAL(t->shard_parent, whole->fire_id);
    CU_ASSERT_EQUAL(t->shard_total, 4);
    CU_ASSERT_FATAL(t->shard_index >= 0 && t->shard_index < 4);
    CU_ASSERT_FALSE(seen[t->shard_index]);
    seen[t->shard_index] = true;
    CU_ASSERT_NOT_EQUAL(fires[i]->fire_id, whole->fire_id);
    /* The sharded fire's scheduled time is every shard's. */
    CU_ASSERT_EQUAL(chime__fire_original_ms(fires[i]), T0);
    CU_ASSERT_FALSE(chime__fire_splits(fires[i]));
    const char *want = t->shard_index == 0   ? "Beijing"
                       : t->shard_index == 2 ? "Shanghai"
                                             : NULL;
    if (want) {
      CU_ASSERT_STRING_EQUAL(t->shard_param ? t->shard_param : "", want);
    } else {
      CU_ASSERT_PTR_NULL(t->shard_param);
    }
  }
  /* Nothing more to claim. */
  chime_fire **more = NULL;
  CU_ASSERT_EQUAL(take(st, 10, &more), 0);
  sc_fires_free(more, 0);
  CU_ASSERT_EQUAL(shards_in(st, whole->fire_id, "running"), 4);
  for (size_t i = 0; i + 1 < n; i++)
    CU_ASSERT_EQUAL(complete_with(st, fires[i], i == 1 ? CHIME_EJOBFAILED : 0),
                    0);
  CU_ASSERT_EQUAL(h.calls, 0); /* one shard left */
  CU_ASSERT_EQUAL(complete_with(st, fires[n - 1], 0), 0);
  CU_ASSERT_EQUAL(h.calls, 1);
  CU_ASSERT_EQUAL(h.last.fire_id, whole->fire_id);
  CU_ASSERT_EQUAL(h.last.total, 4);
  CU_ASSERT_EQUAL(h.last.failed, 1);
  CU_ASSERT_EQUAL(h.last.error, CHIME_EJOBFAILED);
  char idx[8];
  snprintf(idx, sizeof idx, "%d", fires[1]->trigger->shard_index);
  CU_ASSERT_PTR_NOT_NULL(strstr(h.message, idx));
  /* A completed shard is completed once. */
  CU_ASSERT_EQUAL(complete_with(st, fires[0], 0), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(h.calls, 1);
  /* History: a row per shard and one for the fire, FAILED (one shard). */
  chime_history_entry *e = NULL;
  size_t ne = history_of(st, "s", &e);
  CU_ASSERT_EQUAL(ne, 5);
  size_t whole_rows = 0;
  for (size_t i = 0; i < ne; i++)
    if (e[i].fire_id == whole->fire_id) {
      whole_rows++;
      CU_ASSERT_STRING_EQUAL(e[i].outcome, "FAILED");
    }
  CU_ASSERT_EQUAL(whole_rows, 1);
  chime__history_entries_free(e, ne);
  /* The one-shot trigger and its shard triggers are gone. */
  CU_ASSERT_EQUAL(sc_status(st, "t", "s"), CHIME_TRIGGER_NONE);
  /* An operator's history says a shard's sharded fire and index. */
  CU_ASSERT(history_shard(st, fires[1]->fire_id) ==
            whole->fire_id * 100 + fires[1]->trigger->shard_index);
  CU_ASSERT(history_shard(st, whole->fire_id) == -1);
  CU_ASSERT_EQUAL(shards_in(st, whole->fire_id, "done"), 4);
  sc_fires_free(fires, n);
  chime__fire_free(whole);
  sc_close(st);
}

/* chime_job_set_shards_then: the last shard's completion enqueues one run
 * of the then-job, keyed by the sharded fire, with its message as data;
 * a then-job that is gone is skipped and the batch still completes. */
static void test_store_shards_then(void) {
  chime_store *st = open_node("node-a", NULL, NULL, true);
  sc_add_job(st, "g", "after", "y", true);
  for (int gone = 0; gone < 2; gone++) {
    const char *name = gone ? "s3" : "s2";
    chime_job *job = sc_job("g", name, "x", true);
    CU_ASSERT_EQUAL_FATAL(chime_job_set_shards(job, 2, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(
        chime_job_set_shards_then(job, "g", gone ? "missing" : "after"), 0);
    CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
    chime_job_free(job);
    sc_add_simple(st, "t", name, "g", name, T0, 0, 0);
    chime_fire *whole = sc_fire_next(st, T0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
    CU_ASSERT_EQUAL_FATAL(st->ops->shard_split(st, whole, NULL), 0);
    chime_fire **fires = NULL;
    size_t n = take(st, 10, &fires);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    char key[64];
    snprintf(key, sizeof key, "K_shards-%lld", (long long)whole->fire_id);
    CU_ASSERT_EQUAL(complete_with(st, fires[0], 0), 0);
    CU_ASSERT_EQUAL(sc_status(st, CHIME_QUEUE_GROUP, key), CHIME_TRIGGER_NONE);
    CU_ASSERT_EQUAL(complete_with(st, fires[1], 0), 0);
    if (gone) {
      CU_ASSERT_EQUAL(sc_status(st, CHIME_QUEUE_GROUP, key),
                      CHIME_TRIGGER_NONE);
    } else {
      chime_trigger *t = sc_get(st, CHIME_QUEUE_GROUP, key);
      CU_ASSERT_STRING_EQUAL(chime_trigger_get_job_name(t), "after");
      size_t len = 0;
      const char *data = chime_trigger_get_data(t, &len);
      CU_ASSERT(len > 0 && data && strstr(data, "2 shard(s) completed"));
      chime_trigger_free(t);
      /* Out of the next round's way. */
      CU_ASSERT_EQUAL(st->ops->trigger_remove(st, CHIME_QUEUE_GROUP, key), 0);
    }
    /* The sharded fire is over: its history row is written. */
    chime_history_entry *e = NULL;
    size_t ne = history_of(st, name, &e);
    CU_ASSERT_EQUAL(ne, 3);
    chime__history_entries_free(e, ne);
    sc_fires_free(fires, n);
    chime__fire_free(whole);
  }
  sc_close(st);
}

/* A FORBID job: its sharded fire blocks the job's next fire until its last
 * shard completed, not its shards. */
/* Adds FORBID job g.name sharded count ways, with a trigger t.name every
 * minute from start. */
static void add_forbid(chime_store *st, const char *name, int count,
                       int64_t start) {
  chime_job *job = sc_job("g", name, "x", true);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_shards(job, count, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
  sc_add_simple(st, "t", name, "g", name, start, MINUTE, 5);
}

/* add_forbid's job, its fire at T0 split: the sharded fire. */
static chime_fire *split_forbid(chime_store *st, const char *name, int count) {
  add_forbid(st, name, count, T0);
  chime_fire *whole = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
  CU_ASSERT_EQUAL_FATAL(st->ops->shard_split(st, whole, NULL), 0);
  return whole;
}

/* The FORBID job's trigger t.name is not blocked: it fires at T0 + 1 min. */
static void fires_unblocked(chime_store *st, const char *name) {
  CU_ASSERT_EQUAL(sc_status(st, "t", name), CHIME_TRIGGER_NORMAL);
  chime_fire *next = sc_fire_next(st, T0 + MINUTE);
  CU_ASSERT_PTR_NOT_NULL(next);
  chime__fire_free(next);
}

static void test_store_shard_forbid(void) {
  chime_store *st = open_node("node-a", NULL, NULL, true);
  chime_fire *whole = split_forbid(st, "f", 3);
  chime_fire **fires = NULL;
  size_t n = take(st, 10, &fires);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  /* The next fire time is due, but the job runs: BLOCKED. */
  CU_ASSERT_EQUAL(sc_status(st, "t", "f"), CHIME_TRIGGER_BLOCKED);
  CU_ASSERT_PTR_NULL(sc_fire_next(st, T0 + MINUTE));
  for (size_t i = 0; i < n; i++)
    CU_ASSERT_EQUAL(complete_with(st, fires[i], 0), 0);
  fires_unblocked(st, "f");
  sc_fires_free(fires, n);
  chime__fire_free(whole);
  sc_close(st);
}

/* The history row of sharded fire id of job g.name: its outcome and
 * message ("" when none) in out (n bytes); false when there is none. */
static bool whole_row(chime_store *st, const char *name, int64_t id, char *out,
                      size_t n) {
  chime_history_entry *e = NULL;
  size_t ne = history_of(st, name, &e);
  bool found = false;
  for (size_t i = 0; i < ne; i++)
    if (e[i].fire_id == id && !found) {
      found = true;
      snprintf(out, n, "%s %s", e[i].outcome, e[i].message ? e[i].message : "");
    }
  chime__history_entries_free(e, ne);
  return found;
}

/* Removing a FORBID job while its sharded fire waits ends the fire (a
 * CANCELLED history row, "job removed"): the job re-added under its key
 * is not blocked, and a shard still running finds its fire gone. */
static void test_store_shards_job_removed(void) {
  heard h = {0};
  chime_store *st = open_node("node-a", NULL, &h, true);
  chime_fire *whole = split_forbid(st, "r", 3);
  chime_fire **fires = NULL;
  size_t n = take(st, 1, &fires); /* one shard runs, two wait */
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_remove(st, "g", "r"), 0);
  char row[200] = "";
  CU_ASSERT_TRUE(whole_row(st, "r", whole->fire_id, row, sizeof row));
  CU_ASSERT_STRING_EQUAL(row, "CANCELLED job removed");
  (void)complete_with(st, fires[0], 0);
  CU_ASSERT_EQUAL(h.calls, 0);
  /* Re-added, the FORBID job fires: nothing of the old fire blocks it. */
  add_forbid(st, "r", 3, T0 + MINUTE);
  fires_unblocked(st, "r");
  sc_fires_free(fires, n);
  chime__fire_free(whole);
  sc_close(st);
}

/* Removing the trigger of a waiting sharded fire ends it too. */
static void test_store_shards_trigger_removed(void) {
  chime_store *st = open_node("node-a", NULL, NULL, true);
  chime_fire *whole = split_forbid(st, "u", 2);
  CU_ASSERT_EQUAL_FATAL(st->ops->trigger_remove(st, "t", "u"), 0);
  char row[200] = "";
  CU_ASSERT_TRUE(whole_row(st, "u", whole->fire_id, row, sizeof row));
  CU_ASSERT_STRING_EQUAL(row, "CANCELLED trigger removed");
  /* A new trigger of the FORBID job is not blocked. */
  sc_add_simple(st, "t", "u2", "g", "u", T0 + MINUTE, MINUTE, 5);
  CU_ASSERT_EQUAL(sc_status(st, "t", "u2"), CHIME_TRIGGER_NORMAL);
  chime__fire_free(whole);
  sc_close(st);
}

/* Threads acquiring at once: every shard claimed exactly once. */
typedef struct grab_arg {
  chime_store *st;
  int64_t ids[64];
  int index[64];
  size_t n;
} grab_arg;

static void *grab(void *p) {
  grab_arg *g = p;
  for (int idle = 0; idle < 3 && g->n < 60;) {
    chime_fire **fires = NULL;
    size_t n = 0;
    int64_t now = g->st->ops->now(g->st);
    if (g->st->ops->acquire_due(g->st, now, now, 3, NULL, &fires, &n) != 0)
      n = 0;
    idle = n ? 0 : idle + 1;
    for (size_t i = 0; i < n && g->n < 64; i++) {
      g->ids[g->n] = fires[i]->fire_id;
      g->index[g->n++] = fires[i]->trigger->shard_index;
    }
    sc_fires_free(fires, n);
  }
  return NULL;
}

static void test_store_shards_claimed_once(void) {
  chime_store *st = open_node("node-a", NULL, NULL, true);
  add_sharded(st, "c", 24, NULL, NULL);
  chime_fire *whole = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
  CU_ASSERT_EQUAL_FATAL(st->ops->shard_split(st, whole, NULL), 0);
  grab_arg g[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    memset(&g[i], 0, sizeof g[i]);
    g[i].st = st;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, grab, &g[i]), 0);
  }
  int count[24] = {0};
  size_t total = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    for (size_t k = 0; k < g[i].n; k++) {
      CU_ASSERT_FATAL(g[i].index[k] >= 0 && g[i].index[k] < 24);
      count[g[i].index[k]]++;
      total++;
    }
  }
  CU_ASSERT_EQUAL(total, 24);
  for (int i = 0; i < 24; i++)
    CU_ASSERT_EQUAL(count[i], 1);
  chime__fire_free(whole);
  sc_close(st);
}

/* Two nodes polling together each take their fair share. */
static void test_store_shards_spread(void) {
  chime_store *a = open_node("node-a", NULL, NULL, true);
  if (!shared(a)) {
    sc_close(a);
    return;
  }
  chime_store *b = open_node("node-b", NULL, NULL, false);
  add_sharded(a, "sp", 6, NULL, NULL);
  chime_fire *whole = sc_fire_next(a, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
  CU_ASSERT_EQUAL_FATAL(a->ops->shard_split(a, whole, NULL), 0);
  chime_fire **fa = NULL, **fb = NULL;
  size_t na = take(a, 10, &fa);
  size_t nb = take(b, 10, &fb);
  CU_ASSERT_EQUAL(na, 3);
  CU_ASSERT_EQUAL(nb, 3);
  /* Its share done, a node takes no more while the other has its own. */
  for (size_t i = 0; i < na; i++)
    CU_ASSERT_EQUAL(complete_with(a, fa[i], 0), 0);
  chime_fire **more = NULL;
  CU_ASSERT_EQUAL(take(a, 10, &more), 0);
  sc_fires_free(more, 0);
  for (size_t i = 0; i < nb; i++)
    CU_ASSERT_EQUAL(complete_with(b, fb[i], 0), 0);
  sc_fires_free(fa, na);
  sc_fires_free(fb, nb);
  chime__fire_free(whole);
  sc_close(b);
  sc_close(a);
}

/* A broadcast has one shard per live node whose tags cover the job's. */
static void test_store_shards_broadcast(void) {
  chime_store *a = open_node("node-a", "gpu", NULL, true);
  chime_store *b = shared(a) ? open_node("node-b", NULL, NULL, false) : NULL;
  chime_store *c =
      shared(a) ? open_node("node-c", "gpu,ssd", NULL, false) : NULL;
  add_sharded(a, "all", CHIME_SHARDS_BROADCAST, NULL, NULL);
  add_sharded(a, "gpus", CHIME_SHARDS_BROADCAST, "1=second", "gpu");
  /* Both fires first: the shards of a split are due at once. */
  chime_fire *wholes[2] = {sc_fire_next(a, T0), sc_fire_next(a, T0)};
  for (int k = 0; k < 2; k++) {
    chime_fire *whole = wholes[k];
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
    bool gpu = strcmp(whole->job->name, "gpus") == 0;
    int total = 0;
    CU_ASSERT_EQUAL_FATAL(a->ops->shard_split(a, whole, &total), 0);
    CU_ASSERT_EQUAL(total, !shared(a) ? 1 : gpu ? 2 : 3);
    chime__fire_free(whole);
  }
  sc_close(c);
  sc_close(b);
  sc_close(a);
}

/* Only nodes whose tags cover a job's required tags claim its fires. */
static void test_store_tags_route(void) {
  CU_ASSERT_EQUAL(chime_job_add_required_tag(NULL, "gpu"), CHIME_EINVAL);
  chime_store *a = open_node("node-a", "ssd", NULL, true);
  chime_job *job = sc_job("g", "bad", "x", true);
  CU_ASSERT_EQUAL(chime_job_add_required_tag(job, "has space"), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_add_required_tag(job, ""), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_add_required_tag(job, "ssd"), 0);
  CU_ASSERT_EQUAL(chime_job_add_required_tag(job, "gpu"), 0);
  CU_ASSERT_EQUAL(chime_job_add_required_tag(job, "ssd"), 0);
  CU_ASSERT_STRING_EQUAL(chime_job_get_required_tags(job), "gpu,ssd");
  chime_job_free(job);
  /* gpu: not a's; ssd: a's; none: anyone's. */
  sc_add_job(a, "g", "plain", "x", true);
  sc_add_simple(a, "t", "plain", "g", "plain", T0, 0, 0);
  const char *names[] = {"gpu", "ssd"};
  for (int i = 0; i < 2; i++) {
    chime_job *j = sc_job("g", names[i], "x", true);
    CU_ASSERT_EQUAL_FATAL(chime_job_add_required_tag(j, names[i]), 0);
    CU_ASSERT_EQUAL_FATAL(a->ops->job_add(a, j, false), 0);
    chime_job_free(j);
    sc_add_simple(a, "t", names[i], "g", names[i], T0, 0, 0);
  }
  /* The tags survive the store. */
  chime_job *back = NULL;
  CU_ASSERT_EQUAL_FATAL(a->ops->job_get(a, "g", "gpu", &back), 0);
  CU_ASSERT_STRING_EQUAL(chime_job_get_required_tags(back), "gpu");
  chime_job_free(back);
  chime_fire **fires = NULL;
  size_t n = sc_acquire(a, T0, T0, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 2);
  for (size_t i = 0; i < n; i++)
    CU_ASSERT_STRING_NOT_EQUAL(fires[i]->job->name, "gpu");
  CU_ASSERT_EQUAL(a->ops->release(a, fires, n), 0);
  sc_fires_free(fires, n);
  if (shared(a)) {
    chime_store *b = open_node("node-b", "gpu", NULL, false);
    n = sc_acquire(b, T0, T0, 10, NULL, &fires);
    /* b: gpu and plain, not ssd. */
    CU_ASSERT_EQUAL(n, 2);
    for (size_t i = 0; i < n; i++)
      CU_ASSERT_STRING_NOT_EQUAL(fires[i]->job->name, "ssd");
    CU_ASSERT_EQUAL(b->ops->release(b, fires, n), 0);
    sc_fires_free(fires, n);
    sc_close(b);
  }
  sc_close(a);
}

static void test_store_checkpoints(void) {
  chime_store *st = open_node("node-a", NULL, NULL, true);
  sc_add_job(st, "g", "cp", "x", true);
  sc_add_simple(st, "t", "cp", "g", "cp", T0, MINUTE, 3);
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  void *data = NULL;
  size_t len = 99;
  CU_ASSERT_EQUAL(st->ops->checkpoint_get(st, f, &data, &len), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->checkpoint_set(st, f, NULL, 3), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->checkpoint_set(st, f, "row 1000", 8), 0);
  CU_ASSERT_EQUAL(st->ops->checkpoint_set(st, f, "row 2000", 8), 0);
  CU_ASSERT_EQUAL(st->ops->checkpoint_set(st, f, "row 2000", 8), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->checkpoint_get(st, f, &data, &len), 0);
  CU_ASSERT(len == 8 && memcmp(data, "row 2000", 8) == 0);
  free(data);
  /* Fenced: a fire this node does not run writes nothing. */
  chime_fire other = *f;
  other.fire_id = f->fire_id + 1000;
  CU_ASSERT_EQUAL(st->ops->checkpoint_set(st, &other, "x", 1), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(st->ops->checkpoint_get(st, &other, &data, &len),
                  CHIME_ENOTFOUND);
  /* A run that continues this one (recovered) sees it. */
  chime_trigger *t = chime__trigger_copy(f->trigger);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  t->origin_fire_id = f->fire_id;
  other.trigger = t;
  CU_ASSERT_EQUAL_FATAL(st->ops->checkpoint_get(st, &other, &data, &len), 0);
  CU_ASSERT(len == 8 && memcmp(data, "row 2000", 8) == 0);
  free(data);
  chime_trigger_free(t);
  /* It ends with its run; afterwards nothing is written. */
  chime_run_result o = {
      .started_ms = T0, .finished_ms = T0, .checkpointed = true};
  CU_ASSERT_EQUAL(st->ops->complete(st, f, &o), 0);
  CU_ASSERT_EQUAL(st->ops->checkpoint_get(st, f, &data, &len), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->checkpoint_set(st, f, "late", 4), CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(st->ops->checkpoint_get(st, f, &data, &len), CHIME_ENOTFOUND);
  chime__fire_free(f);
  sc_close(st);
}

CU_TestInfo sc_shard_tests[] = {
    {"shards then: one run after the last shard", test_store_shards_then},
    {"a sharded fire: split, shards claimed, the fire done once",
     test_store_shard_split},
    {"a FORBID job's sharded fire blocks it until its last shard",
     test_store_shard_forbid},
    {"removing the job ends its waiting sharded fire",
     test_store_shards_job_removed},
    {"removing the trigger ends its waiting sharded fire",
     test_store_shards_trigger_removed},
    {"shards acquired concurrently are claimed once each",
     test_store_shards_claimed_once},
    {"nodes polling together take their share of shards",
     test_store_shards_spread},
    {"a broadcast counts the live capable nodes", test_store_shards_broadcast},
    {"required tags route fires", test_store_tags_route},
    {"checkpoints persist, are fenced and end with the run",
     test_store_checkpoints},
    CU_TEST_INFO_NULL,
};
