/*
 * store.c: what every store shares: freeing a fire, the job type set, the
 * argument checks every store makes, checking an outcome, the one-off
 * "fire now" trigger, and acquire_due for stores without a faster one.
 */
#include "jobstore/store.h"

#include "core/random.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chime__fire_free(chime_fire *fire) {
  if (!fire)
    return;
  chime_job_free(fire->job);
  chime_trigger_free(fire->trigger);
  free(fire);
}

static int compare_name(const void *key, const void *elem) {
  return strcmp(key, *(const char *const *)elem);
}

bool chime__type_set_has(const chime_type_set *set, const char *type) {
  if (!type)
    return false;
  if (!set)
    return true;
  if (set->count == 0)
    return false;
  return bsearch(type, set->names, set->count, sizeof *set->names,
                 compare_name) != NULL;
}

int chime__store_acquire_due(chime_store *store, int64_t now_ms,
                             int64_t no_later_than_ms, size_t max,
                             const chime_type_set *types,
                             chime_fire ***ret_fires, size_t *ret_count) {
  chime_fire **fires = NULL;
  size_t n = 0;
  int r = store->ops->acquire(store, now_ms, no_later_than_ms, max, types,
                              &fires, &n);
  if (r < 0)
    return r;
  if (n > 0 && (r = store->ops->fire(store, fires, n, now_ms)) < 0) {
    /* Nothing fired: the claims go back. */
    store->ops->release(store, fires, n);
    for (size_t i = 0; i < n; i++)
      chime__fire_free(fires[i]);
    free(fires);
    return r;
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    if (fires[i]->result == 0)
      fires[kept++] = fires[i];
    else
      chime__fire_free(fires[i]);
  }
  *ret_fires = fires;
  *ret_count = kept;
  return 0;
}

bool chime__outcome_valid(const chime_run_result *outcome) {
  return !outcome || !outcome->set_data ||
         (outcome->data_len <= CHIME_MAX_DATA_LEN &&
          (outcome->data_len == 0 || outcome->data));
}

bool chime__interrupt_args_valid(const char *group, const char *name,
                                 int64_t fire_id) {
  if (fire_id > 0)
    return !group && !name;
  return fire_id == 0 && chime__key_check(group, name) == 0;
}

int chime__store_check_trigger_add(const chime_job *job, const chime_trigger *t,
                                   char *errbuf, size_t errbuf_len) {
  int r;
  if (!t)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL, "no trigger");
  if ((r = chime__name_check(t->group, "trigger group", errbuf, errbuf_len)) <
          0 ||
      (r = chime__name_check(t->name, "trigger name", errbuf, errbuf_len)) < 0)
    return r;
  if (!t->job_group || !t->job_name)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "trigger %s.%s names no job", t->group, t->name);
  if ((r = chime__key_check(t->job_group, t->job_name)) < 0)
    return chime__record_err(errbuf, errbuf_len, r,
                             "trigger %s.%s names an invalid job key", t->group,
                             t->name);
  if (t->calendar_name &&
      (r = chime__name_check(t->calendar_name, "calendar name", errbuf,
                             errbuf_len)) < 0)
    return r;
  if (job && (r = chime__job_check(job)) < 0)
    return chime__record_err(errbuf, errbuf_len, r, "invalid job %s.%s",
                             job->group ? job->group : "(null)",
                             job->name ? job->name : "(null)");
  if (job && (strcmp(job->group, t->job_group) != 0 ||
              strcmp(job->name, t->job_name) != 0))
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "trigger %s.%s fires job %s.%s, not %s.%s",
                             t->group, t->name, t->job_group, t->job_name,
                             job->group, job->name);
  return 0;
}

int chime__store_fire_now(chime_store *store, const char *group,
                          const char *name, const void *data, size_t len,
                          const char *tag, char *ret_name, size_t name_len,
                          int64_t *ret_due_ms, char *errbuf,
                          size_t errbuf_len) {
  if (!store || (!data && len > 0))
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "no store, or NULL data of length %zu", len);
  uint64_t bits;
  int r = chime__random_u64(&bits);
  if (r < 0)
    return chime__record_err(errbuf, errbuf_len, r,
                             "no randomness for the trigger name");
  char tname[CHIME_MAX_NAME_LEN + 1];
  snprintf(tname, sizeof tname, "MT_%016" PRIx64 "_%s", bits, tag ? tag : "");
  chime_trigger *t = NULL;
  r = chime_trigger_simple_new(CHIME__MANUAL_GROUP, tname, 0, 0, &t, errbuf,
                               errbuf_len);
  if (r == 0)
    r = chime_trigger_set_job(t, group, name);
  if (r == 0 && len > 0)
    r = chime_trigger_set_data(t, data, len);
  int64_t due = CHIME_NO_FIRE_MS;
  if (r == 0)
    r = store->ops->trigger_add(store, NULL, t, false, &due, errbuf,
                                errbuf_len);
  chime_trigger_free(t);
  if (r < 0)
    return r;
  if (ret_name && name_len > 0)
    snprintf(ret_name, name_len, "%s", tname);
  if (ret_due_ms)
    *ret_due_ms = due;
  return 0;
}

