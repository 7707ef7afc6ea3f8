/*
 * trigger_def.c: trigger definitions (the public chime_trigger): the four
 * constructors, the setters and getters, deep copies, and the preparation a
 * store runs before it keeps one (start time, calendar, validation, first
 * fire).  The time math itself lives in triggers/.
 */
#include "core/errbuf.h"
#include "core/utf8.h"
#include "model/records.h"

#include "triggers/cron.h"
#include "triggers/misfire.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PRIORITY 5

/* Constructors leave errbuf empty on success. */
static void errbuf_clear(char *errbuf, size_t errbuf_len) {
  if (errbuf && errbuf_len > 0)
    errbuf[0] = '\0';
}

/* A trigger with the key checked and the kind-independent defaults. */
static int trigger_alloc(const char *group, const char *name,
                         chime_trigger_kind kind, const char *zone_name,
                         chime_trigger **ret, char *errbuf, size_t errbuf_len) {
  int r;
  const chime_zone *zone = NULL;
  if (!ret)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "no place to return the trigger");
  if ((r = chime__name_check(group, "trigger group", errbuf, errbuf_len)) < 0 ||
      (r = chime__name_check(name, "trigger name", errbuf, errbuf_len)) < 0)
    return r;
  if (kind != CHIME_TRIGGER_SIMPLE) {
    if (!zone_name)
      zone_name = "UTC";
    r = chime_zone_get(zone_name, &zone);
    if (r < 0)
      return chime__record_err(errbuf, errbuf_len, r, "time zone '%.64s': %s",
                               zone_name, chime_strerror(r));
  }
  chime_trigger *t = calloc(1, sizeof *t);
  if (!t)
    return CHIME_ENOMEM;
  t->group = strdup(group);
  t->name = strdup(name);
  t->zone_name = zone ? strdup(zone_name) : NULL;
  if (!t->group || !t->name || (zone && !t->zone_name)) {
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  t->schedule.kind = kind;
  t->schedule.end_ms = CHIME_END_NONE;
  t->schedule.misfire = CHIME_MISFIRE_SMART;
  t->schedule.priority = DEFAULT_PRIORITY;
  t->schedule.zone = zone;
  t->state.next_fire_ms = CHIME_NO_FIRE;
  t->state.prev_fire_ms = CHIME_NO_FIRE;
  t->store_state = CHIME_STATE_WAITING;
  *ret = t;
  return 0;
}

int chime_trigger_simple_new(const char *group, const char *name,
                             int64_t interval_ms, int32_t repeat_count,
                             chime_trigger **ret_trigger, char *errbuf,
                             size_t errbuf_len) {
  errbuf_clear(errbuf, errbuf_len);
  if (repeat_count < CHIME_REPEAT_INDEFINITELY)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "repeat count %d is below -1 (indefinitely)",
                             (int)repeat_count);
  if (interval_ms < 0 || (interval_ms == 0 && repeat_count != 0))
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "interval must be positive for a trigger that "
                             "repeats (got %lld ms)",
                             (long long)interval_ms);
  chime_trigger *t;
  int r = trigger_alloc(group, name, CHIME_TRIGGER_SIMPLE, NULL, &t, errbuf,
                        errbuf_len);
  if (r < 0)
    return r;
  t->schedule.u.simple.interval_ms = interval_ms;
  t->schedule.u.simple.repeat_count = repeat_count;
  *ret_trigger = t;
  return 0;
}

int chime_trigger_cron_new(const char *group, const char *name,
                           const char *expression, const char *zone,
                           chime_trigger **ret_trigger, char *errbuf,
                           size_t errbuf_len) {
  chime_trigger *t;
  chime_cron *cron = NULL;
  int r = chime_cron_from_string(expression, &cron, NULL, errbuf, errbuf_len);
  if (r < 0)
    return r;
  /* A CRON_TZ= prefix names the zone; an explicit zone must agree. */
  const char *prefix_zone = chime_cron_get_zone_name(cron);
  if (zone != NULL && prefix_zone != NULL && strcmp(zone, prefix_zone) != 0) {
    r = chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                    "zone %s disagrees with the expression's CRON_TZ=%s", zone,
                    prefix_zone);
    chime_cron_free(cron);
    return r;
  }
  r = trigger_alloc(group, name, CHIME_TRIGGER_CRON,
                    zone != NULL ? zone : prefix_zone, &t, errbuf, errbuf_len);
  if (r < 0) {
    chime_cron_free(cron);
    return r;
  }
  t->cron = cron;
  t->cron_text = strdup(expression);
  if (!t->cron_text) {
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  t->schedule.u.cron.cron = cron;
  *ret_trigger = t;
  return 0;
}

