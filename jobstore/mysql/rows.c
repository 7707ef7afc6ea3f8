/*
 * mysql/rows.c: the MySQL store's records and rows: trigger and job
 * records to statement parameters and back (every field of a trigger's
 * definition and fire state round-trips: zone name, cron text, kind
 * fields, flags, calendar name, data, description), state names, and the
 * small loads and updates the other files share.
 */
#include "jobstore/mysql/mysql.h"

#include "triggers/calendar.h"

#include <stdlib.h>
#include <string.h>

static const char *const state_names[] = {
    [CHIME_STATE_WAITING] = "WAITING",   [CHIME_STATE_ACQUIRED] = "ACQUIRED",
    [CHIME_STATE_EXECUTING] = "EXECUTING", [CHIME_STATE_BLOCKED] = "BLOCKED",
    [CHIME_STATE_PAUSED] = "PAUSED",
    [CHIME_STATE_PAUSED_BLOCKED] = "PAUSED_BLOCKED",
    [CHIME_STATE_COMPLETE] = "COMPLETE", [CHIME_STATE_ERROR] = "ERROR",
};

const char *chime__mysql_state_name(chime_store_state state) {
  if ((unsigned)state < sizeof state_names / sizeof state_names[0])
    return state_names[state];
  return "ERROR";
}

chime_store_state chime__mysql_state_parse(const char *name) {
  for (size_t i = 0; name && i < sizeof state_names / sizeof state_names[0];
       i++)
    if (strcmp(state_names[i], name) == 0)
      return (chime_store_state)i;
  return CHIME_STATE_ERROR;
}

int chime__mysql_like_pattern(chime_match match, const char *pattern, char *buf,
                   size_t len) {
  if (match == CHIME_MATCH_ANY) {
    memcpy(buf, "%", 2);
    return 0;
  }
  if (match != CHIME_MATCH_EQUALS && match != CHIME_MATCH_STARTS_WITH &&
      match != CHIME_MATCH_ENDS_WITH && match != CHIME_MATCH_CONTAINS)
    return CHIME_EINVAL;
  int r = chime__name_check(pattern, "group pattern", NULL, 0);
  if (r < 0)
    return r;
  size_t n = 0;
  if (match == CHIME_MATCH_ENDS_WITH || match == CHIME_MATCH_CONTAINS)
    buf[n++] = '%';
  for (const char *p = pattern; *p; p++) {
    if (n + 4 >= len)
      return CHIME_ELIMIT;
    if (*p == '%' || *p == '_' || *p == '!')
      buf[n++] = '!';
    buf[n++] = *p;
  }
  if (match == CHIME_MATCH_STARTS_WITH || match == CHIME_MATCH_CONTAINS)
    buf[n++] = '%';
  buf[n] = '\0';
  return 0;
}

/* A copy of a nullable text cell; clears *ok on ENOMEM. */
static char *cell_text(const chime__mysql_rows *r, size_t i, size_t c, bool *ok) {
  const char *v = chime__mysql_rows_text(r, i, c);
  return v ? chime__dup_text(v, ok) : NULL;
}

static void *cell_bytes(const chime__mysql_rows *r, size_t i, size_t c, size_t *len,
                        bool *ok) {
  const char *v = chime__mysql_rows_text(r, i, c);
  *len = v ? chime__mysql_rows_len(r, i, c) : 0;
  return *len ? chime__dup_bytes(v, *len, ok) : NULL;
}

/* Fills the schedule's kind fields from row i. */
static void row_kind(const chime__mysql_rows *r, size_t i, chime_schedule *s) {
#define I(c) chime__mysql_rows_int64(r, i, c)
  switch (s->kind) {
  case CHIME_TRIGGER_SIMPLE:
    s->u.simple.interval_ms = I(15);
    s->u.simple.repeat_count = (int32_t)I(16);
    break;
  case CHIME_TRIGGER_CRON:
    break;
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    s->u.calint.interval = (int32_t)I(17);
    s->u.calint.unit = (chime_interval_unit)I(18);
    s->u.calint.preserve_hour_of_day = I(19) != 0;
    s->u.calint.skip_day_if_hour_missing = I(20) != 0;
    break;
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    s->u.daily.interval = (int32_t)I(17);
    s->u.daily.unit = (chime_interval_unit)I(18);
    s->u.daily.start_sec_of_day = (int32_t)I(21);
    s->u.daily.end_sec_of_day = (int32_t)I(22);
    s->u.daily.days_of_week = (unsigned)I(23);
    s->u.daily.repeat_count = (int32_t)I(16);
    break;
  }
#undef I
}

