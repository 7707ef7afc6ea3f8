/*
 * enqueue.c: runs handed in by the application (chime_scheduler_enqueue,
 * chime_scheduler_enqueue_many, chime_scheduler_run_job with a request key
 * (chime__run_job_keyed);
 * docs/queue.md).  Each run is a one-off trigger built by
 * chime__enqueue_trigger and stored with the store's trigger_add_many, a
 * batch at a time; a run whose unique key is stored already is told back
 * as CHIME_ENQUEUE_EXISTED.
 *
 * Threads: any, as api_jobs.c; s->mu is never held across the store.
 */
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies name into the caller's buffer; CHIME_ELIMIT when it is short. */
static int give_name(const char *name, char *buf, size_t len) {
  if (!buf)
    return 0;
  return (size_t)snprintf(buf, len, "%s", name) < len ? 0 : CHIME_ELIMIT;
}

/* Stores ts[0 .. n) (n <= CHIME__ENQUEUE_BATCH): results and names from
 * index `at` on. */
static int store_batch(chime_scheduler *s, const char *fn,
                       chime_trigger *const *ts, size_t n, int *results,
                       char *runs, size_t run_len, size_t at, size_t *stored) {
  bool existed[CHIME__ENQUEUE_BATCH];
  char err[256] = "";
  int r = s->store->ops->trigger_add_many(s->store, ts, n, existed, err,
                                          sizeof err);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, err[0] ? err : chime_strerror(r));
  int named = 0;
  for (size_t i = 0; i < n; i++) {
    *stored += !existed[i];
    if (results)
      results[at + i] = existed[i] ? CHIME_ENQUEUE_EXISTED : 0;
    if (runs && named == 0)
      named = give_name(ts[i]->name, runs + (at + i) * run_len, run_len);
  }
  if (named < 0)
    return chime__fail(s, named, "%s: a run's name is longer than %zu bytes",
                       fn, run_len - 1);
  return 0;
}

/* How many of opts[0 .. count) (count > 0) go in the next batch: at most
 * CHIME__ENQUEUE_BATCH, and data of at most CHIME__ENQUEUE_BATCH_BYTES in
 * all (the MySQL store sends a batch as one statement, within the
 * server's max_allowed_packet), but always one. */
static size_t batch_len(const chime_enqueue *const *opts, size_t count) {
  size_t n = 0, bytes = 0;
  while (n < count && n < CHIME__ENQUEUE_BATCH) {
    size_t len = 0;
    chime_enqueue_get_data(opts[n], &len);
    if (n > 0 && bytes + len > CHIME__ENQUEUE_BATCH_BYTES)
      break;
    bytes += len;
    n++;
  }
  return n;
}

/* enqueue_many's work, also enqueue's (count 1). */
static int enqueue(chime_scheduler *s, const char *fn, const char *group,
                   const char *name, const chime_enqueue *const *opts,
                   size_t count, int *results, char *runs, size_t run_len) {
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  char err[256] = "";
  if ((r = chime__name_check(group, "job group", err, sizeof err)) < 0 ||
      (r = chime__name_check(name, "job name", err, sizeof err)) < 0)
    return chime__fail(s, r, "%s: %s", fn, err);
  if (!opts && count > 0)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL opts", fn);
  if (runs && run_len == 0)
    return chime__fail(s, CHIME_EINVAL, "%s: run_len 0", fn);
  if (!s->store->ops->trigger_add_many)
    return chime__fail(s, CHIME_EUNSUPPORTED, "%s: the store cannot", fn);
  chime_trigger *ts[CHIME__ENQUEUE_BATCH];
  size_t stored = 0;
  for (size_t at = 0; at < count;) {
    size_t n = batch_len(opts + at, count - at);
    size_t built = 0;
    for (; r == 0 && built < n; built++)
      r = chime__enqueue_trigger(group, name, opts[at + built],
                                 atomic_fetch_add(&s->manual_seq, 1),
                                 &ts[built], err, sizeof err);
    if (r < 0)
      r = chime__fail(s, r, "%s: run %zu: %s", fn, at + built - 1, err);
    else
      r = store_batch(s, fn, ts, n, results, runs, run_len, at, &stored);
    for (size_t i = 0; i < built; i++)
      chime_trigger_free(ts[i]);
    if (r < 0)
      break;
    at += n;
  }
  if (stored > 0)
    chime__loop_wake(s);
  return r < 0 ? r : (int)stored;
}

int chime_scheduler_enqueue(chime_scheduler *s, const char *group,
                            const char *name, const chime_enqueue *opts,
                            char *ret_run, size_t run_len) {
  int result = 0;
  int r = enqueue(s, "chime_scheduler_enqueue", group, name, &opts, 1, &result,
                  ret_run, run_len);
  return r < 0 ? r : result;
}

int chime_scheduler_enqueue_many(chime_scheduler *s, const char *group,
                                 const char *name,
                                 const chime_enqueue *const *opts, size_t count,
                                 int *ret_results, char *ret_runs,
                                 size_t run_len) {
  return enqueue(s, "chime_scheduler_enqueue_many", group, name, opts, count,
                 ret_results, ret_runs, run_len);
}

int chime__run_job_keyed(chime_scheduler *s, const char *fn, const char *group,
                         const char *name, const void *data, size_t len,
                         const char *request_key) {
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if (!data && len > 0)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL data of length %zu", fn, len);
  chime_enqueue *o = NULL;
  if ((r = chime_enqueue_new(&o)) < 0)
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  if ((r = chime_enqueue_set_unique_key(o, request_key)) < 0 || !request_key) {
    chime_enqueue_free(o);
    return chime__fail(s, r < 0 ? r : CHIME_EINVAL, "%s: invalid request key",
                       fn);
  }
  if (len > 0 && (r = chime_enqueue_set_data(o, data, len)) < 0) {
    chime_enqueue_free(o);
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  }
  const chime_enqueue *one = o;
  int result = 0;
  r = enqueue(s, fn, group, name, &one, 1, &result, NULL, 0);
  chime_enqueue_free(o);
  return r < 0 ? r : result;
}