/*
 * A Unix expression is kept with a CRON_TZ= prefix naming the trigger's
 * zone, so that chime_cron_from_string reads it back as Unix.
 */
int chime_trigger_unix_cron_new(const char *group, const char *name,
                                const char *expression, const char *zone,
                                chime_trigger **ret_trigger, char *errbuf,
                                size_t errbuf_len) {
  chime_cron *cron = NULL;
  int r = chime_cron_from_unix(expression, &cron, NULL, errbuf, errbuf_len);
  if (r < 0)
    return r;
  if (chime_cron_get_zone_name(cron) != NULL) {
    chime_cron_free(cron);
    return chime_trigger_cron_new(group, name, expression, zone, ret_trigger,
                                  errbuf, errbuf_len);
  }
  chime_cron_free(cron);
  const char *z = zone != NULL ? zone : "UTC";
  size_t n = strlen("CRON_TZ= ") + strlen(z) + strlen(expression) + 1;
  char *text = malloc(n);
  if (text == NULL)
    return CHIME_ENOMEM;
  snprintf(text, n, "CRON_TZ=%s %s", z, expression);
  r = chime_trigger_cron_new(group, name, text, z, ret_trigger, errbuf,
                             errbuf_len);
  free(text);
  return r;
}

int chime_trigger_recurrence_new(const char *group, const char *name,
                                 const char *recurrence,
                                 chime_trigger **ret_trigger, char *errbuf,
                                 size_t errbuf_len) {
  chime_rrule *rule = NULL;
  int r = chime_rrule_from_string(recurrence, &rule, errbuf, errbuf_len);
  if (r < 0)
    return r;
  chime_trigger *t;
  r = trigger_alloc(group, name, CHIME_TRIGGER_RECURRENCE,
                    chime_zone_get_name(chime_rrule_get_zone(rule)), &t, errbuf,
                    errbuf_len);
  if (r < 0) {
    chime_rrule_free(rule);
    return r;
  }
  t->rrule = rule;
  t->schedule.u.rrule.rule = rule;
  t->cron_text = strdup(recurrence);
  if (!t->cron_text) {
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  *ret_trigger = t;
  return 0;
}

int chime_trigger_calendar_interval_new(const char *group, const char *name,
                                        int32_t interval,
                                        chime_interval_unit unit,
                                        const char *zone,
                                        chime_trigger **ret_trigger,
                                        char *errbuf, size_t errbuf_len) {
  errbuf_clear(errbuf, errbuf_len);
  chime_trigger *t;
  int r = trigger_alloc(group, name, CHIME_TRIGGER_CALENDAR_INTERVAL, zone, &t,
                        errbuf, errbuf_len);
  if (r < 0)
    return r;
  t->schedule.u.calint.interval = interval;
  t->schedule.u.calint.unit = unit;
  r = chime__calint_check(&t->schedule, errbuf, errbuf_len);
  if (r < 0) {
    chime_trigger_free(t);
    return r;
  }
  *ret_trigger = t;
  return 0;
}

int chime_trigger_daily_new(const char *group, const char *name,
                            int32_t start_sec_of_day, int32_t end_sec_of_day,
                            unsigned days_of_week, int32_t interval,
                            chime_interval_unit unit, int32_t repeat_count,
                            const char *zone, chime_trigger **ret_trigger,
                            char *errbuf, size_t errbuf_len) {
  errbuf_clear(errbuf, errbuf_len);
  chime_trigger *t;
  if (days_of_week > CHIME__DAILY_ALL_DAYS)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "days of week 0x%x has bits past Saturday",
                             days_of_week);
  int r = trigger_alloc(group, name, CHIME_TRIGGER_DAILY_TIME_INTERVAL, zone,
                        &t, errbuf, errbuf_len);
  if (r < 0)
    return r;
  t->schedule.u.daily.start_sec_of_day = start_sec_of_day;
  t->schedule.u.daily.end_sec_of_day = end_sec_of_day;
  t->schedule.u.daily.days_of_week = (uint8_t)days_of_week;
  t->schedule.u.daily.interval = interval;
  t->schedule.u.daily.unit = unit;
  t->schedule.u.daily.repeat_count = repeat_count;
  r = chime__daily_check(&t->schedule, errbuf, errbuf_len);
  if (r < 0) {
    chime_trigger_free(t);
    return r;
  }
  *ret_trigger = t;
  return 0;
}

