/*
 * log.c: the scheduler's log lines, to the text callback
 * (chime_config_set_log) and the structured one
 * (chime_config_set_log_record): one formatting, two receivers.  A line
 * about a fire or an alert carries its fields (chime__log_about); every
 * other line is the event "LOG" of this node.
 *
 * Threads and locks: any thread; never with s->mu held (the callbacks are
 * the application's and may take their own locks).
 */
#include "engine/engine.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

struct chime_log_record {
  chime_log_level level;
  const char *message;
  const char *event;
  const chime__alert *about; /* NULL: none */
  const char *node;
  int error;
};

const char *chime__event_name(chime_event_kind kind) {
  switch (kind) {
#define CHIME_XX_EVENT(name, bit, thread)                                      \
  case CHIME_EVENT_##name:                                                     \
    return #name;
    CHIME_EVENT_MAP(CHIME_XX_EVENT)
#undef CHIME_XX_EVENT
  }
  return "LOG";
}

chime_log_level chime__log_level_max(const struct chime_config *cfg) {
  chime_log_level level = CHIME_LOG_ERROR;
  if (cfg->log && cfg->log_level > level)
    level = cfg->log_level;
  if (cfg->log_record && cfg->log_record_level > level)
    level = cfg->log_record_level;
  return level;
}

/* Whether either callback takes level. */
static bool wanted(const chime_scheduler *s, chime_log_level level) {
  return (s->cfg.log && level <= s->cfg.log_level) ||
         (s->cfg.log_record && level <= s->cfg.log_record_level);
}

static void emit(const chime_scheduler *s, const chime_log_record *rec) {
  if (s->cfg.log && rec->level <= s->cfg.log_level)
    s->cfg.log(s->cfg.log_user_data, rec->level, rec->message);
  if (s->cfg.log_record && rec->level <= s->cfg.log_record_level)
    s->cfg.log_record(s->cfg.log_record_user_data, rec);
}

static void log_v(const chime_scheduler *s, chime_log_level level,
                  const char *event, const chime__alert *about, int error,
                  const char *fmt, va_list ap) {
  assert(s);
  assert(level >= CHIME_LOG_ERROR && level <= CHIME_LOG_DEBUG);
  /* The callbacks are the application's: they may take their own locks. */
  assert(!chime__mu_held(s));
  if (!wanted(s, level))
    return;
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  chime_log_record rec = {
      .level = level,
      .message = msg,
      .event = event,
      .about = about,
      .node = about && about->node ? about->node : s->cfg.instance_id,
      .error = error,
  };
  emit(s, &rec);
}

void chime__log(const chime_scheduler *s, chime_log_level level,
                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_v(s, level, "LOG", NULL, 0, fmt, ap);
  va_end(ap);
}

void chime__log_about(const chime_scheduler *s, chime_log_level level,
                      const char *event, const chime__alert *about, int error,
                      const char *fmt, ...) {
  assert(event);
  va_list ap;
  va_start(ap, fmt);
  log_v(s, level, event, about, error, fmt, ap);
  va_end(ap);
}

void chime__log_from_store(void *user_data, chime_log_level level,
                           const char *message) {
  chime__log(user_data, level, "%s", message);
}

chime_log_level chime_log_record_get_level(const chime_log_record *record) {
  return record ? record->level : CHIME_LOG_ERROR;
}

const char *chime_log_record_get_message(const chime_log_record *record) {
  return record ? record->message : NULL;
}

const char *chime_log_record_get_event(const chime_log_record *record) {
  return record ? record->event : NULL;
}

const char *chime_log_record_get_trigger_group(const chime_log_record *record) {
  return record && record->about ? record->about->trigger_group : NULL;
}

const char *chime_log_record_get_trigger_name(const chime_log_record *record) {
  return record && record->about ? record->about->trigger_name : NULL;
}

const char *chime_log_record_get_job_group(const chime_log_record *record) {
  return record && record->about ? record->about->job_group : NULL;
}

const char *chime_log_record_get_job_name(const chime_log_record *record) {
  return record && record->about ? record->about->job_name : NULL;
}

int64_t chime_log_record_get_fire_id(const chime_log_record *record) {
  return record && record->about ? record->about->fire_id : 0;
}

const char *chime_log_record_get_node(const chime_log_record *record) {
  return record ? record->node : NULL;
}

int chime_log_record_get_error(const chime_log_record *record) {
  return record ? record->error : 0;
}
