/*
 * mysql/pause.c: pausing and resuming in the MySQL store (by trigger, job,
 * group matcher and all; paused matchers are remembered in paused_groups
 * so that new triggers of a matching group start PAUSED, as in the memory
 * store), and calendars.  A pause drops a trigger's claim (its fire is
 * then refused); resuming makes it WAITING, or BLOCKED while its FORBID
 * job runs; a time missed meanwhile is left to the misfire scan.
 */
#include "jobstore/mysql/mysql.h"

#include "triggers/calendar.h"

#include <stdlib.h>
#include <string.h>

typedef struct pause_op {
  chime__mysql_stmt_id id;        /* the pause or resume statement */
  const char *group, *name;
  bool by_job;          /* the key is a job's */
  int job_paused;       /* -1: leave jobs.paused alone */
  const char *like;     /* group matchers */
  chime_match match;
  const char *pattern;
  bool remember, forget, all;
} pause_op;

/* Whether the trigger or job of op exists. */
static int key_exists(chime__mysql_tx *tx, const pause_op *op, bool *ret) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(op->group),
                chime__mysql_arg_text(op->name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, op->by_job ? CHIME__Q_JOB_LOCK : CHIME__Q_TRIG_STATUS, NULL, a,
                          3, &rows);
  if (r < 0)
    return r;
  *ret = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return 0;
}

static int by_key_fn(chime__mysql_tx *tx, void *arg) {
  pause_op *op = arg;
  bool exists;
  int r = key_exists(tx, op, &exists);
  if (r < 0 || !exists)
    return r < 0 ? r : CHIME_ENOTFOUND;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(op->group),
                chime__mysql_arg_text(op->name)};
  if (op->job_paused >= 0) {
    chime__mysql_arg p[] = {chime__mysql_arg_int(op->job_paused), a[0], a[1], a[2]};
    if ((r = chime__mysql_exec(tx, CHIME__Q_JOB_SET_PAUSED, NULL, p, 4, NULL, NULL)) < 0)
      return r;
  }
  return chime__mysql_exec(tx, op->id, NULL, a, 3, NULL, NULL);
}

static int by_key(chime_store *store, const char *group, const char *name,
                  chime__mysql_stmt_id id, bool by_job, int job_paused) {
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  pause_op op = {.id = id, .group = group, .name = name, .by_job = by_job,
                 .job_paused = job_paused};
  return chime__mysql_tx_run((chime__mysql_store *)store, by_key_fn, NULL, &op, NULL, 0);
}

int chime__mysql_pause_trigger(chime_store *store, const char *group,
                            const char *name) {
  return by_key(store, group, name, CHIME__Q_PAUSE_KEY, false, -1);
}

int chime__mysql_resume_trigger(chime_store *store, const char *group,
                             const char *name) {
  return by_key(store, group, name, CHIME__Q_RESUME_KEY, false, -1);
}

int chime__mysql_pause_job(chime_store *store, const char *group,
                        const char *name) {
  return by_key(store, group, name, CHIME__Q_PAUSE_JOB, true, 1);
}

int chime__mysql_resume_job(chime_store *store, const char *group,
                         const char *name) {
  return by_key(store, group, name, CHIME__Q_RESUME_JOB, true, 0);
}

int chime__mysql_group_paused(chime__mysql_tx *tx, const char *group, bool *ret) {
  chime__mysql_arg a = chime__mysql_arg_text(tx->s->sched);
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_PG_LIST, NULL, &a, 1, &rows);
  if (r < 0)
    return r;
  *ret = false;
  for (size_t i = 0; i < rows.nrows && !*ret; i++)
    *ret = chime__group_matches((chime_match)chime__mysql_rows_int64(&rows, i, 0),
                                chime__mysql_rows_text(&rows, i, 1), group);
  chime__mysql_rows_free(&rows);
  return 0;
}

/* Forgets the matchers a resume with (match, pattern) lifts: the same
 * matcher, and every EQUALS group that it matches (all for ANY). */