void chime_trigger_free(chime_trigger *t) {
  if (!t)
    return;
  free(t->group);
  free(t->name);
  free(t->job_group);
  free(t->job_name);
  free(t->description);
  free(t->calendar_name);
  free(t->data);
  free(t->zone_name);
  free(t->cron_text);
  free(t->shard_param);
  free(t->partition_key);
  chime_cron_free(t->cron);
  chime_rrule_free(t->rrule);
  free(t);
}

/* A compiled cron expression is plain data but for its text. */
static chime_cron *cron_copy(const chime_cron *cron, bool *ok) {
  if (!cron)
    return NULL;
  chime_cron *c = malloc(sizeof *c);
  if (!c) {
    *ok = false;
    return NULL;
  }
  *c = *cron;
  c->text = chime__dup_text(cron->text, ok);
  c->zone = chime__dup_text(cron->zone, ok);
  return c;
}

chime_trigger *chime__trigger_copy(const chime_trigger *t) {
  assert(t && t->group && t->name);
  assert(t->data_len == 0 || t->data);
  /* A cron trigger's schedule points at its own compiled expression. */
  assert(t->schedule.kind != CHIME_TRIGGER_CRON ||
         (t->cron && t->schedule.u.cron.cron == t->cron));
  bool ok = true;
  chime_trigger *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  *c = *t;
  c->group = chime__dup_text(t->group, &ok);
  c->name = chime__dup_text(t->name, &ok);
  c->job_group = chime__dup_text(t->job_group, &ok);
  c->job_name = chime__dup_text(t->job_name, &ok);
  c->description = chime__dup_text(t->description, &ok);
  c->calendar_name = chime__dup_text(t->calendar_name, &ok);
  c->data = chime__dup_bytes(t->data, t->data_len, &ok);
  c->shard_param = chime__dup_text(t->shard_param, &ok);
  c->partition_key = chime__dup_text(t->partition_key, &ok);
  c->zone_name = chime__dup_text(t->zone_name, &ok);
  c->cron_text = chime__dup_text(t->cron_text, &ok);
  c->cron = cron_copy(t->cron, &ok);
  if (c->schedule.kind == CHIME_TRIGGER_CRON)
    c->schedule.u.cron.cron = c->cron;
  c->rrule = NULL;
  if (t->rrule != NULL && ok &&
      chime_rrule_from_string(t->cron_text, &c->rrule, NULL, 0) != 0)
    ok = false;
  if (c->schedule.kind == CHIME_TRIGGER_RECURRENCE)
    c->schedule.u.rrule.rule = c->rrule;
  if (!ok) {
    chime_trigger_free(c);
    return NULL;
  }
  return c;
}

int chime__trigger_prepare(chime_trigger *t, const chime_calendar *calendar,
                           int64_t now_ms, char *errbuf, size_t errbuf_len) {
  assert(t && t->group && t->name);
  /* The calendar is resolved from the name by the store. */
  assert(!calendar || t->calendar_name);
  if (!t->job_group || !t->job_name)
    return chime__record_err(
        errbuf, errbuf_len, CHIME_EINVAL,
        "trigger %s.%s names no job (chime_trigger_set_job)", t->group,
        t->name);
  if (!t->start_set) {
    t->schedule.start_ms = now_ms;
    t->start_set = true;
  }
  t->schedule.calendar = calendar;
  int r = chime__schedule_validate(&t->schedule, errbuf, errbuf_len);
  if (r < 0)
    return r;
  r = chime__trigger_first_fire(&t->schedule, &t->state);
  if (r == CHIME_ENEVERFIRES)
    return chime__record_err(errbuf, errbuf_len, r,
                             "trigger %s.%s will never fire", t->group,
                             t->name);
  if (r < 0)
    return r;
  t->store_state = CHIME_STATE_WAITING;
  return 0;
}

/* ---------------------------------------------------------------- setters */

