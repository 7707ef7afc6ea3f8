/*
 * limits.c: the public calls on the limits of job types
 * (chime_scheduler_set_limit, _get_limit, _clear_limit, and the
 * per-partition half, _set_partition_limit and _get_partition_limit;
 * docs/queue.md, "Limits").  The store keeps and applies them (store.h's
 * limit_* ops); the loop asks it how long a fire passed over for a limit waits
 * (loop.c's idle delay).
 */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

/* api_enter plus the check of job_type. */
static int enter_type(chime_scheduler *s, const char *fn,
                      const char *job_type) {
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  char err[256];
  r = chime__name_check(job_type, "job type", err, sizeof err);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, err);
  if (!s->store->ops->limit_set)
    return chime__fail(s, CHIME_EUNSUPPORTED, "%s: the %s store has no limits",
                       fn, s->store->ops->name);
  return 0;
}

/* api_enter, the check of job_type and its limit as stored (both
 * halves). */
static int enter_read_def(chime_scheduler *s, const char *fn,
                          const char *job_type, chime_limit_def *def) {
  int r = enter_type(s, fn, job_type);
  if (r < 0)
    return r;
  memset(def, 0, sizeof *def);
  r = s->store->ops->limit_get(s->store, job_type, def);
  if (r == CHIME_ENOTFOUND)
    return chime__fail(s, r, "%s: job type '%s' has no limit", fn, job_type);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  return 0;
}

static int finish(chime_scheduler *s, const char *fn, int r) {
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  chime__loop_wake(s);
  return 0;
}

/* Checks def and stores it as job_type's limit (its half def->sets). */
static int check_store_def(chime_scheduler *s, const char *fn,
                           const char *job_type, const chime_limit_def *def) {
  char err[256];
  int r = chime__limit_def_check(def, err, sizeof err);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, err);
  return finish(s, fn, s->store->ops->limit_set(s->store, job_type, def));
}

int chime_scheduler_set_limit(chime_scheduler *s, const char *job_type,
                              int max_running, int max_per_partition,
                              int rate_count, int64_t rate_period_ms) {
  static const char fn[] = "chime_scheduler_set_limit";
  int r = enter_type(s, fn, job_type);
  if (r < 0)
    return r;
  chime_limit_def def = {.max_running = max_running,
                         .max_per_partition = max_per_partition,
                         .rate_count = rate_count,
                         .rate_period_ms = rate_period_ms,
                         .sets = CHIME__LIMIT_SET_TYPE};
  return check_store_def(s, fn, job_type, &def);
}

int chime_scheduler_get_limit(chime_scheduler *s, const char *job_type,
                              int *ret_max_running, int *ret_max_per_partition,
                              int *ret_rate_count,
                              int64_t *ret_rate_period_ms) {
  static const char fn[] = "chime_scheduler_get_limit";
  chime_limit_def def;
  int r = enter_read_def(s, fn, job_type, &def);
  if (r < 0)
    return r;
  if (ret_max_running)
    *ret_max_running = def.max_running;
  if (ret_max_per_partition)
    *ret_max_per_partition = def.max_per_partition;
  if (ret_rate_count)
    *ret_rate_count = def.rate_count;
  if (ret_rate_period_ms)
    *ret_rate_period_ms = def.rate_period_ms;
  return 0;
}

int chime_scheduler_set_partition_limit(chime_scheduler *s,
                                        const char *job_type,
                                        const char *data_field,
                                        int max_per_partition, int rate_count,
                                        int64_t rate_period_ms) {
  static const char fn[] = "chime_scheduler_set_partition_limit";
  int r = enter_type(s, fn, job_type);
  if (r < 0)
    return r;
  chime_limit_def def = {.max_per_partition = max_per_partition,
                         .key_rate_count = rate_count,
                         .key_rate_period_ms = rate_period_ms,
                         .sets = CHIME__LIMIT_SET_PARTITION};
  char err[256];
  if (data_field &&
      (r = chime__name_check(data_field, "data field", err, sizeof err)) < 0)
    return chime__fail(s, r, "%s: %s", fn, err);
  if (data_field)
    snprintf(def.partition_field, sizeof def.partition_field, "%s", data_field);
  return check_store_def(s, fn, job_type, &def);
}

int chime_scheduler_get_partition_limit(chime_scheduler *s,
                                        const char *job_type, char *ret_field,
                                        size_t field_len,
                                        int *ret_max_per_partition,
                                        int *ret_rate_count,
                                        int64_t *ret_rate_period_ms) {
  static const char fn[] = "chime_scheduler_get_partition_limit";
  chime_limit_def def;
  int r = enter_read_def(s, fn, job_type, &def);
  if (r < 0)
    return r;
  if (ret_field && field_len > 0) {
    if (strlen(def.partition_field) >= field_len)
      return chime__fail(s, CHIME_ELIMIT, "%s: field_len %zu is too short", fn,
                         field_len);
    snprintf(ret_field, field_len, "%s", def.partition_field);
  }
  if (ret_max_per_partition)
    *ret_max_per_partition = def.max_per_partition;
  if (ret_rate_count)
    *ret_rate_count = def.key_rate_count;
  if (ret_rate_period_ms)
    *ret_rate_period_ms = def.key_rate_period_ms;
  return 0;
}

int chime_scheduler_clear_limit(chime_scheduler *s, const char *job_type) {
  static const char fn[] = "chime_scheduler_clear_limit";
  int r = enter_type(s, fn, job_type);
  if (r < 0)
    return r;
  r = s->store->ops->limit_set(s->store, job_type, NULL);
  if (r == CHIME_ENOTFOUND)
    return chime__fail(s, r, "%s: job type '%s' has no limit", fn, job_type);
  return finish(s, fn, r);
}
