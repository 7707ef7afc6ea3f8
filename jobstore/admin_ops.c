/*
 * admin_ops.c: the operators' actions of chime-admin.h on runs handed in,
 * limits, zones and leases (chime_admin_fire_now, _enqueue, _set_limit,
 * _clear_limit, _recompute_zones, _release_lease) and the list of limits
 * (CHIME_ADMIN_LIMITS).  Each is the store's own operation (store.h), the
 * step the scheduler's call of the same name takes, so the store's rules
 * apply and both stores answer alike.
 */
#include "jobstore/admin.h"
#include "model/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records a failed action's message in admin (what it acted on, unless
 * the store wrote one) and returns r. */
static int failed(chime_admin *admin, int r, const char *what, const char *a,
                  const char *b) {
  size_t len = 0;
  char *err = chime__admin_err(admin, &len);
  if (r < 0 && !err[0])
    chime__record_err(err, len, r, "%s %s%s%s: %s", what, a ? a : "",
                      b ? "." : "", b ? b : "",
                      r == CHIME_ENOTFOUND ? "not found" : chime_strerror(r));
  return r;
}

/* Clears admin's message (*ret_err, *ret_len bytes, for the store's);
 * refuses NULL admin, a half or missing job key, a job not stored.
 * Returns: 0; CHIME_EINVAL; CHIME_ENOTFOUND; the store's errors (message
 * recorded). */
static int begin_key(chime_admin *admin, const char *group, const char *name,
                     char **ret_err, size_t *ret_len) {
  if (!admin)
    return CHIME_EINVAL;
  size_t len = 0;
  char *err = chime__admin_err(admin, &len);
  err[0] = '\0';
  *ret_err = err;
  *ret_len = len;
  if (!group || !name || chime__key_check(group, name) < 0)
    return chime__record_err(err, len, CHIME_EINVAL, "an invalid job key");
  chime_store *st = chime__admin_store(admin);
  chime_job *job = NULL;
  int r = st->ops->job_get(st, group, name, &job);
  chime_job_free(job);
  return failed(admin, r, "job", group, name);
}

int chime_admin_fire_now(chime_admin *admin, const char *group,
                         const char *name, const void *data, size_t len,
                         const char *tag, char *ret_trigger, size_t trigger_len,
                         int64_t *ret_due_ms) {
  char *err = NULL;
  size_t errlen = 0;
  int r = begin_key(admin, group, name, &err, &errlen);
  if (r < 0)
    return r;
  if (!data && len > 0)
    return chime__record_err(err, errlen, CHIME_EINVAL,
                             "NULL data of length %zu", len);
  char tname[CHIME_MAX_NAME_LEN + 1];
  r = chime__store_fire_now(chime__admin_store(admin), group, name, data, len,
                            tag ? tag : "", tname, sizeof tname, ret_due_ms,
                            err, errlen);
  if (r == 0 && ret_trigger && trigger_len)
    snprintf(ret_trigger, trigger_len, "%s.%s", CHIME__MANUAL_GROUP, tname);
  return failed(admin, r, "job", group, name);
}

int chime_admin_enqueue(chime_admin *admin, const char *group, const char *name,
                        const chime_enqueue *opts, char *ret_trigger,
                        size_t trigger_len, bool *ret_existed,
                        int64_t *ret_due_ms) {
  char *err = NULL;
  size_t errlen = 0;
  int r = begin_key(admin, group, name, &err, &errlen);
  if (r < 0)
    return r;
  chime_store *st = chime__admin_store(admin);
  chime_trigger *t = NULL;
  bool existed = false;
  r = chime__enqueue_trigger(group, name, opts, 0, &t, err, errlen);
  if (r == 0)
    r = st->ops->trigger_add_many(st, &t, 1, &existed, err, errlen);
  if (r == 0 && ret_trigger && trigger_len)
    snprintf(ret_trigger, trigger_len, "%s.%s", t->group, t->name);
  if (r == 0 && ret_existed)
    *ret_existed = existed;
  if (r == 0 && ret_due_ms) {
    int64_t at = opts ? chime_enqueue_get_run_at_ms(opts) : 0;
    *ret_due_ms = at > 0 ? at : st->ops->now(st);
  }
  chime_trigger_free(t);
  return failed(admin, r, "job", group, name);
}

