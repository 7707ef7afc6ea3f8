/*
 * mysql/zones.c: reloaded zone rules in the MySQL store (store.h's
 * recompute_zones): every unclaimed trigger of the scheduler in a zone
 * whose rules changed gets its next fire recomputed with the new rules.
 *
 * Why this is enough for the cluster to agree: a trigger row names its
 * zone, and every computation of a next fire (fire, misfire, resume)
 * resolves the name through the process's zone cache, whose newest object
 * for a name has the newest rules this host has read.  A node that has not
 * noticed the new file yet computes with the old rules; once it notices
 * (engine/zones.c, at its check-ins), it recomputes too.  The recompute
 * starts from the trigger's previous fire (chime__trigger_refire_after_
 * change), never from "now" or from the old next fire, so it is
 * idempotent: several nodes doing it, in any order and at any time, write
 * the same time.
 *
 * Calendars: a calendar reading wall-clock time in a changed zone (its
 * text names the zone, and every load resolves it to the newest object)
 * has the triggers naming it recomputed the same way.
 *
 * Locks: batches of CHIME__MYSQL_ZONE_BATCH triggers, each one transaction that
 * locks the rows it changes (FOR UPDATE SKIP LOCKED: a row being claimed or
 * fired is skipped, and whoever holds it computes its next fire itself),
 * walking the primary key so that each row is looked at once.  Claimed rows
 * (ACQUIRED, EXECUTING) are not selected: they compute their next fire
 * when they fire.  Threads: any (tx.h); the engine calls it on its loop.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"
#include "triggers/calendar.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* One batch: its rows after (after_group, after_name) where the query's
 * column is name; the key of its last row goes to next_* (taken into the
 * cursor only once the batch committed). */
typedef struct zone_op {
  chime__mysql_stmt_id query; /* CHIME__Q_TRIG_OF_ZONE or _OF_CAL_BATCH */
  const char *name;           /* the zone or calendar name */
  const char *after_group, *after_name; /* borrowed; NULL: from the start */
  char *next_group, *next_name;         /* owned */
  size_t seen;                          /* rows the batch looked at */
  size_t moved;                         /* triggers whose next fire moved */
} zone_op;

static void zone_reset(void *arg) {
  zone_op *op = arg;
  free(op->next_group);
  free(op->next_name);
  op->next_group = op->next_name = NULL;
  op->seen = op->moved = 0;
}

static int recompute_row(chime__mysql_tx *tx, chime__mysql_rows *rows, size_t i,
                         bool *ret_moved) {
  chime_trigger *t;
  int r = chime__mysql_trigger_from_row(rows, i, &t);
  if (r < 0)
    return r == CHIME_ENOMEM ? r : 0; /* a broken row stays as it is */
  chime_calendar *cal = NULL;
  if (t->calendar_name &&
      (r = chime__mysql_calendar_load(tx, t->calendar_name, false, &cal)) < 0) {
    chime_trigger_free(t);
    return r == CHIME_ENOTFOUND ? 0 : r;
  }
  t->schedule.calendar = cal;
  r = chime__mysql_trigger_recompute(tx, t, ret_moved);
  t->schedule.calendar = NULL;
  chime__calendar_unref(cal);
  chime_trigger_free(t);
  return r;
}

static int zone_batch_fn(chime__mysql_tx *tx, void *arg) {
  zone_op *op = arg;
  const char *g = op->after_group ? op->after_group : "";
  const char *n = op->after_name ? op->after_name : "";
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(g), chime__mysql_arg_text(g),
                          chime__mysql_arg_text(n),
                          chime__mysql_arg_text(op->name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, op->query, a, 5, &rows);
  assert(r < 0 || rows.nrows == 0 || rows.ncols == CHIME__TRIG_COL_COUNT);
  size_t moved = 0;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    bool m = false;
    r = recompute_row(tx, &rows, i, &m);
    moved += m;
  }
  if (r == 0 && rows.nrows > 0) {
    size_t last = rows.nrows - 1;
    char *lg =
        strdup(chime__mysql_rows_text(&rows, last, CHIME__TRIG_COL_GROUP));
    char *ln =
        strdup(chime__mysql_rows_text(&rows, last, CHIME__TRIG_COL_NAME));
    if (!lg || !ln) {
      free(lg);
      free(ln);
      r = CHIME_ENOMEM;
    } else {
      op->next_group = lg;
      op->next_name = ln;
    }
  }
  if (r == 0) {
    op->seen = rows.nrows;
    op->moved = moved;
  }
  chime__mysql_rows_free(&rows);
  return r;
}