int chime_trigger_set_job(chime_trigger *t, const char *job_group,
                          const char *job_name) {
  int r;
  if (!t)
    return CHIME_EINVAL;
  if ((r = chime__name_check(job_group, "job group", NULL, 0)) < 0 ||
      (r = chime__name_check(job_name, "job name", NULL, 0)) < 0)
    return r;
  char *g = strdup(job_group), *n = strdup(job_name);
  if (!g || !n) {
    free(g);
    free(n);
    return CHIME_ENOMEM;
  }
  free(t->job_group);
  free(t->job_name);
  t->job_group = g;
  t->job_name = n;
  return 0;
}

int chime_trigger_set_start_ms(chime_trigger *t, int64_t start_ms) {
  if (!t || start_ms < CHIME__TRIGGER_MIN_MS ||
      start_ms > CHIME__TRIGGER_MAX_MS)
    return CHIME_EINVAL;
  t->schedule.start_ms = start_ms;
  t->start_set = true;
  return 0;
}

int chime_trigger_set_end_ms(chime_trigger *t, int64_t end_ms) {
  if (!t || (end_ms != CHIME_END_NONE && (end_ms < CHIME__TRIGGER_MIN_MS ||
                                          end_ms > CHIME__TRIGGER_MAX_MS)))
    return CHIME_EINVAL;
  t->schedule.end_ms = end_ms;
  return 0;
}

int chime_trigger_set_timeout_ms(chime_trigger *t, int64_t ms) {
  if (!t || ms < 0 || ms > CHIME_MAX_TIMEOUT_MS)
    return CHIME_EINVAL;
  t->timeout_ms = ms;
  return 0;
}

int64_t chime_trigger_get_timeout_ms(const chime_trigger *t) {
  return t ? t->timeout_ms : 0;
}

int chime_trigger_set_starting_deadline_ms(chime_trigger *t, int64_t ms) {
  if (!t || ms < 0 || ms > CHIME_MAX_TIMEOUT_MS)
    return CHIME_EINVAL;
  t->starting_deadline_ms = ms;
  return 0;
}

int64_t chime_trigger_get_starting_deadline_ms(const chime_trigger *t) {
  return t ? t->starting_deadline_ms : 0;
}

int chime_trigger_set_priority(chime_trigger *t, int priority) {
  if (!t)
    return CHIME_EINVAL;
  t->schedule.priority = priority;
  return 0;
}

/* The offset comes from the key, fixed at construction. */
int chime_trigger_set_jitter_ms(chime_trigger *t, int64_t jitter_ms) {
  if (!t || t->schedule.kind == CHIME_TRIGGER_SIMPLE || jitter_ms < 0 ||
      jitter_ms > CHIME_JITTER_MAX_MS)
    return CHIME_EINVAL;
  t->schedule.jitter_ms = jitter_ms;
  t->schedule.jitter_offset_ms =
      chime_key_get_jitter_offset_ms(t->group, t->name, jitter_ms);
  return 0;
}

int64_t chime_trigger_get_jitter_ms(const chime_trigger *t) {
  return t ? t->schedule.jitter_ms : 0;
}

int chime_trigger_set_misfire(chime_trigger *t, chime_misfire misfire) {
  if (!t || !chime__misfire_valid(t->schedule.kind, misfire))
    return CHIME_EINVAL;
  t->schedule.misfire = misfire;
  return 0;
}

int chime_trigger_set_calendar(chime_trigger *t, const char *name) {
  if (!t)
    return CHIME_EINVAL;
  if (name) {
    int r = chime__name_check(name, "calendar name", NULL, 0);
    if (r < 0)
      return r;
  }
  return chime__set_text(&t->calendar_name, name, CHIME_MAX_NAME_LEN);
}

int chime_trigger_set_description(chime_trigger *t, const char *text) {
  /* Stored as utf8mb4 text: other bytes would fail only at the store. */
  if (!t || (text && !chime__utf8_valid(text, strlen(text))))
    return CHIME_EINVAL;
  return chime__set_text(&t->description, text, CHIME_MAX_DESCRIPTION_LEN);
}

int chime_trigger_set_data(chime_trigger *t, const void *data, size_t len) {
  return t ? chime__set_bytes(&t->data, &t->data_len, data, len) : CHIME_EINVAL;
}

int chime_trigger_set_preserve_hour_of_day(chime_trigger *t, bool yes) {
  if (!t || t->schedule.kind != CHIME_TRIGGER_CALENDAR_INTERVAL)
    return CHIME_EINVAL;
  t->schedule.u.calint.preserve_hour_of_day = yes;
  return 0;
}

