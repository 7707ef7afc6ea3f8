/*
 * admin_stats.c: what both stores share of the cluster's figures
 * (chime-admin.h's CHIME_ADMIN_LATENESS): the lateness buckets and which
 * runs have a lateness (the limits, CHIME_ADMIN_LIMITS, are admin_ops.c's);
 * and a group pause's row
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