static int forget(chime__mysql_tx *tx, chime_match match, const char *pattern) {
  chime__mysql_arg a = chime__mysql_arg_text(tx->s->sched);
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_PG_LIST, NULL, &a, 1, &rows);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    chime_match m = (chime_match)chime__mysql_rows_int64(&rows, i, 0);
    const char *p = chime__mysql_rows_text(&rows, i, 1);
    bool same = m == match && (m == CHIME_MATCH_ANY || strcmp(p, pattern) == 0);
    bool lift = match == CHIME_MATCH_ANY || same ||
                (m == CHIME_MATCH_EQUALS &&
                 chime__group_matches(match, pattern, p));
    if (!lift)
      continue;
    chime__mysql_arg d[] = {a, chime__mysql_arg_int(m), chime__mysql_arg_text(p)};
    r = chime__mysql_exec(tx, CHIME__Q_PG_DELETE, NULL, d, 3, NULL, NULL);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

static int by_group_fn(chime__mysql_tx *tx, void *arg) {
  pause_op *op = arg;
  chime__mysql_arg s = chime__mysql_arg_text(tx->s->sched);
  int r = 0;
  if (op->remember) {
    const char *p = op->match == CHIME_MATCH_ANY ? "" : op->pattern;
    chime__mysql_arg a[] = {s, chime__mysql_arg_int(op->match), chime__mysql_arg_text(p)};
    r = chime__mysql_exec(tx, CHIME__Q_PG_INSERT, NULL, a, 3, NULL, NULL);
  }
  if (r == 0 && op->forget && op->all) {
    r = chime__mysql_exec(tx, CHIME__Q_PG_CLEAR, NULL, &s, 1, NULL, NULL);
    if (r == 0)
      r = chime__mysql_exec(tx, CHIME__Q_JOBS_UNPAUSE, NULL, &s, 1, NULL, NULL);
  } else if (r == 0 && op->forget) {
    r = forget(tx, op->match, op->pattern);
  }
  chime__mysql_arg a[] = {s, chime__mysql_arg_text(op->like)};
  return r < 0 ? r : chime__mysql_exec(tx, op->id, NULL, a, 2, NULL, NULL);
}

static int by_group(chime_store *store, chime_match match, const char *pattern,
                    bool pause, bool all) {
  char like[2 * CHIME_MAX_NAME_LEN + 8];
  int r = chime__mysql_like_pattern(match, pattern, like, sizeof like);
  if (r < 0)
    return r;
  pause_op op = {.id = pause ? CHIME__Q_PAUSE_LIKE : CHIME__Q_RESUME_LIKE, .like = like,
                 .match = match, .pattern = pattern, .remember = pause,
                 .forget = !pause, .all = all};
  return chime__mysql_tx_run((chime__mysql_store *)store, by_group_fn, NULL, &op, NULL, 0);
}

int chime__mysql_pause_group(chime_store *store, chime_match match,
                          const char *pattern) {
  return by_group(store, match, pattern, true, false);
}

int chime__mysql_resume_group(chime_store *store, chime_match match,
                           const char *pattern) {
  return by_group(store, match, pattern, false, false);
}

int chime__mysql_pause_all(chime_store *store) {
  return by_group(store, CHIME_MATCH_ANY, NULL, true, true);
}

int chime__mysql_resume_all(chime_store *store) {
  return by_group(store, CHIME_MATCH_ANY, NULL, false, true);
}

/* ------------------------------------------------------------ calendars */

typedef struct cal_op {
  const char *name;
  const char *text;
  const chime_calendar *cal;
  bool replace, update;
  chime_calendar *out;
} cal_op;

/* Recomputes a trigger's next fire after its calendar changed (the memory
 * store's recompute). */
static int recompute(chime__mysql_tx *tx, chime_trigger *t, const chime_calendar *cal) {
  chime_store_state state = t->store_state;
  if (state == CHIME_STATE_ACQUIRED || state == CHIME_STATE_COMPLETE ||
      state == CHIME_STATE_ERROR)
    return 0;
  t->schedule.calendar = cal;
  int64_t after = t->state.prev_fire_ms != CHIME_NO_FIRE
                      ? t->state.prev_fire_ms
                      : t->state.start_ms - 1;
  int64_t next;
  int r = chime__trigger_fire_after(&t->schedule, &t->state, after, &next);
  t->schedule.calendar = NULL;
  if (r == CHIME_ENEVERFIRES) {
    t->state.next_fire_ms = CHIME_NO_FIRE;
    t->store_state = CHIME_STATE_COMPLETE;
  } else if (r < 0) {
    t->store_state = CHIME_STATE_ERROR;
  } else {
    t->state.next_fire_ms = next;
  }
  return chime__mysql_trigger_save_state(tx, t);
}