int chime_trigger_set_skip_day_if_hour_missing(chime_trigger *t, bool yes) {
  if (!t || t->schedule.kind != CHIME_TRIGGER_CALENDAR_INTERVAL)
    return CHIME_EINVAL;
  t->schedule.u.calint.skip_day_if_hour_missing = yes;
  return 0;
}

/* ---------------------------------------------------------------- getters */

chime_trigger_kind chime_trigger_get_kind(const chime_trigger *t) {
  return t ? t->schedule.kind : (chime_trigger_kind)0;
}

const char *chime_trigger_kind_to_string(chime_trigger_kind kind) {
  static const char *const names[] = {
      [CHIME_TRIGGER_SIMPLE] = "simple",
      [CHIME_TRIGGER_CRON] = "cron",
      [CHIME_TRIGGER_CALENDAR_INTERVAL] = "calendar-interval",
      [CHIME_TRIGGER_DAILY_TIME_INTERVAL] = "daily-time-interval",
      [CHIME_TRIGGER_RECURRENCE] = "recurrence"};
  return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : NULL;
}

const char *chime_misfire_to_string(chime_misfire misfire) {
  static const char *const names[] = {
      [CHIME_MISFIRE_SMART] = "smart",
      [CHIME_MISFIRE_IGNORE] = "ignore",
      [CHIME_MISFIRE_FIRE_NOW] = "fire-now",
      [CHIME_MISFIRE_DO_NOTHING] = "do-nothing",
      [CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT] =
          "reschedule-now-existing-count",
      [CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT] =
          "reschedule-now-remaining-count",
      [CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT] =
          "reschedule-next-remaining-count",
      [CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT] =
          "reschedule-next-existing-count"};
  return (unsigned)misfire < sizeof names / sizeof names[0] ? names[misfire]
                                                            : NULL;
}
const char *chime_trigger_get_group(const chime_trigger *t) {
  return t ? t->group : NULL;
}
const char *chime_trigger_get_name(const chime_trigger *t) {
  return t ? t->name : NULL;
}
const char *chime_trigger_get_job_group(const chime_trigger *t) {
  return t ? t->job_group : NULL;
}
const char *chime_trigger_get_job_name(const chime_trigger *t) {
  return t ? t->job_name : NULL;
}
const char *chime_trigger_get_calendar(const chime_trigger *t) {
  return t ? t->calendar_name : NULL;
}
int chime_trigger_set_partition_key(chime_trigger *t, const char *key) {
  if (!t)
    return CHIME_EINVAL;
  if (!key) {
    free(t->partition_key);
    t->partition_key = NULL;
    return 0;
  }
  int r = chime__name_check(key, "partition key", NULL, 0);
  return r < 0 ? r
               : chime__set_text(&t->partition_key, key, CHIME_MAX_NAME_LEN);
}

const char *chime_trigger_get_partition_key(const chime_trigger *t) {
  return t ? t->partition_key : NULL;
}

const char *chime_trigger_get_description(const chime_trigger *t) {
  return t ? t->description : NULL;
}
const void *chime_trigger_get_data(const chime_trigger *t, size_t *ret_len) {
  if (ret_len)
    *ret_len = t ? t->data_len : 0;
  return t ? t->data : NULL;
}
int chime_trigger_get_priority(const chime_trigger *t) {
  return t ? t->schedule.priority : 0;
}
chime_misfire chime_trigger_get_misfire(const chime_trigger *t) {
  return t ? t->schedule.misfire : CHIME_MISFIRE_SMART;
}
int64_t chime_trigger_get_start_ms(const chime_trigger *t) {
  return t && t->start_set ? t->schedule.start_ms : CHIME_NO_FIRE_MS;
}
int64_t chime_trigger_get_end_ms(const chime_trigger *t) {
  return t ? t->schedule.end_ms : CHIME_END_NONE;
}
int64_t chime_trigger_get_next_fire_ms(const chime_trigger *t) {
  return t ? t->state.next_fire_ms : CHIME_NO_FIRE_MS;
}
int64_t chime_trigger_get_prev_fire_ms(const chime_trigger *t) {
  return t ? t->state.prev_fire_ms : CHIME_NO_FIRE_MS;
}
int64_t chime_trigger_get_times_triggered(const chime_trigger *t) {
  return t ? t->state.times_triggered : 0;
}
chime_trigger_status chime_trigger_get_status(const chime_trigger *t) {
  return t ? chime__store_state_status(t->store_state) : CHIME_TRIGGER_NONE;
}