/* The calendars that read time in a changed zone. */
typedef struct cal_scan {
  const char *const *zones;
  size_t count;
  char **names;
  size_t n;
} cal_scan;

static void cal_scan_reset(void *arg) {
  cal_scan *c = arg;
  for (size_t i = 0; i < c->n; i++)
    free(c->names[i]);
  free(c->names);
  c->names = NULL;
  c->n = 0;
}

static int cal_scan_fn(chime__mysql_tx *tx, void *arg) {
  cal_scan *c = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_CAL_LIST, a, 1, &rows);
  if (r == 0 && rows.nrows > 0 &&
      !(c->names = calloc(rows.nrows, sizeof *c->names)))
    r = CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    chime_calendar *cal = NULL;
    const char *text = chime__mysql_rows_text(&rows, i, 1);
    /* A calendar that no longer parses is left as it is. */
    if (!text || chime__calendar_from_string(text, &cal, NULL, 0) < 0)
      continue;
    if (chime__calendar_uses_zone(cal, c->zones, c->count) &&
        !(c->names[c->n++] = strdup(chime__mysql_rows_text(&rows, i, 0))))
      r = CHIME_ENOMEM;
    chime__calendar_unref(cal);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

/* The zone or calendar the cursor is at, and its query; false when done.
 * A cursor past the zones learns the calendars first (one transaction). */
static int cursor_at(chime__mysql_store *s, chime_zones_cursor *c,
                     const char *const *zones, size_t count,
                     chime__mysql_stmt_id *ret_query, const char **ret_name) {
  if (!c->calendars && c->zone < count) {
    *ret_query = CHIME__Q_TRIG_OF_ZONE;
    *ret_name = zones[c->zone];
    return 1;
  }
  if (!c->calendars) {
    cal_scan scan = {.zones = zones, .count = count};
    int r = chime__mysql_tx_run_hot(s, cal_scan_fn, cal_scan_reset, &scan);
    if (r < 0) {
      cal_scan_reset(&scan);
      return r;
    }
    c->cals = scan.names;
    c->ncals = scan.n;
    c->cal = 0;
    c->calendars = true;
  }
  if (c->cal >= c->ncals)
    return 0;
  *ret_query = CHIME__Q_TRIG_OF_CAL_BATCH;
  *ret_name = c->cals[c->cal];
  return 1;
}

int chime__mysql_recompute_zones(chime_store *store, const char *const *zones,
                                 size_t count, size_t max,
                                 chime_zones_cursor **cursor,
                                 size_t *ret_recomputed) {
  assert(cursor);
  chime_zones_cursor *c = *cursor;
  *cursor = NULL;
  if (count > 0 && !zones) {
    chime__zones_cursor_free(c);
    return CHIME_EINVAL;
  }
  if (!c && !(c = calloc(1, sizeof *c)))
    return CHIME_ENOMEM;
  chime__mysql_store *s = chime__mysql_store_of(store);
  size_t looked = 0, moved = 0;
  int r;
  for (;;) {
    chime__mysql_stmt_id query;
    const char *name;
    if ((r = cursor_at(s, c, zones, count, &query, &name)) <= 0)
      break;
    if (max > 0 && looked >= max)
      break; /* r == 1: more to do */
    zone_op op = {.query = query,
                  .name = name,
                  .after_group = c->after_group,
                  .after_name = c->after_name};
    r = chime__mysql_tx_run_hot(s, zone_batch_fn, zone_reset, &op);
    if (r < 0) {
      zone_reset(&op);
      break;
    }
    looked += op.seen;
    moved += op.moved;
    free(c->after_group);
    free(c->after_name);
    c->after_group = op.next_group;
    c->after_name = op.next_name;
    if (op.seen < CHIME__MYSQL_ZONE_BATCH) { /* this one is done */
      free(c->after_group);
      free(c->after_name);
      c->after_group = c->after_name = NULL;
      if (c->calendars)
        c->cal++;
      else
        c->zone++;
    }
  }
  if (r == 1)
    *cursor = c;
  else
    chime__zones_cursor_free(c);
  if (r >= 0 && ret_recomputed)
    *ret_recomputed = moved;
  return r;
}
