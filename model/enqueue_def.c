/*
 * enqueue_def.c: the options of an enqueued run (chime_enqueue_*) and the
 * one-off trigger that carries the run (docs/queue.md).
 *
 * A run is a trigger so that it is a fire like any other: claimed by one
 * node, fenced, recovered, retried by its job's policy, in history,
 * listed and cancelled with the calls that already exist.  A unique key
 * is the trigger's name: the trigger table's primary key refuses a second
 * one in every store and across nodes, with no check-then-insert race,
 * and the row lives exactly while the run waits or runs (a one-off
 * trigger is deleted when its fire completes).  A keyed run keeps its
 * row for its whole life: its retry re-arms the same trigger
 * (chime__trigger_retry_new), and with a unique period
 * (chime_enqueue_set_unique_for_ms) the stores keep the COMPLETE row
 * until held_until_ms, an enqueue then taking it over.
 */
#include "model/records.h"

#include "core/random.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_PRIORITY = 5 };

int chime_enqueue_new(chime_enqueue **ret) {
  if (!ret)
    return CHIME_EINVAL;
  chime_enqueue *o = calloc(1, sizeof *o);
  if (!o)
    return CHIME_ENOMEM;
  o->priority = DEFAULT_PRIORITY;
  *ret = o;
  return 0;
}

void chime_enqueue_free(chime_enqueue *opts) {
  if (!opts)
    return;
  free(opts->data);
  free(opts->unique_key);
  free(opts->partition_key);
  free(opts);
}

int chime_enqueue_set_data(chime_enqueue *opts, const void *data, size_t len) {
  if (!opts || (!data && len > 0))
    return CHIME_EINVAL;
  return chime__set_bytes(&opts->data, &opts->data_len, data, len);
}

const void *chime_enqueue_get_data(const chime_enqueue *opts, size_t *ret_len) {
  if (ret_len)
    *ret_len = opts ? opts->data_len : 0;
  return opts && opts->data_len ? opts->data : NULL;
}

int chime_enqueue_set_run_at_ms(chime_enqueue *opts, int64_t epoch_ms) {
  if (!opts || epoch_ms < 0)
    return CHIME_EINVAL;
  opts->run_at_ms = epoch_ms;
  return 0;
}

int64_t chime_enqueue_get_run_at_ms(const chime_enqueue *opts) {
  return opts ? opts->run_at_ms : 0;
}

int chime_enqueue_set_priority(chime_enqueue *opts, int priority) {
  if (!opts)
    return CHIME_EINVAL;
  opts->priority = priority;
  return 0;
}

int chime_enqueue_get_priority(const chime_enqueue *opts) {
  return opts ? opts->priority : DEFAULT_PRIORITY;
}

int chime_enqueue_set_timeout_ms(chime_enqueue *opts, int64_t ms) {
  if (!opts || ms < 0 || ms > CHIME_MAX_TIMEOUT_MS)
    return CHIME_EINVAL;
  opts->timeout_ms = ms;
  return 0;
}

int64_t chime_enqueue_get_timeout_ms(const chime_enqueue *opts) {
  return opts ? opts->timeout_ms : 0;
}

int chime_enqueue_set_unique_key(chime_enqueue *opts, const char *key) {
  if (!opts)
    return CHIME_EINVAL;
  if (key) {
    int r = chime__name_check(key, "unique key", NULL, 0);
    if (r < 0)
      return r;
    if (strlen(key) > CHIME_MAX_UNIQUE_KEY_LEN)
      return CHIME_ELIMIT;
  }
  return chime__set_text(&opts->unique_key, key, CHIME_MAX_UNIQUE_KEY_LEN);
}

const char *chime_enqueue_get_unique_key(const chime_enqueue *opts) {
  return opts ? opts->unique_key : NULL;
}

int chime_enqueue_set_unique_for_ms(chime_enqueue *opts, int64_t ms) {
  if (!opts || ms < 0 || ms > CHIME_MAX_TIMEOUT_MS)
    return CHIME_EINVAL;
  opts->unique_for_ms = ms;
  return 0;
}

int64_t chime_enqueue_get_unique_for_ms(const chime_enqueue *opts) {
  return opts ? opts->unique_for_ms : 0;
}

int chime_enqueue_set_retry(chime_enqueue *opts, const chime_retry *policy) {
  if (!opts)
    return CHIME_EINVAL;
  opts->has_retry = policy != NULL;
  if (policy)
    opts->retry = *policy;
  return 0;
}

