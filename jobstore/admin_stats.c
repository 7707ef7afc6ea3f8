/*
 * admin_stats.c: what both stores share of the cluster's figures
 * (chime-admin.h's CHIME_ADMIN_LATENESS and CHIME_ADMIN_LIMITS): the
 * lateness buckets and which runs have a lateness, and the limits read
 * through the stores' own limit_stats operation; and a group pause's row
 * (CHIME_ADMIN_PAUSED_GROUPS) by the stores' own matching rule.
 */
#include "jobstore/admin.h"
#include "model/records.h"

#include <string.h>

const int64_t chime__admin_lateness_ms[CHIME__ADMIN_NBUCKETS] = {
    CHIME__ADMIN_LATENESS_BUCKETS};

bool chime__admin_scheduled_run(const char *trigger_group, bool recovering) {
  /* The groups of the runs no schedule made: a fire-now, a backfill, a
   * retry, a recovered run (the MySQL store's history_lateness.sql says
   * the same). */
  static const char *const unscheduled[] = {
      CHIME__MANUAL_GROUP, CHIME_BACKFILL_GROUP, CHIME__RETRY_GROUP,
      "CHIME_RECOVERING"};
  if (recovering)
    return false;
  for (size_t i = 0; i < sizeof unscheduled / sizeof unscheduled[0]; i++)
    if (strcmp(trigger_group, unscheduled[i]) == 0)
      return false;
  return true;
}

void chime__admin_put_lateness(chime_admin_table *t, const int64_t *runs,
                               const int64_t *late) {
  for (size_t b = 0; b <= CHIME__ADMIN_NBUCKETS; b++) {
    if (chime__admin_row_add(t) < 0)
      return;
    if (b < CHIME__ADMIN_NBUCKETS)
      chime__admin_set_int(t, CHIME__AC_LATE_LE_MS,
                           chime__admin_lateness_ms[b]);
    chime__admin_set_int(t, CHIME__AC_LATE_RUNS, runs[b]);
    chime__admin_set_int(t, CHIME__AC_LATE_SUM_MS, late[b]);
  }
}

void chime__admin_put_paused_group(chime_admin_table *t,
                                   const chime_admin_query *q,
                                   chime_match match, const char *pattern) {
  static const char *const words[] = {[CHIME_MATCH_EQUALS] = "equals",
                                      [CHIME_MATCH_STARTS_WITH] = "starts_with",
                                      [CHIME_MATCH_ENDS_WITH] = "ends_with",
                                      [CHIME_MATCH_CONTAINS] = "contains",
                                      [CHIME_MATCH_ANY] = "any"};
  if ((unsigned)match >= sizeof words / sizeof words[0] ||
      (q->trigger_group &&
       !chime__group_matches(match, pattern, q->trigger_group)) ||
      chime__admin_row_add(t) < 0)
    return;
  chime__admin_set_text(t, CHIME__AC_PAUSED_MATCH, words[match]);
  chime__admin_set_text(t, CHIME__AC_PAUSED_PATTERN,
                        match == CHIME_MATCH_ANY ? NULL : pattern);
}

int chime__admin_list_limits(chime_store *store, chime_admin_table *t) {
  chime_limit_stat *st = NULL;
  size_t n = 0;
  int r = store->ops->limit_stats(store, store->ops->now(store), &st, &n);
  if (r < 0)
    return r;
  for (size_t i = 0; i < n && chime__admin_row_add(t) == 0; i++) {
    const chime_limit_def *d = &st[i].def;
    chime__admin_set_text(t, CHIME__AC_LIMIT_JOB_TYPE, st[i].job_type);
    chime__admin_set_text(t, CHIME__AC_LIMIT_PARTITION, st[i].partition);
    chime__admin_set_int(t, CHIME__AC_LIMIT_WAITING, st[i].waiting);
    chime__admin_set_int(t, CHIME__AC_LIMIT_RUNNING, st[i].running);
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
  }
  chime__limit_stats_free(st, n);
  return 0;
}
