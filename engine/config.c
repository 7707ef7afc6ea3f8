/*
 * config.c: chime_config, the typed settings a scheduler is created with,
 * their defaults and their ranges (documented in chime.h).
 *
 * Threads: a chime_config is plain data used by one thread at a time; a
 * scheduler's copy (struct chime_config in chime_scheduler) never changes
 * after chime_scheduler_new, so any thread reads it without a lock.
 */
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static char *dup_text(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d)
    memcpy(d, s, n + 1);
  return d;
}

int chime_config_new(chime_config **ret_config) {
  if (!ret_config)
    return CHIME_EINVAL;
  chime_config *c = calloc(1, sizeof *c);
  if (!c)
    return CHIME_ENOMEM;
  c->store_url = dup_text("memory:");
  c->scheduler_name = dup_text("chime");
  if (!c->store_url || !c->scheduler_name) {
    chime_config_free(c);
    return CHIME_ENOMEM;
  }
  c->workers = 32;
  c->local_queue = CHIME__LOCAL_QUEUE;
  c->idle_wait_ms = 30000;
  c->batch_size = 0;
  c->batch_window_ms = 0;
  c->claim_ahead_ms = CHIME__CLAIM_AHEAD_MS;
  c->misfire_threshold_ms = 60000;
  c->checkin_interval_ms = 1000;
  c->cancel_grace_ms = CHIME__CANCEL_GRACE_MS;
  c->log_level = CHIME_LOG_WARN;
  c->log_record_level = CHIME_LOG_WARN;
  *ret_config = c;
  return 0;
}

void chime__config_clear(struct chime_config *cfg) {
  if (!cfg)
    return;
  free(cfg->store_url);
  free(cfg->scheduler_name);
  free(cfg->instance_id);
  free(cfg->tags);
  cfg->store_url = cfg->scheduler_name = cfg->instance_id = cfg->tags = NULL;
}

void chime_config_free(chime_config *config) {
  if (!config)
    return;
  chime__config_clear(config);
  free(config);
}

int chime__config_copy(struct chime_config *dst, const chime_config *src) {
  assert(dst && src && src->store_url && src->scheduler_name);
  assert(src->workers >= 1 && src->workers <= CHIME__MAX_WORKERS);
  assert(src->batch_size <= CHIME__MAX_BATCH);
  *dst = *src;
  dst->store_url = dup_text(src->store_url);
  dst->scheduler_name = dup_text(src->scheduler_name);
  dst->instance_id = src->instance_id ? dup_text(src->instance_id) : NULL;
  dst->tags = src->tags ? dup_text(src->tags) : NULL;
  if (!dst->store_url || !dst->scheduler_name ||
      (src->instance_id && !dst->instance_id) || (src->tags && !dst->tags)) {
    chime__config_clear(dst);
    return CHIME_ENOMEM;
  }
  return 0;
}

int chime_config_add_tag(chime_config *config, const char *tag) {
  return config ? chime__tags_add(&config->tags, tag) : CHIME_EINVAL;
}

unsigned chime__config_capacity(const struct chime_config *cfg) {
  assert(cfg->local_queue <= CHIME__MAX_LOCAL_QUEUE);
  return cfg->workers + cfg->local_queue;
}

unsigned chime__config_batch_size(const struct chime_config *cfg) {
  unsigned n = cfg->batch_size;
  if (n == 0) {
    n = chime__config_capacity(cfg);
    n = n < CHIME__MAX_BATCH ? n : CHIME__MAX_BATCH;
  }
  assert(n >= 1 && n <= CHIME__MAX_BATCH);
  return n;
}

/* Replaces *slot with a copy of text. */
static int replace_text(char **slot, const char *text) {
  char *d = dup_text(text);
  if (!d)
    return CHIME_ENOMEM;
  free(*slot);
  *slot = d;
  return 0;
}