static int update_triggers(chime__mysql_tx *tx, cal_op *op) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(op->name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_TRIG_OF_CALENDAR, NULL, a, 2, &rows);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    chime_trigger *t;
    r = chime__mysql_trigger_from_row(&rows, i, &t);
    if (r == 0) {
      r = recompute(tx, t, op->cal);
      chime_trigger_free(t);
    }
  }
  chime__mysql_rows_free(&rows);
  return r;
}

static int cal_add_fn(chime__mysql_tx *tx, void *arg) {
  cal_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(op->name),
                chime__mysql_arg_text(op->text)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_CAL_GET_LOCK, NULL, a, 2, &rows);
  if (r < 0)
    return r;
  bool exists = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  if (exists && !op->replace)
    return CHIME_EEXISTS;
  if (!exists)
    return chime__mysql_exec(tx, CHIME__Q_CAL_INSERT, NULL, a, 3, NULL, NULL);
  chime__mysql_arg u[] = {a[2], a[0], a[1]};
  r = chime__mysql_exec(tx, CHIME__Q_CAL_UPDATE, NULL, u, 3, NULL, NULL);
  return r == 0 && op->update ? update_triggers(tx, op) : r;
}

int chime__mysql_calendar_add(chime_store *store, const char *name,
                           const chime_calendar *calendar, bool replace,
                           bool update_triggers) {
  int r = chime__name_check(name, "calendar name", NULL, 0);
  if (r < 0 || !calendar)
    return r < 0 ? r : CHIME_EINVAL;
  char *text = NULL;
  if ((r = chime__calendar_to_string(calendar, &text)) < 0)
    return r;
  cal_op op = {.name = name, .text = text, .cal = calendar,
               .replace = replace, .update = update_triggers};
  r = chime__mysql_tx_run((chime__mysql_store *)store, cal_add_fn, NULL, &op, NULL, 0);
  free(text);
  return r;
}

static int cal_remove_fn(chime__mysql_tx *tx, void *arg) {
  cal_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(op->name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_CAL_GET_LOCK, NULL, a, 2, &rows);
  if (r < 0)
    return r;
  bool exists = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  if (!exists)
    return CHIME_ENOTFOUND;
  if ((r = chime__mysql_query(tx, CHIME__Q_TRIG_CALENDAR_USED, NULL, a, 2, &rows)) < 0)
    return r;
  bool used = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  if (used)
    return CHIME_EBUSY;
  return chime__mysql_exec(tx, CHIME__Q_CAL_DELETE, NULL, a, 2, NULL, NULL);
}

int chime__mysql_calendar_remove(chime_store *store, const char *name) {
  int r = chime__name_check(name, "calendar name", NULL, 0);
  if (r < 0)
    return r;
  cal_op op = {.name = name};
  return chime__mysql_tx_run((chime__mysql_store *)store, cal_remove_fn, NULL, &op, NULL, 0);
}

static void cal_reset(void *arg) {
  cal_op *op = arg;
  chime__calendar_unref(op->out);
  op->out = NULL;
}

static int cal_get_fn(chime__mysql_tx *tx, void *arg) {
  cal_op *op = arg;
  return chime__mysql_calendar_load(tx, op->name, false, &op->out);
}

int chime__mysql_calendar_get(chime_store *store, const char *name,
                           chime_calendar **ret_calendar) {
  int r = chime__name_check(name, "calendar name", NULL, 0);
  if (r < 0 || !ret_calendar)
    return r < 0 ? r : CHIME_EINVAL;
  cal_op op = {.name = name};
  r = chime__mysql_tx_run((chime__mysql_store *)store, cal_get_fn, cal_reset, &op, NULL, 0);
  if (r < 0) {
    cal_reset(&op);
    return r;
  }
  *ret_calendar = op.out;
  return 0;
}