int chime__mysql_trigger_from_row(const chime__mysql_rows *r, size_t i, chime_trigger **ret) {
  bool ok = true;
  chime_trigger *t = calloc(1, sizeof *t);
  if (!t)
    return CHIME_ENOMEM;
  t->group = cell_text(r, i, 0, &ok);
  t->name = cell_text(r, i, 1, &ok);
  t->job_group = cell_text(r, i, 2, &ok);
  t->job_name = cell_text(r, i, 3, &ok);
  t->description = cell_text(r, i, 5, &ok);
  t->calendar_name = cell_text(r, i, 6, &ok);
  t->data = cell_bytes(r, i, 7, &t->data_len, &ok);
  t->zone_name = cell_text(r, i, 8, &ok);
  t->cron_text = cell_text(r, i, 9, &ok);
  if (!ok) {
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  chime_schedule *s = &t->schedule;
  s->kind = (chime_trigger_kind)chime__mysql_rows_int64(r, i, 4);
  t->start_set = chime__mysql_rows_int64(r, i, 10) != 0;
  s->start_ms = chime__mysql_rows_int64(r, i, 11);
  s->end_ms = chime__mysql_rows_int64(r, i, 12);
  s->misfire = (chime_misfire)chime__mysql_rows_int64(r, i, 13);
  s->priority = (int)chime__mysql_rows_int64(r, i, 14);
  row_kind(r, i, s);
  t->state.next_fire_ms = chime__mysql_rows_int64(r, i, 24);
  t->state.prev_fire_ms = chime__mysql_rows_int64(r, i, 25);
  t->state.times_triggered = chime__mysql_rows_int64(r, i, 26);
  t->state.start_ms = chime__mysql_rows_int64(r, i, 27);
  t->state.repeat_count = (int32_t)chime__mysql_rows_int64(r, i, 28);
  t->store_state = chime__mysql_state_parse(chime__mysql_rows_text(r, i, CHIME__TRIG_COL_STATE));
  int rc = 0;
  if (t->zone_name)
    rc = chime_zone_get(t->zone_name, &s->zone);
  if (rc == 0 && s->kind == CHIME_TRIGGER_CRON) {
    rc = t->cron_text ? chime_cron_from_string(t->cron_text, &t->cron, NULL,
                                               NULL, 0)
                      : CHIME_EFORMAT;
    s->u.cron.cron = t->cron;
  }
  if (rc < 0) {
    chime_trigger_free(t);
    return rc == CHIME_ENOMEM ? rc : CHIME_EFORMAT;
  }
  *ret = t;
  return 0;
}

int chime__mysql_job_from_row(const chime__mysql_rows *r, size_t i, chime_job **ret,
                      bool *ret_paused) {
  bool ok = true;
  chime_job *j = calloc(1, sizeof *j);
  if (!j)
    return CHIME_ENOMEM;
  j->group = cell_text(r, i, 0, &ok);
  j->name = cell_text(r, i, 1, &ok);
  j->type = cell_text(r, i, 2, &ok);
  j->description = cell_text(r, i, 3, &ok);
  j->data = cell_bytes(r, i, 4, &j->data_len, &ok);
  j->durable = chime__mysql_rows_int64(r, i, 5) != 0;
  j->requests_recovery = chime__mysql_rows_int64(r, i, 6) != 0;
  j->concurrency = (chime_concurrency)chime__mysql_rows_int64(r, i, 7);
  j->persist_data = chime__mysql_rows_int64(r, i, 8) != 0;
  if (!ok) {
    chime_job_free(j);
    return CHIME_ENOMEM;
  }
  if (ret_paused)
    *ret_paused = chime__mysql_rows_int64(r, i, 9) != 0;
  *ret = j;
  return 0;
}

void chime__mysql_trigger_to_args(const chime__mysql_store *s, const chime_trigger *t,
                            const char *job_type, chime__mysql_arg *a) {
  const chime_schedule *sc = &t->schedule;
  int64_t interval_ms = 0, repeat = 0, n = 0, unit = 0, ph = 0, sd = 0;
  int64_t ds = 0, de = 0, days = 0;
  if (sc->kind == CHIME_TRIGGER_SIMPLE) {
    interval_ms = sc->u.simple.interval_ms;
    repeat = sc->u.simple.repeat_count;
  } else if (sc->kind == CHIME_TRIGGER_CALENDAR_INTERVAL) {
    n = sc->u.calint.interval;
    unit = sc->u.calint.unit;
    ph = sc->u.calint.preserve_hour_of_day;
    sd = sc->u.calint.skip_day_if_hour_missing;
  } else if (sc->kind == CHIME_TRIGGER_DAILY_TIME_INTERVAL) {
    n = sc->u.daily.interval;
    unit = sc->u.daily.unit;
    ds = sc->u.daily.start_sec_of_day;
    de = sc->u.daily.end_sec_of_day;
    days = sc->u.daily.days_of_week;
    repeat = sc->u.daily.repeat_count;
  }
  size_t k = 0;
  a[k++] = chime__mysql_arg_text(s->sched);
  a[k++] = chime__mysql_arg_text(t->group);
  a[k++] = chime__mysql_arg_text(t->name);
  a[k++] = chime__mysql_arg_text(t->job_group);
  a[k++] = chime__mysql_arg_text(t->job_name);
  a[k++] = chime__mysql_arg_int(sc->kind);
  a[k++] = chime__mysql_arg_text(t->description);
  a[k++] = chime__mysql_arg_text(t->calendar_name);
  a[k++] = chime__mysql_arg_bytes(t->data, t->data_len);
  a[k++] = chime__mysql_arg_text(t->zone_name);
  a[k++] = chime__mysql_arg_text(t->cron_text);
  a[k++] = chime__mysql_arg_int(t->start_set);
  a[k++] = chime__mysql_arg_int(sc->start_ms);
  a[k++] = chime__mysql_arg_int(sc->end_ms);
  a[k++] = chime__mysql_arg_int(sc->misfire);
  a[k++] = chime__mysql_arg_int(sc->priority);
  a[k++] = chime__mysql_arg_int(interval_ms);
  a[k++] = chime__mysql_arg_int(repeat);
  a[k++] = chime__mysql_arg_int(n);
  a[k++] = chime__mysql_arg_int(unit);
  a[k++] = chime__mysql_arg_int(ph);
  a[k++] = chime__mysql_arg_int(sd);
  a[k++] = chime__mysql_arg_int(ds);
  a[k++] = chime__mysql_arg_int(de);
  a[k++] = chime__mysql_arg_int(days);
  a[k++] = chime__mysql_arg_int(t->state.next_fire_ms);
  a[k++] = chime__mysql_arg_int(t->state.prev_fire_ms);
  a[k++] = chime__mysql_arg_int(t->state.times_triggered);
  a[k++] = chime__mysql_arg_int(t->state.start_ms);
  a[k++] = chime__mysql_arg_int(t->state.repeat_count);
  a[k++] = chime__mysql_arg_text(chime__mysql_state_name(t->store_state));
  a[k++] = chime__mysql_arg_text(NULL); /* owner */
  a[k++] = chime__mysql_arg_text(NULL); /* claim_fire_id */
  a[k++] = chime__mysql_arg_int(0);     /* recovering */
  a[k++] = chime__mysql_arg_text(NULL); /* recover_scheduled_ms */
  a[k++] = chime__mysql_arg_text(job_type);
}

/* ------------------------------------------------------- shared loads */

int chime__mysql_job_load(chime__mysql_tx *tx, const char *group, const char *name,
                       bool lock, chime_job **ret, bool *ret_paused) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(group),
                chime__mysql_arg_text(name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, lock ? CHIME__Q_JOB_GET_LOCK : CHIME__Q_JOB_GET, NULL, a, 3,
                          &rows);
  if (r < 0)
    return r;
  r = rows.nrows ? chime__mysql_job_from_row(&rows, 0, ret, ret_paused)
                 : CHIME_ENOTFOUND;
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_calendar_load(chime__mysql_tx *tx, const char *name, bool lock,
                            chime_calendar **ret) {
  *ret = NULL;
  if (!name)
    return 0;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, lock ? CHIME__Q_CAL_GET_LOCK : CHIME__Q_CAL_GET, NULL, a, 2,
                          &rows);
  if (r < 0)
    return r;
  if (rows.nrows == 0)
    r = CHIME_ENOTFOUND;
  else
    r = chime__calendar_from_string(chime__mysql_rows_text(&rows, 0, 0), ret, NULL, 0);
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_trigger_load(chime__mysql_tx *tx, const char *group, const char *name,
                           bool lock, chime_trigger **ret) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(group),
                chime__mysql_arg_text(name)};
  chime__mysql_rows rows;
  *ret = NULL;
  int r = chime__mysql_query(tx, lock ? CHIME__Q_TRIG_GET_LOCK : CHIME__Q_TRIG_GET, NULL, a, 3,
                          &rows);
  if (r < 0)
    return r;
  if (rows.nrows)
    r = chime__mysql_trigger_from_row(&rows, 0, ret);
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_trigger_save_state(chime__mysql_tx *tx, const chime_trigger *t) {
  chime__mysql_arg a[] = {
      chime__mysql_arg_int(t->state.next_fire_ms),
      chime__mysql_arg_int(t->state.prev_fire_ms),
      chime__mysql_arg_int(t->state.times_triggered),
      chime__mysql_arg_int(t->state.start_ms),
      chime__mysql_arg_int(t->state.repeat_count),
      chime__mysql_arg_text(chime__mysql_state_name(t->store_state)),
      chime__mysql_arg_text(tx->s->sched),
      chime__mysql_arg_text(t->group),
      chime__mysql_arg_text(t->name),
  };
  return chime__mysql_exec(tx, CHIME__Q_TRIG_SET_FIRE_STATE, NULL, a, 9, NULL, NULL);
}

