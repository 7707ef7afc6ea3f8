/*
 * backfill.c: running the fires of a past range again
 * (chime_scheduler_backfill).  Each fire time of the trigger in [from, to]
 * becomes a one-shot trigger in group CHIME_BACKFILL_GROUP whose name is
 * derived from the trigger's key and the fire time, starting at that
 * original time with misfire IGNORE: the store keeps it durably and the
 * ordinary firing protocol runs it on exactly one node, with its original
 * scheduled time.  Adding with CHIME_SCHEDULE_IF_ABSENT makes concurrent
 * backfills of the same range (other threads or nodes) create each fire
 * once.  The fires take priority CHIME_BACKFILL_PRIORITY, below the
 * default, so live fires due at the same time are claimed first, and at
 * most as many run at once as there are workers.  Paced (pace_ms > 0),
 * the k-th fire is released at now + k * pace_ms: the store holds the
 * release times, so the pace holds across the cluster and restarts, and
 * the fire still reports its original time.  Cancelling removes the
 * backfill triggers that have not fired yet: a paced backfill's rest.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int chime_scheduler_backfill(chime_scheduler *scheduler, const char *group,
                             const char *name, int64_t from_ms, int64_t to_ms,
                             size_t max_fires, int64_t pace_ms,
                             size_t *ret_created) {
  if (scheduler == NULL || group == NULL || name == NULL || from_ms > to_ms ||
      max_fires == 0 || pace_ms < 0 || pace_ms > CHIME_BACKFILL_MAX_PACE_MS)
    return CHIME_EINVAL;
  int64_t release = pace_ms > 0 ? chime__wall_ms() : 0; /* 0: its own time */
  chime_trigger *t = NULL;
  int r = chime_scheduler_get_trigger(scheduler, group, name, &t);
  if (r < 0)
    return r;
  size_t created = 0;
  int64_t at = from_ms - 1, next;
  while (r == 0 && chime_trigger_get_fire_time_after(t, at, &next) == 0 &&
         next <= to_ms) {
    if (created == max_fires) {
      r = CHIME_ELIMIT;
      break;
    }
    chime_trigger *b = NULL;
    r = chime_trigger_backfill_new(t, next, release, &b);
    if (r == 0)
      r = chime_scheduler_schedule(scheduler, NULL, b, CHIME_SCHEDULE_IF_ABSENT,
                                   NULL);
    chime_trigger_free(b);
    if (r == 0)
      created++;
    release += pace_ms;
    at = next;
  }
  chime_trigger_free(t);
  if (ret_created != NULL)
    *ret_created = created;
  return r;
}

int chime_scheduler_backfill_cancel(chime_scheduler *scheduler,
                                    const char *group, const char *name,
                                    size_t *ret_removed) {
  if (scheduler == NULL || group == NULL || name == NULL)
    return CHIME_EINVAL;
  char prefix[48];
  chime__backfill_prefix(group, name, prefix, sizeof prefix);
  chime_key *keys = NULL;
  size_t n = 0, removed = 0;
  int r = chime_scheduler_list_triggers(scheduler, CHIME_MATCH_EQUALS,
                                        CHIME_BACKFILL_GROUP, &keys, &n);
  for (size_t i = 0; r == 0 && i < n; i++) {
    if (strncmp(keys[i].name, prefix, strlen(prefix)) != 0)
      continue;
    int u = chime_scheduler_unschedule(scheduler, keys[i].group, keys[i].name);
    if (u == 0)
      removed++;
    else if (u != CHIME_ENOTFOUND) /* fired and finished meanwhile: fine */
      r = u;
  }
  if (keys != NULL)
    chime_key_free_array(keys, n);
  if (ret_removed != NULL)
    *ret_removed = removed;
  return r;
}
