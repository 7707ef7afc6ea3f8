/*
 * mysql/columns.c: records to and from the MySQL store's rows (columns.h):
 * a trigger row to a chime_trigger and a chime_trigger to the arguments of
 * its INSERT, a job row to a chime_job, and the names of store states.
 * Every position comes from the column enums, every NOT NULL column is
 * read with the asserting integer accessor.
 */
#include "jobstore/mysql/columns.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[] = {
    [CHIME_STATE_WAITING] = "WAITING",
    [CHIME_STATE_ACQUIRED] = "ACQUIRED",
    [CHIME_STATE_EXECUTING] = "EXECUTING",
    [CHIME_STATE_BLOCKED] = "BLOCKED",
    [CHIME_STATE_PAUSED] = "PAUSED",
    [CHIME_STATE_PAUSED_BLOCKED] = "PAUSED_BLOCKED",
    [CHIME_STATE_COMPLETE] = "COMPLETE",
    [CHIME_STATE_ERROR] = "ERROR",
};
#define NSTATES (sizeof state_names / sizeof state_names[0])

const char *chime__mysql_state_name(chime_store_state state) {
  assert((unsigned)state < NSTATES && state_names[state]);
  return (unsigned)state < NSTATES ? state_names[state] : "ERROR";
}

chime_store_state chime__mysql_state_parse(const char *name) {
  for (size_t i = 0; name && i < NSTATES; i++)
    if (strcmp(state_names[i], name) == 0)
      return (chime_store_state)i;
  return CHIME_STATE_ERROR;
}

/* A copy of a nullable text cell; clears *ok on ENOMEM. */
static char *cell_text(const chime__mysql_rows *r, size_t i, size_t c,
                       bool *ok) {
  const char *v = chime__mysql_rows_text(r, i, c);
  return v ? chime__dup_text(v, ok) : NULL;
}

/* A copy of a nullable binary cell and its length. */
static void *cell_bytes(const chime__mysql_rows *r, size_t i, size_t c,
                        size_t *len, bool *ok) {
  const char *v = chime__mysql_rows_text(r, i, c);
  *len = chime__mysql_rows_len(r, i, c);
  return *len ? chime__dup_bytes(v, *len, ok) : NULL;
}

/* Fills the schedule's kind fields from row i. */
static void row_kind(const chime__mysql_rows *r, size_t i, chime_schedule *s) {
#define COL(id) chime__mysql_rows_int64(r, i, CHIME__TRIG_COL_##id)
  switch (s->kind) {
  case CHIME_TRIGGER_SIMPLE:
    s->u.simple.interval_ms = COL(INTERVAL_MS);
    s->u.simple.repeat_count = (int32_t)COL(REPEAT_COUNT);
    break;
  case CHIME_TRIGGER_CRON:
  case CHIME_TRIGGER_RECURRENCE:
    break;
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    s->u.calint.interval = (int32_t)COL(INTERVAL_N);
    s->u.calint.unit = (chime_interval_unit)COL(INTERVAL_UNIT);
    s->u.calint.preserve_hour_of_day = COL(PRESERVE_HOUR) != 0;
    s->u.calint.skip_day_if_hour_missing = COL(SKIP_DAY) != 0;
    break;
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL:
    s->u.daily.interval = (int32_t)COL(INTERVAL_N);
    s->u.daily.unit = (chime_interval_unit)COL(INTERVAL_UNIT);
    s->u.daily.start_sec_of_day = (int32_t)COL(DAY_START_S);
    s->u.daily.end_sec_of_day = (int32_t)COL(DAY_END_S);
    s->u.daily.days_of_week = (unsigned)COL(DAYS_OF_WEEK);
    s->u.daily.repeat_count = (int32_t)COL(REPEAT_COUNT);
    break;
  }
#undef COL
}

