/*
 * mysql/calendar.c: calendars in the MySQL store, stored in their text
 * form (chime__calendar_to_string).  Replacing one can recompute the next
 * fire of the triggers naming it (Quartz's updateWithNewCalendar, the
 * memory store's recompute); a calendar still named by a trigger cannot be
 * removed.
 *
 * Threads: any (tx.h); each op is one transaction of its own, locking the
 * calendar's row.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"
#include "triggers/calendar.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct cal_op {
  const char *name;
  const char *text;
  const chime_calendar *cal;
  bool replace, update;
  chime_calendar *out;
} cal_op;

int chime__mysql_trigger_recompute(chime__mysql_tx *tx, chime_trigger *t,
                                   bool *ret_moved) {
  chime_store_state state = t->store_state;
  if (ret_moved)
    *ret_moved = false;
  /* EXECUTING: a one-shot whose run its row keeps (runs.c), no fire
   * left, as COMPLETE. */
  if (state == CHIME_STATE_ACQUIRED || state == CHIME_STATE_EXECUTING ||
      state == CHIME_STATE_COMPLETE || state == CHIME_STATE_ERROR)
    return 0;
  int64_t before = t->state.next_fire_ms, next;
  int r = chime__trigger_refire_after_change(&t->schedule, &t->state, &next);
  if (r == CHIME_ENEVERFIRES) {
    t->state.next_fire_ms = CHIME_NO_FIRE;
    t->store_state = CHIME_STATE_COMPLETE;
  } else if (r < 0) {
    t->store_state = CHIME_STATE_ERROR;
  } else {
    t->state.next_fire_ms = next;
  }
  if (t->store_state == state && t->state.next_fire_ms == before)
    return 0;
  if (ret_moved)
    *ret_moved = true;
  return chime__mysql_trigger_save_state(tx, t);
}

/* Recomputes a trigger's next fire after its calendar changed. */
static int recompute(chime__mysql_tx *tx, chime_trigger *t,
                     const chime_calendar *cal) {
  assert(cal && !t->schedule.calendar);
  assert(t->calendar_name);
  t->schedule.calendar = cal;
  int r = chime__mysql_trigger_recompute(tx, t, NULL);
  t->schedule.calendar = NULL;
  return r;
}

static int update_triggers(chime__mysql_tx *tx, cal_op *op) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_TRIG_OF_CALENDAR, a, 2, &rows);
  assert(r < 0 || rows.nrows == 0 || rows.ncols == CHIME__TRIG_COL_COUNT);
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

/* Runs query id on (scheduler, calendar name); *ret says whether it
 * returned a row (the calendar's, locked, for CHIME__Q_CAL_GET_LOCK). */
static int has_row(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                   const char *name, bool *ret) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, id, a, 2, &rows);
  *ret = r == 0 && rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return r;
}

static int cal_add_fn(chime__mysql_tx *tx, void *arg) {
  cal_op *op = arg;
  assert(op->name && op->text && op->cal);
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->name),
                          chime__mysql_arg_text(op->text)};
  bool exists;
  int r = has_row(tx, CHIME__Q_CAL_GET_LOCK, op->name, &exists);
  if (r < 0)
    return r;
  if (exists && !op->replace)
    return CHIME_EEXISTS;
  if (!exists)
    return chime__mysql_exec(tx, CHIME__Q_CAL_INSERT, a, 3, NULL, NULL);
  chime__mysql_arg u[] = {a[2], a[0], a[1]};
  r = chime__mysql_exec(tx, CHIME__Q_CAL_UPDATE, u, 3, NULL, NULL);
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
  cal_op op = {.name = name,
               .text = text,
               .cal = calendar,
               .replace = replace,
               .update = update_triggers};
  r = chime__mysql_tx_run(chime__mysql_store_of(store), cal_add_fn, NULL, &op,
                          NULL, 0);
  free(text);
  return r;
}

static int cal_remove_fn(chime__mysql_tx *tx, void *arg) {
  cal_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->name)};
  bool exists, used;
  int r = has_row(tx, CHIME__Q_CAL_GET_LOCK, op->name, &exists);
  if (r < 0 || !exists)
    return r < 0 ? r : CHIME_ENOTFOUND;
  if ((r = has_row(tx, CHIME__Q_TRIG_CALENDAR_USED, op->name, &used)) < 0)
    return r;
  if (used)
    return CHIME_EBUSY;
  return chime__mysql_exec(tx, CHIME__Q_CAL_DELETE, a, 2, NULL, NULL);
}

int chime__mysql_calendar_remove(chime_store *store, const char *name) {
  int r = chime__name_check(name, "calendar name", NULL, 0);
  if (r < 0)
    return r;
  cal_op op = {.name = name};
  return chime__mysql_tx_run(chime__mysql_store_of(store), cal_remove_fn, NULL,
                             &op, NULL, 0);
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
  r = chime__mysql_tx_run(chime__mysql_store_of(store), cal_get_fn, cal_reset,
                          &op, NULL, 0);
  if (r < 0) {
    cal_reset(&op);
    return r;
  }
  *ret_calendar = op.out;
  return 0;
}