int chime__store_trigger_add_many(chime_store *store, chime_trigger *const *ts,
                                  size_t count, bool *ret_existed, char *errbuf,
                                  size_t errbuf_len) {
  for (size_t i = 0; i < count; i++) {
    int r = store->ops->trigger_add(store, NULL, ts[i], false, NULL, errbuf,
                                    errbuf_len);
    ret_existed[i] = r == CHIME_EEXISTS;
    if (r == CHIME_EEXISTS && errbuf && errbuf_len)
      errbuf[0] = '\0';
    else if (r < 0)
      return r;
  }
  return 0;
}

const void *chime__fire_own_data(const chime_fire *fire, size_t *ret_len) {
  const chime_trigger *t = fire ? fire->trigger : NULL;
  /* A row written around the library may hold more than the limit: such
   * data is not copied into history (whose statements are sized by it). */
  bool own =
      t && t->data && t->data_len > 0 && t->data_len <= CHIME_MAX_DATA_LEN;
  *ret_len = own ? t->data_len : 0;
  return own ? t->data : NULL;
}

void chime__history_entry_clear(chime_history_entry *e) {
  free(e->job_group);
  free(e->job_name);
  free(e->trigger_group);
  free(e->trigger_name);
  free(e->node);
  free(e->outcome);
  free(e->message);
  free(e->data);
  memset(e, 0, sizeof *e);
}

void chime__history_entries_free(chime_history_entry *entries, size_t count) {
  for (size_t i = 0; entries && i < count; i++)
    chime__history_entry_clear(&entries[i]);
  free(entries);
}

void chime__zones_cursor_free(chime_zones_cursor *c) {
  if (!c)
    return;
  for (size_t i = 0; i < c->ncals; i++)
    free(c->cals[i]);
  free(c->cals);
  free(c->after_group);
  free(c->after_name);
  free(c);
}

void chime__limit_stats_free(chime_limit_stat *stats, size_t count) {
  for (size_t i = 0; stats && i < count; i++) {
    free(stats[i].job_type);
    free(stats[i].partition);
  }
  free(stats);
}

void chime__limit_def_merge(chime_limit_def *into,
                            const chime_limit_def *from) {
  unsigned sets = from->sets
                      ? from->sets
                      : CHIME__LIMIT_SET_TYPE | CHIME__LIMIT_SET_PARTITION;
  if (sets & CHIME__LIMIT_SET_TYPE) {
    into->max_running = from->max_running;
    into->rate_count = from->rate_count;
    into->rate_period_ms = from->rate_period_ms;
  }
  if (sets & CHIME__LIMIT_SET_PARTITION) {
    into->key_rate_count = from->key_rate_count;
    into->key_rate_period_ms = from->key_rate_period_ms;
    memcpy(into->partition_field, from->partition_field,
           sizeof into->partition_field);
  }
  into->max_per_partition = from->max_per_partition;
  into->sets = 0;
}

int chime__limit_def_check(const chime_limit_def *d, char *errbuf,
                           size_t errbuf_len) {
  const char *bad = NULL;
  if (d->max_running < 0 || d->max_per_partition < 0 || d->rate_count < 0 ||
      d->rate_period_ms < 0 || d->key_rate_count < 0 ||
      d->key_rate_period_ms < 0)
    bad = "a negative figure";
  else if ((d->rate_count > 0) != (d->rate_period_ms > 0) ||
           (d->key_rate_count > 0) != (d->key_rate_period_ms > 0))
    bad = "a rate needs both a count and a period";
  else if (d->sets != CHIME__LIMIT_SET_PARTITION && d->max_running == 0 &&
           d->max_per_partition == 0 && d->rate_count == 0 &&
           d->key_rate_count == 0 && !d->partition_field[0])
    bad = "no figure set (clearing a limit removes it)";
  if (!bad)
    return 0;
  if (errbuf && errbuf_len > 0)
    snprintf(errbuf, errbuf_len, "%s", bad);
  return CHIME_EINVAL;
}