const chime_retry *chime_enqueue_get_retry(const chime_enqueue *opts) {
  return opts && opts->has_retry ? &opts->retry : NULL;
}

bool chime__trigger_keyed(const chime_trigger *t) {
  return t && strcmp(t->group, CHIME_QUEUE_GROUP) == 0 &&
         strncmp(t->name, "K_", 2) == 0;
}

bool chime__trigger_hold_over(const chime_trigger *t, int64_t now_ms) {
  return chime__trigger_keyed(t) && t->store_state == CHIME_STATE_COMPLETE &&
         t->held_until_ms > 0 && t->held_until_ms <= now_ms;
}

int chime_enqueue_set_partition_key(chime_enqueue *opts, const char *key) {
  if (!opts)
    return CHIME_EINVAL;
  if (key) {
    int r = chime__name_check(key, "partition key", NULL, 0);
    if (r < 0)
      return r;
  }
  return chime__set_text(&opts->partition_key, key, CHIME_MAX_NAME_LEN);
}

const char *chime_enqueue_get_partition_key(const chime_enqueue *opts) {
  return opts ? opts->partition_key : NULL;
}

/* The run's trigger name into buf (CHIME_RUN_NAME_LEN bytes). */
static int run_name(const chime_enqueue *opts, uint64_t tag, char *buf,
                    char *errbuf, size_t errbuf_len) {
  const char *key = opts ? opts->unique_key : NULL;
  if (key) {
    if (strlen(key) > CHIME_MAX_UNIQUE_KEY_LEN)
      return chime__record_err(errbuf, errbuf_len, CHIME_ELIMIT,
                               "unique key longer than %d bytes",
                               CHIME_MAX_UNIQUE_KEY_LEN);
    snprintf(buf, CHIME_RUN_NAME_LEN, "K_%s", key);
    return 0;
  }
  if (opts && opts->unique_for_ms > 0)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "a unique period needs a unique key");
  uint64_t bits;
  int r = chime__random_u64(&bits);
  if (r < 0)
    return chime__record_err(errbuf, errbuf_len, r,
                             "no randomness for the run's name");
  snprintf(buf, CHIME_RUN_NAME_LEN, "Q_%016" PRIx64 "_%" PRIu64, bits, tag);
  return 0;
}

int chime__enqueue_trigger(const char *group, const char *name,
                           const chime_enqueue *opts, uint64_t tag,
                           chime_trigger **ret, char *errbuf,
                           size_t errbuf_len) {
  char tname[CHIME_RUN_NAME_LEN];
  *ret = NULL;
  int r = run_name(opts, tag, tname, errbuf, errbuf_len);
  chime_trigger *t = NULL;
  if (r == 0)
    r = chime_trigger_simple_new(CHIME_QUEUE_GROUP, tname, 0, 0, &t, errbuf,
                                 errbuf_len);
  if (r == 0)
    r = chime_trigger_set_job(t, group, name);
  if (r == 0)
    r = chime_trigger_set_misfire(t, CHIME_MISFIRE_FIRE_NOW);
  if (r == 0 && opts) {
    if (opts->data_len > 0)
      r = chime_trigger_set_data(t, opts->data, opts->data_len);
    if (r == 0 && opts->run_at_ms > 0)
      r = chime_trigger_set_start_ms(t, opts->run_at_ms);
    if (r == 0)
      r = chime_trigger_set_priority(t, opts->priority);
    if (r == 0 && opts->timeout_ms > 0)
      r = chime_trigger_set_timeout_ms(t, opts->timeout_ms);
    if (r == 0 && opts->partition_key)
      r = chime_trigger_set_partition_key(t, opts->partition_key);
    if (r == 0)
      t->unique_for_ms = opts->unique_for_ms;
    if (r == 0 && opts->has_retry) {
      /* Its own policy; 0 attempts would read as "the job's". */
      t->retry = opts->retry;
      if (t->retry.max_attempts < 1)
        t->retry.max_attempts = 1;
    }
  }
  if (r < 0) {
    chime_trigger_free(t);
    if (errbuf && errbuf_len && errbuf[0])
      return r;
    return chime__record_err(errbuf, errbuf_len, r, "run of %s.%s: %s", group,
                             name, chime_strerror(r));
  }
  *ret = t;
  return 0;
}