int chime__mysql_fired_get(chime__mysql_tx *tx, int64_t id, chime__mysql_rows *rows) {
  chime__mysql_arg a[] = {chime__mysql_arg_int(id), chime__mysql_arg_text(tx->s->sched)};
  return chime__mysql_query(tx, CHIME__Q_FIRED_GET, NULL, a, 2, rows);
}

int chime__mysql_trigger_remove_if_complete(chime__mysql_tx *tx, const char *group,
                                 const char *name) {
  chime_trigger *t = NULL;
  int r = chime__mysql_trigger_load(tx, group, name, true, &t);
  if (r == 0 && t && t->store_state == CHIME_STATE_COMPLETE)
    r = chime__mysql_trigger_delete(tx, t->group, t->name, t->job_group,
                                 t->job_name, true);
  chime_trigger_free(t);
  return r;
}

int chime__mysql_trigger_delete(chime__mysql_tx *tx, const char *group, const char *name,
                             const char *job_group, const char *job_name,
                             bool cascade) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(group),
                chime__mysql_arg_text(name)};
  int r = chime__mysql_exec(tx, CHIME__Q_TRIG_DELETE, NULL, a, 3, NULL, NULL);
  if (r < 0 || !cascade)
    return r;
  return chime__mysql_job_gc(tx, job_group, job_name);
}

