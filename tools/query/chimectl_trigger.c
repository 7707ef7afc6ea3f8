/*
 * chimectl_trigger.c: a trigger as chimectl shows it, read from the public
 * trigger list (CHIME_ADMIN_TRIGGERS) by column name, with a public
 * chime_trigger built from its definition so that its next fires are the
 * library's own (chime_trigger_get_fire_time_after, jitter applied).
 */
#include "chimectl.h"

#include <stdint.h>
#include <string.h>

/* The value of name among count names that name(i) gives; fallback if
 * none. */
static int value_of(const char *text, const char *(*name)(int), int count,
                    int fallback) {
  for (int i = 0; text && i < count; i++)
    if (strcmp(name(i), text) == 0)
      return i;
  return fallback;
}

static const char *kind_at(int i) {
  return ctl_kind_name((chime_trigger_kind)i);
}
static const char *misfire_at(int i) {
  return ctl_misfire_name((chime_misfire)i);
}
static const char *unit_at(int i) {
  return ctl_unit_name((chime_interval_unit)i);
}

/* The cron or recurrence trigger t's definition says (NULL: another kind,
 * or one this library cannot build). */
static chime_trigger *build_record(const ctl_trigger *t) {
  chime_trigger *rec = NULL;
  int r = -1;
  if (!t->cron_text)
    return NULL;
  if (t->kind == CHIME_TRIGGER_CRON)
    r = chime_trigger_cron_new(t->group, t->name, t->cron_text, t->zone_name,
                               &rec, NULL, 0);
  else if (t->kind == CHIME_TRIGGER_RECURRENCE)
    r = chime_trigger_recurrence_new(t->group, t->name, t->cron_text, &rec,
                                     NULL, 0);
  if (r == 0 && t->jitter_ms > 0)
    r = chime_trigger_set_jitter_ms(rec, t->jitter_ms);
  if (r < 0) {
    chime_trigger_free(rec);
    return NULL;
  }
  return rec;
}

int ctl_trigger_read(const chime_admin_table *l, size_t row, ctl_trigger *ret) {
#define TEXT(col) chime_admin_table_get_text(l, row, col)
#define INT(col) chime_admin_table_get_int64(l, row, col)
#define INT_OR(col, none)                                                      \
  (chime_admin_table_is_null(l, row, col) ? (none) : INT(col))
  ctl_trigger t = {
      .group = TEXT("group"),
      .name = TEXT("name"),
      .job_group = TEXT("job_group"),
      .job_name = TEXT("job_name"),
      .job_type = TEXT("job_type"),
      .description = TEXT("description"),
      .calendar_name = TEXT("calendar"),
      .zone_name = TEXT("zone"),
      .kind = (chime_trigger_kind)value_of(TEXT("kind"), kind_at, 6, -1),
      .cron_text = TEXT("cron"),
      .misfire = (chime_misfire)value_of(TEXT("misfire"), misfire_at, 8, 0),
      .priority = (int)INT("priority"),
      .start_ms = INT_OR("start_ms", CHIME_NO_FIRE_MS),
      .end_ms = INT_OR("end_ms", INT64_MAX),
      .interval_ms = INT("interval_ms"),
      .repeat_count = (int32_t)INT("repeat_count"),
      .interval = (int32_t)INT("interval"),
      .unit = (chime_interval_unit)value_of(TEXT("unit"), unit_at, 8, 0),
      .preserve_hour_of_day = INT("preserve_hour") != 0,
      .day_start_s = (int32_t)INT("day_start_s"),
      .day_end_s = (int32_t)INT("day_end_s"),
      .days_of_week = (unsigned)INT("days_of_week"),
      .jitter_ms = INT("jitter_ms"),
      .next_fire_ms = INT_OR("next_fire_ms", CHIME_NO_FIRE_MS),
      .prev_fire_ms = INT_OR("prev_fire_ms", CHIME_NO_FIRE_MS),
      .state_repeat_count = (int32_t)INT("effective_repeat_count"),
      .state = TEXT("state"),
      .owner = TEXT("owner"),
      .claim_fire_id = INT("claim_fire_id"),
      .timeout_ms = INT("timeout_ms"),
      .starting_deadline_ms = INT("deadline_ms"),
  };
#undef INT_OR
#undef INT
#undef TEXT
  t.jitter_offset_ms =
      chime_key_get_jitter_offset_ms(t.group, t.name, t.jitter_ms);
  t.record = build_record(&t);
  *ret = t;
  return 0;
}

void ctl_trigger_clear(ctl_trigger *t) {
  if (!t)
    return;
  chime_trigger_free(t->record);
  chime_admin_table_free(t->list);
  memset(t, 0, sizeof *t);
}

int ctl_trigger_by_key(ctl *c, const char *group, const char *name,
                       const char *key, ctl_trigger *ret) {
  *ret = (ctl_trigger){0};
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_TRIGGERS);
  if (q && chime_admin_query_set_trigger(q, group, name) < 0) {
    chime_admin_query_free(q);
    return ctl_usage("'%s' is not a key GROUP.NAME", key);
  }
  chime_admin_table *l = NULL;
  int r = ctl_list(c, q, &l);
  if (r)
    return r;
  if (chime_admin_table_get_row_count(l) == 0) {
    chime_admin_table_free(l);
    return ctl_fail(CHIME_ENOTFOUND, "no trigger %s", key);
  }
  ctl_trigger_read(l, 0, ret);
  ret->list = l;
  return 0;
}
