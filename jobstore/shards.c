/*
 * shards.c: what both stores share about sharded fires (docs/batch.md):
 * the shard triggers a split creates and the message a sharded fire's
 * history row carries.
 */
#include "jobstore/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chime__shards_message(char *buf, size_t len, int total, int failed,
                           const char *indexes) {
  if (failed == 0)
    snprintf(buf, len, "%d shard(s) completed", total);
  else if (indexes && *indexes)
    snprintf(buf, len, "%d of %d shard(s) failed: %s", failed, total, indexes);
  else
    snprintf(buf, len, "%d of %d shard(s) failed", failed, total);
}

int chime__shards_then_trigger(const chime_job *job, int64_t fire_id,
                               const char *message, chime_trigger **ret) {
  *ret = NULL;
  if (!job || !job->then_group || !job->then_name)
    return 0;
  chime_enqueue *o = NULL;
  char key[48];
  snprintf(key, sizeof key, "shards-%lld", (long long)fire_id);
  int r = chime_enqueue_new(&o);
  if (r == 0)
    r = chime_enqueue_set_unique_key(o, key);
  if (r == 0 && message && *message)
    r = chime_enqueue_set_data(o, message, strlen(message));
  if (r == 0)
    r = chime__enqueue_trigger(job->then_group, job->then_name, o, 0, ret, NULL,
                               0);
  chime_enqueue_free(o);
  return r;
}

void chime__shard_triggers_free(chime_trigger **ts, int n) {
  for (int i = 0; ts && i < n; i++)
    chime_trigger_free(ts[i]);
  free(ts);
}

int chime__shard_triggers(const chime_fire *fire, int total, int64_t now_ms,
                          chime_trigger ***ret) {
  if (!fire || !fire->job || !fire->trigger || total < 1 ||
      total > CHIME_MAX_SHARDS)
    return CHIME_EINVAL;
  chime_trigger **ts = calloc((size_t)total, sizeof *ts);
  if (!ts)
    return CHIME_ENOMEM;
  int r = 0;
  for (int i = 0; r == 0 && i < total; i++) {
    char param[CHIME_MAX_DESCRIPTION_LEN + 1];
    bool has =
        chime__shard_param(fire->job->shard_params, i, param, sizeof param);
    r = chime__trigger_shard_new(fire->trigger, fire->fire_id,
                                 chime__fire_original_ms(fire), i, total,
                                 has ? param : NULL, now_ms, &ts[i]);
    if (r == 0)
      r = chime__trigger_prepare(ts[i], NULL, now_ms, NULL, 0);
  }
  if (r < 0) {
    chime__shard_triggers_free(ts, total);
    return r;
  }
  *ret = ts;
  return 0;
}