int chime_admin_set_limit(chime_admin *admin, const char *job_type,
                          int max_running, int max_per_partition,
                          int rate_count, int64_t rate_period_ms,
                          int key_rate_count, int64_t key_rate_period_ms,
                          const char *partition_field) {
  if (!admin || !job_type)
    return CHIME_EINVAL;
  size_t len = 0;
  char *err = chime__admin_err(admin, &len);
  err[0] = '\0';
  chime_limit_def d = {.max_running = max_running,
                       .max_per_partition = max_per_partition,
                       .rate_count = rate_count,
                       .rate_period_ms = rate_period_ms,
                       .key_rate_count = key_rate_count,
                       .key_rate_period_ms = key_rate_period_ms};
  const char *field = partition_field ? partition_field : "";
  if (strlen(field) >= sizeof d.partition_field)
    return chime__record_err(err, len, CHIME_EINVAL,
                             "a data field longer than %d bytes",
                             CHIME_MAX_NAME_LEN);
  memcpy(d.partition_field, field, strlen(field) + 1);
  int r = chime__limit_def_check(&d, err, len);
  if (r == 0)
    r = chime__name_check(job_type, "job type", err, len);
  if (r == 0 && d.partition_field[0])
    r = chime__name_check(d.partition_field, "data field", err, len);
  chime_store *st = chime__admin_store(admin);
  if (r == 0)
    r = st->ops->limit_set(st, job_type, &d);
  return failed(admin, r, "job type", job_type, NULL);
}

int chime_admin_clear_limit(chime_admin *admin, const char *job_type) {
  if (!admin || !job_type)
    return CHIME_EINVAL;
  size_t len = 0;
  chime__admin_err(admin, &len)[0] = '\0';
  chime_store *st = chime__admin_store(admin);
  return failed(admin, st->ops->limit_set(st, job_type, NULL), "job type",
                job_type, NULL);
}

int chime_admin_recompute_zones(chime_admin *admin, const char *const *zones,
                                size_t count, size_t *ret_recomputed) {
  if (ret_recomputed)
    *ret_recomputed = 0;
  if (!admin || (!zones && count))
    return CHIME_EINVAL;
  size_t len = 0;
  char *err = chime__admin_err(admin, &len);
  err[0] = '\0';
  chime_store *st = chime__admin_store(admin);
  if (!st->ops->recompute_zones)
    return chime__record_err(err, len, CHIME_EUNSUPPORTED,
                             "the %s store keeps no trigger to recompute",
                             st->ops->name);
  chime_zones_cursor *cursor = NULL; /* no limit: done in one call */
  int r =
      st->ops->recompute_zones(st, zones, count, 0, &cursor, ret_recomputed);
  chime__zones_cursor_free(cursor);
  return failed(admin, r < 0 ? r : 0, "zones", NULL, NULL);
}

int chime_admin_release_lease(chime_admin *admin, const char *name) {
  if (!admin || !name)
    return CHIME_EINVAL;
  size_t len = 0;
  chime__admin_err(admin, &len)[0] = '\0';
  chime_store *st = chime__admin_store(admin);
  return failed(admin, st->ops->lease_end(st, name), "lease", name, NULL);
}

int chime__admin_list_limits(chime_store *store, const chime_admin_query *q,
                             chime_admin_table *t) {
  chime_limit_stat *v = NULL;
  size_t n = 0;
  int r = store->ops->limit_stats(store, store->ops->now(store), &v, &n);
  if (r < 0)
    return r;
  for (size_t i = 0; i < n && chime__admin_row_add(t) == 0; i++) {
    const chime_limit_def *d = &v[i].def;
    chime__admin_set_text(t, CHIME__AC_LIMIT_JOB_TYPE, v[i].job_type);
    chime__admin_set_text(t, CHIME__AC_LIMIT_PARTITION, v[i].partition);
    chime__admin_set_int(t, CHIME__AC_LIMIT_MAX_RUNNING, d->max_running);
    chime__admin_set_int(t, CHIME__AC_LIMIT_MAX_PER_PARTITION,
                         d->max_per_partition);
    chime__admin_set_int(t, CHIME__AC_LIMIT_RATE_COUNT, d->rate_count);
    chime__admin_set_int(t, CHIME__AC_LIMIT_RATE_PERIOD_MS, d->rate_period_ms);
    chime__admin_set_int(t, CHIME__AC_LIMIT_KEY_RATE_COUNT, d->key_rate_count);
    chime__admin_set_int(t, CHIME__AC_LIMIT_KEY_RATE_PERIOD_MS,
                         d->key_rate_period_ms);
    chime__admin_set_text(t, CHIME__AC_LIMIT_PARTITION_FIELD,
                          d->partition_field[0] ? d->partition_field : NULL);
    chime__admin_set_int(t, CHIME__AC_LIMIT_WAITING, v[i].waiting);
    chime__admin_set_int(t, CHIME__AC_LIMIT_RUNNING, v[i].running);
  }
  chime__limit_stats_free(v, n);
  chime__admin_table_page(t, q->offset, q->limit);
  return 0;
}