int chime_config_set_store_url(chime_config *config, const char *url) {
  if (!config || !url || !*url)
    return CHIME_EINVAL;
  if (strlen(url) > CHIME__MAX_URL_LEN)
    return CHIME_ELIMIT;
  return replace_text(&config->store_url, url);
}

int chime_config_set_scheduler_name(chime_config *config, const char *name) {
  if (!config)
    return CHIME_EINVAL;
  int r = chime__name_check(name, "scheduler name", NULL, 0);
  if (r < 0)
    return r;
  return replace_text(&config->scheduler_name, name);
}

int chime_config_set_instance_id(chime_config *config, const char *id) {
  if (!config)
    return CHIME_EINVAL;
  if (!id) {
    free(config->instance_id);
    config->instance_id = NULL;
    return 0;
  }
  int r = chime__name_check(id, "instance id", NULL, 0);
  if (r < 0)
    return r;
  return replace_text(&config->instance_id, id);
}

int chime_config_set_workers(chime_config *config, unsigned workers) {
  if (!config || workers < 1 || workers > CHIME__MAX_WORKERS)
    return CHIME_EINVAL;
  config->workers = workers;
  return 0;
}

int chime_config_set_local_queue(chime_config *config, unsigned fires) {
  if (!config || fires > CHIME__MAX_LOCAL_QUEUE)
    return CHIME_EINVAL;
  config->local_queue = fires;
  return 0;
}

int chime_config_set_idle_wait_ms(chime_config *config, int64_t ms) {
  if (!config || ms < 1 || ms > CHIME__MAX_WAIT_MS)
    return CHIME_EINVAL;
  config->idle_wait_ms = ms;
  return 0;
}

int chime_config_set_batch_size(chime_config *config, unsigned size) {
  if (!config || size > CHIME__MAX_BATCH)
    return CHIME_EINVAL;
  config->batch_size = size;
  return 0;
}

int chime_config_set_batch_window_ms(chime_config *config, int64_t ms) {
  if (!config || ms < 0 || ms > CHIME__MAX_WAIT_MS)
    return CHIME_EINVAL;
  config->batch_window_ms = ms;
  return 0;
}

int chime_config_set_claim_ahead_ms(chime_config *config, int64_t ms) {
  if (!config || ms < 0 || ms > CHIME__MAX_CLAIM_AHEAD_MS)
    return CHIME_EINVAL;
  config->claim_ahead_ms = ms;
  return 0;
}

int chime_config_set_misfire_threshold_ms(chime_config *config, int64_t ms) {
  if (!config || ms < 1 || ms > CHIME__MAX_WAIT_MS)
    return CHIME_EINVAL;
  config->misfire_threshold_ms = ms;
  return 0;
}

int chime_config_set_checkin_interval_ms(chime_config *config, int64_t ms) {
  if (!config || ms < 1 || ms > CHIME__MAX_WAIT_MS)
    return CHIME_EINVAL;
  config->checkin_interval_ms = ms;
  return 0;
}

int chime_config_set_log_record(chime_config *config, chime_log_record_fn fn,
                                void *user_data, chime_log_level level) {
  if (!config || level < CHIME_LOG_ERROR || level > CHIME_LOG_DEBUG)
    return CHIME_EINVAL;
  config->log_record = fn;
  config->log_record_user_data = user_data;
  config->log_record_level = level;
  return 0;
}

int chime_config_set_cancel_grace_ms(chime_config *config, int64_t ms) {
  if (!config || ms < 0 || ms > CHIME__MAX_WAIT_MS)
    return CHIME_EINVAL;
  config->cancel_grace_ms = ms;
  return 0;
}

int chime_config_set_log(chime_config *config, chime_log_fn fn, void *user_data,
                         chime_log_level level) {
  if (!config || level < CHIME_LOG_ERROR || level > CHIME_LOG_DEBUG)
    return CHIME_EINVAL;
  config->log = fn;
  config->log_user_data = user_data;
  config->log_level = level;
  return 0;
}
