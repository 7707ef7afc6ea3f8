/*
 * backfill_def.c: the one-shot trigger that runs a past fire of a trigger
 * again (chime_trigger_backfill_new), shared by the scheduler's backfill
 * (engine/backfill.c) and chimectl: in group CHIME_BACKFILL_GROUP, named
 * "bf-<hash of the key>-<scheduled ms>" so that every node and tool names
 * the same fire the same way (the key makes it exactly once), starting at
 * the original time with misfire IGNORE and priority
 * CHIME_BACKFILL_PRIORITY.  Also the retry of a failed fire
 * (chime__trigger_retry_new: retry_def.c holds the policy), and the search of a
 * trigger's fire times (chime_trigger_get_fire_time_after), without its
 * calendar.
 */
#include "model/records.h"

#include <inttypes.h>
#include <stdio.h>

/* "bf-<FNV-1a 64 of group 0x00 name, hex>-" : the prefix of a trigger's
 * backfill names (keys are at most CHIME_MAX_NAME_LEN, so a hash). */
void chime__backfill_prefix(const char *group, const char *name, char *buf,
                            size_t len) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (const char *p = group; *p; p++)
    h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
  h *= UINT64_C(1099511628211);
  for (const char *p = name; *p; p++)
    h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
  snprintf(buf, len, "bf-%016" PRIx64 "-", h);
}

int chime__trigger_one_shot_new(const chime_trigger *t, const char *group,
                                const char *name, int64_t start_ms,
                                chime_misfire misfire, int priority,
                                const char *description, chime_trigger **ret) {
  if (t == NULL || ret == NULL || t->job_group == NULL)
    return CHIME_EINVAL;
  chime_trigger *b = NULL;
  int r = chime_trigger_simple_new(group, name, 0, 0, &b, NULL, 0);
  if (r == 0)
    r = chime_trigger_set_job(b, t->job_group, t->job_name);
  if (r == 0)
    r = chime_trigger_set_start_ms(b, start_ms);
  if (r == 0)
    r = chime_trigger_set_misfire(b, misfire);
  if (r == 0)
    r = chime_trigger_set_priority(b, priority);
  if (r == 0 && t->data_len > 0)
    r = chime_trigger_set_data(b, t->data, t->data_len);
  if (r == 0)
    r = chime_trigger_set_description(b, description);
  if (r < 0) {
    chime_trigger_free(b);
    return r;
  }
  *ret = b;
  return 0;
}

/* chime_trigger_backfill_new (chime.h): released at release_ms when that
 * is later, the fire still stands for scheduled_ms (the original time a
 * retry keeps too: context and history report it). */
int chime_trigger_backfill_new(const chime_trigger *t, int64_t scheduled_ms,
                               int64_t release_ms, chime_trigger **ret) {
  if (t == NULL || ret == NULL || t->job_group == NULL)
    return CHIME_EINVAL;
  char prefix[48], name[80];
  chime__backfill_prefix(t->group, t->name, prefix, sizeof prefix);
  snprintf(name, sizeof name, "%s%" PRId64, prefix, scheduled_ms);
  char desc[CHIME_MAX_NAME_LEN * 2 + 32];
  snprintf(desc, sizeof desc, "backfill of %s.%s", t->group, t->name);
  chime_trigger *b = NULL;
  int r = chime__trigger_one_shot_new(t, CHIME_BACKFILL_GROUP, name,
                                      scheduled_ms, CHIME_MISFIRE_IGNORE,
                                      CHIME_BACKFILL_PRIORITY, desc, &b);
  if (r == 0 && release_ms > scheduled_ms) {
    r = chime_trigger_set_start_ms(b, release_ms);
    b->retry_scheduled_ms = scheduled_ms;
  }
  if (r < 0) {
    chime_trigger_free(b);
    return r;
  }
  *ret = b;
  return 0;
}

/* chime_trigger_get_fire_time_after (chime.h): the schedule alone. */
int chime_trigger_get_fire_time_after(const chime_trigger *t, int64_t after_ms,
                                      int64_t *ret_ms) {
  if (t == NULL || ret_ms == NULL)
    return CHIME_EINVAL;
  chime_schedule s = t->schedule;
  s.calendar = NULL;
  /* A cron or recurrence schedule's times do not depend on its start, so
   * a backfill may ask for times before it (the trigger was added after
   * the outage); the other kinds count from their start. */
  if (!t->start_set || s.kind == CHIME_TRIGGER_CRON ||
      s.kind == CHIME_TRIGGER_RECURRENCE)
    s.start_ms = CHIME__TRIGGER_MIN_MS;
  return chime__trigger_fire_after(&s, NULL, after_ms, ret_ms);
}

/* A retry is the backfill's sibling, one fire of t again at another time:
 * so it is built here, by the same chime__trigger_one_shot_new. */
int chime__trigger_retry_new(const chime_trigger *t, int64_t fire_id,
                             int attempt, int64_t scheduled_ms, int64_t at_ms,
                             chime_trigger **ret) {
  if (t == NULL || ret == NULL || fire_id <= 0 || attempt < 1)
    return CHIME_EINVAL;
  /* Fire ids are unique in the cluster: one retry per failed fire.  A
   * keyed run's retry is the run's own trigger again, so that its unique
   * key stays taken while the retry waits (the store replaces the
   * COMPLETE row of the failed fire with it). */
  bool keyed = chime__trigger_keyed(t);
  char name[CHIME_RUN_NAME_LEN + 48], desc[CHIME_MAX_NAME_LEN * 2 + 48];
  if (keyed)
    snprintf(name, sizeof name, "%s", t->name);
  else
    snprintf(name, sizeof name, "retry-%" PRId64, fire_id);
  snprintf(desc, sizeof desc, "attempt %d of %s.%s", attempt + 1, t->group,
           t->name);
  chime_trigger *rt = NULL;
  int r = chime__trigger_one_shot_new(t, keyed ? t->group : CHIME__RETRY_GROUP,
                                      name, at_ms, CHIME_MISFIRE_FIRE_NOW,
                                      chime_trigger_get_priority(t), desc, &rt);
  if (r < 0)
    return r;
  rt->unique_for_ms = t->unique_for_ms;
  rt->retry = t->retry; /* a run's own policy goes on with it */
  rt->timeout_ms = t->timeout_ms;
  rt->starting_deadline_ms = t->starting_deadline_ms;
  rt->retry_attempt = attempt + 1;
  rt->retry_scheduled_ms = scheduled_ms;
  /* A shard's retry is the same shard again (retries apply per shard). */
  rt->shard_parent = t->shard_parent;
  rt->shard_index = t->shard_index;
  rt->shard_total = t->shard_total;
  if (t->shard_param && (r = chime__set_text(&rt->shard_param, t->shard_param,
                                             CHIME_MAX_DESCRIPTION_LEN)) < 0) {
    chime_trigger_free(rt);
    return r;
  }
  *ret = rt;
  return 0;
}