int chime__mysql_job_gc(chime__mysql_tx *tx, const char *job_group, const char *job_name) {
  int r;
  chime__mysql_arg j[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(job_group),
                chime__mysql_arg_text(job_name)};
  chime__mysql_rows rows;
  if ((r = chime__mysql_query(tx, CHIME__Q_JOB_LOCK, NULL, j, 3, &rows)) < 0)
    return r;
  bool durable = rows.nrows == 0 || chime__mysql_rows_int64(&rows, 0, 0) != 0;
  chime__mysql_rows_free(&rows);
  if (durable)
    return 0;
  if ((r = chime__mysql_query(tx, CHIME__Q_JOB_HAS_TRIGGERS, NULL, j, 3, &rows)) < 0)
    return r;
  bool left = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return left ? 0 : chime__mysql_exec(tx, CHIME__Q_JOB_DELETE, NULL, j, 3, NULL, NULL);
}

int chime__mysql_job_unblock(chime__mysql_tx *tx, const char *group, const char *name) {
  chime__mysql_arg j[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(group),
                chime__mysql_arg_text(name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_JOB_EXECUTING, NULL, j, 3, &rows);
  if (r < 0)
    return r;
  bool busy = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return busy ? 0 : chime__mysql_exec(tx, CHIME__Q_UNBLOCK_JOB, NULL, j, 3, NULL, NULL);
}