/* Compiles what the definition names: the zone, the cron expression. */
static int resolve(chime_trigger *t) {
  chime_schedule *s = &t->schedule;
  int rc = 0;
  if (t->zone_name)
    rc = chime_zone_get(t->zone_name, &s->zone);
  if (rc == 0 && s->kind == CHIME_TRIGGER_CRON) {
    rc = t->cron_text
             ? chime_cron_from_string(t->cron_text, &t->cron, NULL, NULL, 0)
             : CHIME_EFORMAT;
    s->u.cron.cron = t->cron;
  }
  if (rc == 0 && s->kind == CHIME_TRIGGER_RECURRENCE) {
    rc = t->cron_text
             ? chime_rrule_from_string(t->cron_text, &t->rrule, NULL, 0)
             : CHIME_EFORMAT;
    s->u.rrule.rule = t->rrule;
  }
  return rc == CHIME_ENOMEM || rc == 0 ? rc : CHIME_EFORMAT;
}

int chime__mysql_trigger_from_row(const chime__mysql_rows *r, size_t i,
                                  chime_trigger **ret) {
  assert(r && i < r->nrows && ret);
  assert(r->ncols >= CHIME__TRIG_COL_COUNT);
#define COL(id) chime__mysql_rows_int64(r, i, CHIME__TRIG_COL_##id)
#define TEXT(id) cell_text(r, i, CHIME__TRIG_COL_##id, &ok)
  bool ok = true;
  chime_trigger *t = calloc(1, sizeof *t);
  if (!t)
    return CHIME_ENOMEM;
  t->group = TEXT(GROUP);
  t->name = TEXT(NAME);
  t->job_group = TEXT(JOB_GROUP);
  t->job_name = TEXT(JOB_NAME);
  t->description = TEXT(DESCRIPTION);
  t->calendar_name = TEXT(CALENDAR_NAME);
  t->data = cell_bytes(r, i, CHIME__TRIG_COL_DATA, &t->data_len, &ok);
  t->zone_name = TEXT(ZONE_NAME);
  t->cron_text = TEXT(CRON_TEXT);
  t->shard_param = TEXT(SHARD_PARAM);
  t->partition_key = TEXT(PARTITION_KEY);
  if (!ok) {
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  assert(t->group && t->name && t->job_group && t->job_name);
  chime_schedule *s = &t->schedule;
  s->kind = (chime_trigger_kind)COL(KIND);
  t->start_set = COL(START_SET) != 0;
  s->start_ms = COL(START_MS);
  s->end_ms = COL(END_MS);
  s->misfire = (chime_misfire)COL(MISFIRE);
  s->priority = (int)COL(PRIORITY);
  row_kind(r, i, s);
  t->timeout_ms = COL(TIMEOUT_MS);
  t->starting_deadline_ms = COL(STARTING_DEADLINE_MS);
  t->retry_attempt = COL(RETRY_ATTEMPT);
  t->retry_scheduled_ms = COL(RETRY_SCHEDULED_MS);
  t->shard_parent = COL(SHARD_PARENT);
  t->shard_index = (int32_t)COL(SHARD_INDEX);
  t->shard_total = (int32_t)COL(SHARD_TOTAL);
  t->origin_fire_id = COL(ORIGIN_FIRE_ID);
  t->unique_for_ms = COL(UNIQUE_FOR_MS);
  t->held_until_ms = COL(HELD_UNTIL_MS);
  t->retry.max_attempts = COL(RUN_RETRY_MAX_ATTEMPTS);
  t->retry.initial_delay_ms = COL(RUN_RETRY_INITIAL_DELAY_MS);
  t->retry.multiplier_milli = COL(RUN_RETRY_MULTIPLIER_MILLI);
  t->retry.max_delay_ms = COL(RUN_RETRY_MAX_DELAY_MS);
  t->retry.jitter_ms = COL(RUN_RETRY_JITTER_MS);
  t->retry.timed_out = COL(RUN_RETRY_TIMED_OUT) != 0;
  s->jitter_ms = COL(JITTER_MS);
  s->jitter_offset_ms =
      chime_key_get_jitter_offset_ms(t->group, t->name, s->jitter_ms);
  t->state.next_fire_ms = COL(NEXT_FIRE_MS);
  t->state.prev_fire_ms = COL(PREV_FIRE_MS);
  t->state.times_triggered = COL(TIMES_TRIGGERED);
  t->state.start_ms = COL(STATE_START_MS);
  t->state.repeat_count = (int32_t)COL(STATE_REPEAT_COUNT);
  t->store_state = chime__mysql_state_parse(
      chime__mysql_rows_text(r, i, CHIME__TRIG_COL_STATE));
#undef TEXT
#undef COL
  int rc = resolve(t);
  if (rc < 0) {
    chime_trigger_free(t);
    return rc;
  }
  *ret = t;
  return 0;
}

int chime__mysql_job_from_row(const chime__mysql_rows *r, size_t i,
                              chime_job **ret, bool *ret_paused) {
  assert(r && i < r->nrows && ret);
  assert(r->ncols >= CHIME__JOB_COL_COUNT);
#define COL(id) chime__mysql_rows_int64(r, i, CHIME__JOB_COL_##id)
#define TEXT(id) cell_text(r, i, CHIME__JOB_COL_##id, &ok)
  bool ok = true;
  chime_job *j = calloc(1, sizeof *j);
  if (!j)
    return CHIME_ENOMEM;
  j->group = TEXT(GROUP);
  j->name = TEXT(NAME);
  j->type = TEXT(TYPE);
  j->description = TEXT(DESCRIPTION);
  j->data = cell_bytes(r, i, CHIME__JOB_COL_DATA, &j->data_len, &ok);
  j->durable = COL(DURABLE) != 0;
  j->requests_recovery = COL(REQUESTS_RECOVERY) != 0;
  j->concurrency = (chime_concurrency)COL(CONCURRENCY);
  j->persist_data = COL(PERSIST_DATA) != 0;
  j->timeout_ms = COL(TIMEOUT_MS);
  j->starting_deadline_ms = COL(STARTING_DEADLINE_MS);
  j->queue_cap = COL(QUEUE_CAP);
  j->retry.timed_out = COL(RETRY_TIMED_OUT) != 0;
  j->retry.max_attempts = COL(RETRY_MAX_ATTEMPTS);
  j->retry.initial_delay_ms = COL(RETRY_INITIAL_DELAY_MS);
  j->retry.multiplier_milli = COL(RETRY_MULTIPLIER_MILLI);
  j->retry.max_delay_ms = COL(RETRY_MAX_DELAY_MS);
  j->retry.jitter_ms = COL(RETRY_JITTER_MS);
  j->shard_count = (int32_t)COL(SHARD_COUNT);
  j->shard_params = TEXT(SHARD_PARAMS);
  j->required_tags = TEXT(REQUIRED_TAGS);
  j->history_level = (chime_history_level)COL(HISTORY_LEVEL);
  j->then_group = TEXT(THEN_GROUP);
  j->then_name = TEXT(THEN_NAME);
  if (j->required_tags && !*j->required_tags) {
    free(j->required_tags); /* '' in the table: none */
    j->required_tags = NULL;
  }
  if (!ok) {
    chime_job_free(j);
    return CHIME_ENOMEM;
  }
  assert(j->group && j->name && j->type);
  if (ret_paused)
    *ret_paused = COL(PAUSED) != 0;
#undef TEXT
#undef COL
  *ret = j;
  return 0;
}

void chime__mysql_trigger_own_args(const chime_trigger *t,
                                   chime__mysql_arg *a) {
#define SET(id, v) a[CHIME__TRIG_ARG(id)] = chime__mysql_arg_int(v)
  SET(UNIQUE_FOR_MS, t->unique_for_ms);
  SET(RUN_RETRY_MAX_ATTEMPTS, t->retry.max_attempts);
  SET(RUN_RETRY_INITIAL_DELAY_MS, t->retry.initial_delay_ms);
  SET(RUN_RETRY_MULTIPLIER_MILLI, t->retry.multiplier_milli);
  SET(RUN_RETRY_MAX_DELAY_MS, t->retry.max_delay_ms);
  SET(RUN_RETRY_JITTER_MS, t->retry.jitter_ms);
  SET(RUN_RETRY_TIMED_OUT, t->retry.timed_out);
#undef SET
}

void chime__mysql_trigger_to_args(const char *sched, const chime_trigger *t,
                                  const chime_job *job, chime__mysql_arg *a) {
  assert(sched && t && job && job->type && a);
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
  /* Unset arguments are SQL NULL: owner, claim_fire_id and
   * recover_scheduled_ms of an unclaimed trigger. */
  memset(a, 0, CHIME__MYSQL_TRIGGER_INSERT_ARGS * sizeof *a);
#define INT(id, v) a[CHIME__TRIG_ARG(id)] = chime__mysql_arg_int(v)
#define TEXT(id, v) a[CHIME__TRIG_ARG(id)] = chime__mysql_arg_text(v)
  a[0] = chime__mysql_arg_text(sched);
  TEXT(GROUP, t->group);
  TEXT(NAME, t->name);
  TEXT(JOB_GROUP, t->job_group);
  TEXT(JOB_NAME, t->job_name);
  INT(KIND, sc->kind);
  TEXT(DESCRIPTION, t->description);
  TEXT(CALENDAR_NAME, t->calendar_name);
  a[CHIME__TRIG_ARG(DATA)] = chime__mysql_arg_bytes(t->data, t->data_len);
  TEXT(ZONE_NAME, t->zone_name);
  TEXT(CRON_TEXT, t->cron_text);
  INT(START_SET, t->start_set);
  INT(START_MS, sc->start_ms);
  INT(END_MS, sc->end_ms);
  INT(MISFIRE, sc->misfire);
  INT(PRIORITY, sc->priority);
  INT(INTERVAL_MS, interval_ms);
  INT(REPEAT_COUNT, repeat);
  INT(INTERVAL_N, n);
  INT(INTERVAL_UNIT, unit);
  INT(PRESERVE_HOUR, ph);
  INT(SKIP_DAY, sd);
  INT(DAY_START_S, ds);
  INT(DAY_END_S, de);
  INT(DAYS_OF_WEEK, days);
  INT(NEXT_FIRE_MS, t->state.next_fire_ms);
  INT(PREV_FIRE_MS, t->state.prev_fire_ms);
  INT(TIMES_TRIGGERED, t->state.times_triggered);
  INT(STATE_START_MS, t->state.start_ms);
  INT(STATE_REPEAT_COUNT, t->state.repeat_count);
  TEXT(STATE, chime__mysql_state_name(t->store_state));
  INT(RECOVERING, 0);
  TEXT(JOB_TYPE, job->type);
  TEXT(JOB_TAGS, job->required_tags ? job->required_tags : "");
  INT(SHARD_PARENT, t->shard_parent);
  INT(SHARD_INDEX, t->shard_index);
  INT(SHARD_TOTAL, t->shard_total);
  TEXT(SHARD_PARAM, t->shard_param);
  INT(ORIGIN_FIRE_ID, t->origin_fire_id);
  TEXT(PARTITION_KEY, t->partition_key);
  INT(HELD_UNTIL_MS, t->held_until_ms);
  chime__mysql_trigger_own_args(t, a);
  INT(TIMEOUT_MS, t->timeout_ms);
  INT(STARTING_DEADLINE_MS, t->starting_deadline_ms);
  INT(RETRY_ATTEMPT, t->retry_attempt);
  INT(RETRY_SCHEDULED_MS, t->retry_scheduled_ms);
  INT(JITTER_MS, sc->jitter_ms);
#undef TEXT
#undef INT
}
