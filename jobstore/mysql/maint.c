/*
 * mysql/maint.c: the rest of the MySQL store's protocol: still_owned,
 * next_due, the misfire scan (small batches with SKIP LOCKED, oldest
 * first; it also unblocks the triggers a completion left BLOCKED because
 * another session held their rows) and check-in (on the heartbeat connection:
 * the nodes row stamped with the database's time, the clock offset measured
 * again and the time until another node's lease runs out read in the same two
 * statements; an idle node then trims the tables that grow: retain.c).
 * Recovery of dead nodes is in recover.c.
 *
 * Threads: checkin and next_due run on the heartbeat connection, under
 * beat_lock (tx.h); the engine calls checkin from its loop thread, one
 * call at a time.
 */
#include "jobstore/mysql/ops.h"

#include "core/clock.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"
#include "triggers/misfire.h"
#include "jobstore/mysql/limit.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct done_op {
  const chime_fire *fire;
  bool owned;
} done_op;

static int owned_fn(chime__mysql_tx *tx, void *arg) {
  done_op *op = arg;
  return chime__mysql_fire_owned(tx, op->fire, &op->owned);
}

int chime__mysql_still_owned(chime_store *store, const chime_fire *fire,
                             bool *ret_owned) {
  if (!fire || !ret_owned)
    return CHIME_EINVAL;
  done_op op = {.fire = fire};
  /* A job waits for the answer: bounded by about one check-in interval,
   * so an outage answers "cannot tell" (CHIME_ECONNECT, CHIME_EBUSY)
   * instead of holding the job for the whole reconnect budget. */
  chime__mysql_store *s = chime__mysql_store_of(store);
  int64_t budget =
      s->checkin_interval_ms > 1000 ? s->checkin_interval_ms : 1000;
  int r = chime__mysql_tx_run_within(s, owned_fn, &op, budget);
  if (r == 0)
    *ret_owned = op.owned;
  return r;
}

/* ------------------------------------------------------------- next_due */

typedef struct due_op {
  const chime_type_set *types;
  int64_t after;
  bool found;
  int64_t ms;
} due_op;

static int due_fn(chime__mysql_tx *tx, void *arg) {
  due_op *op = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_NEXT_DUE);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_part(&b, "after", op->after != INT64_MIN);
  if (op->after != INT64_MIN) {
    chime__mysql_sqlbuf_at(&b, "after");
    chime__mysql_sqlbuf_int(&b, op->after);
  }
  chime__mysql_sqlbuf_types(&b, op->types);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  /* The first due row, or none when nothing waits. */
  assert(r < 0 || rows.nrows <= 1);
  op->found = r == 0 && rows.nrows == 1;
  if (op->found)
    op->ms = chime__mysql_rows_int64(&rows, 0, 0);
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_next_due(chime_store *store, const chime_type_set *types,
                          int64_t after_ms, int64_t *ret_ms) {
  if (!ret_ms)
    return CHIME_EINVAL;
  if (types && types->count == 0)
    return CHIME_ENOTFOUND;
  due_op op = {.types = types, .after = after_ms};
  /* One plain SELECT: no transaction needed (the heartbeat connection); a
   * consistent read, so a row another session holds is read, never waited
   * for. */
  int r = chime__mysql_tx_run_beat(chime__mysql_store_of(store), due_fn, &op);
  if (r < 0)
    return r;
  if (!op.found)
    return CHIME_ENOTFOUND;
  *ret_ms = op.ms;
  return 0;
}

/* -------------------------------------------------------------- misfires */

/* Jobs whose triggers were left BLOCKED that one misfire scan unblocks at
 * most. */
#define UNBLOCK_BATCH 20
/* How long after the last trigger row an unblock passed over the scans
 * look for triggers left BLOCKED when they find none. */
#define UNBLOCK_LOOK_MS INT64_C(60000)

typedef struct misfire_op {
  int64_t now;
  size_t max;
  chime_trigger **done;
  size_t n;
  bool more;
  size_t unblocked; /* jobs found left BLOCKED (their rows may be held) */
} misfire_op;

static void misfire_reset(void *arg) {
  misfire_op *op = arg;
  for (size_t i = 0; i < op->n; i++)
    chime_trigger_free(op->done[i]);
  op->n = 0;
  op->more = false;
  op->unblocked = 0;
}

/* Applies the misfire instruction of t at now and stores it. */
static int misfire_one(chime__mysql_tx *tx, chime_trigger *t, int64_t now) {
  chime_calendar *cal = NULL;
  int r = chime__mysql_calendar_read(tx, t->calendar_name, &cal);
  if (r < 0 && r != CHIME_ENOTFOUND)
    return r;
  t->schedule.calendar = cal;
  t->misfired_ms = t->state.next_fire_ms;
  r = chime__trigger_apply_misfire(&t->schedule, &t->state, now);
  t->schedule.calendar = NULL;
  chime__calendar_unref(cal);
  if (r < 0)
    t->store_state = CHIME_STATE_ERROR;
  else if (!chime__trigger_may_fire_again(&t->state))
    t->store_state = CHIME_STATE_COMPLETE;
  return chime__mysql_trigger_save_state(tx, t);
}

static int misfire_fn(chime__mysql_tx *tx, void *arg) {
  misfire_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_int(op->now - tx->s->threshold_ms),
                          chime__mysql_arg_int((int64_t)op->max + 1)};
  chime__mysql_rows rows;
  int r = chime__mysql_limits_refresh(tx);
  if (r == 0 && tx->s->nlimited == 0) {
    r = chime__mysql_query(tx, CHIME__Q_MISFIRED, a, 3, &rows);
  } else if (r == 0) {
    /* CHIME__Q_MISFIRED past the limited types: their fires wait for
     * room, late but never misfired (docs/queue.md, "Limits"). */
    chime__mysql_sqlbuf b;
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_MISFIRED_UNLIMITED);
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    chime__mysql_sqlbuf_at(&b, "before");
    chime__mysql_sqlbuf_int(&b, op->now - tx->s->threshold_ms);
    chime__mysql_sqlbuf_limited(&b);
    chime__mysql_sqlbuf_at(&b, "max");
    chime__mysql_sqlbuf_int(&b, (int64_t)op->max + 1);
    r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  }
  if (r < 0)
    return r;
  assert(op->n == 0 && rows.nrows <= op->max + 1);
  op->more = rows.nrows > op->max;
  size_t n = op->more ? op->max : rows.nrows;
  chime_trigger **done = realloc(op->done, (n ? n : 1) * sizeof *done);
  if (done)
    op->done = done;
  else
    r = CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < n; i++) {
    chime_trigger *t;
    if ((r = chime__mysql_trigger_from_row(&rows, i, &t)) < 0)
      break;
    op->done[op->n++] = t;
    r = misfire_one(tx, t, op->now);
  }
  chime__mysql_rows_free(&rows);
  /* Triggers a completion left BLOCKED because another session held their
   * rows (tables.c): unblocked here once free, until none is left. */
  size_t found = 0;
  if (r == 0 && atomic_load(&tx->s->unblock_held_ms) != 0 &&
      (r = chime__mysql_unblock_orphans(tx, UNBLOCK_BATCH, &found)) == 0)
    op->unblocked = found;
  return r;
}

int chime__mysql_scan_misfires(chime_store *store, int64_t now_ms, size_t max,
                               chime_misfire_fn on_misfire, void *user_data,
                               size_t *ret_handled, bool *ret_more) {
  misfire_op op = {.now = now_ms, .max = max};
  chime__mysql_store *s = chime__mysql_store_of(store);
  int64_t held = atomic_load(&s->unblock_held_ms);
  int r = chime__mysql_tx_run_hot(s, misfire_fn, misfire_reset, &op);
  /* None left a minute after the last one was passed over (its
   * completion has long committed): stop looking. */
  if (r == 0 && held != 0 && op.unblocked == 0 &&
      chime__mono_ms() - held > UNBLOCK_LOOK_MS)
    atomic_compare_exchange_strong(&s->unblock_held_ms, &held, 0);
  for (size_t i = 0; r == 0 && on_misfire && i < op.n; i++)
    on_misfire(user_data, op.done[i]);
  size_t n = op.n;
  bool more = op.more;
  misfire_reset(&op);
  free(op.done);
  if (r < 0)
    return r;
  if (ret_handled)
    *ret_handled = n;
  if (ret_more)
    *ret_more = more;
  return 0;
}

/* ---------------------------------------------------------------- checkin */

typedef struct checkin_op {
  int64_t recover_in; /* -1: no other node */
  int64_t next_due;   /* INT64_MAX: no WAITING trigger */
  int drain_state;    /* chime_node_state (drain.c) */
  bool drain_overdue;
  bool runs_in_triggers; /* no other live node misses them (runs.c) */
} checkin_op;

/* On the heartbeat connection, two statements in all: the clock, the
 * other nodes' leases, the earliest WAITING trigger, this node's drain
 * request (drain.c) and whether every other live node reads runs kept in
 * trigger rows (runs.c) in one, then this node's check-in. */
static int checkin_fn(chime__mysql_tx *tx, void *arg) {
  checkin_op *op = arg;
  chime__mysql_store *s = tx->s;
  chime__mysql_arg l[] = {
      chime__mysql_arg_text(s->sched), chime__mysql_arg_text(s->sched),
      chime__mysql_arg_text(s->node),  chime__mysql_arg_text(s->sched),
      chime__mysql_arg_text(s->node),  chime__mysql_arg_text(s->sched),
      chime__mysql_arg_text(s->node)};
  chime__mysql_rows rows;
  int r = chime__mysql_clock_query(tx, CHIME__Q_NODES_LEASE, l, 7, &rows);
  if (r < 0)
    return r;
  /* An aggregate: one row; its MINs and SUM are NULL when no other node
   * (no WAITING trigger) is left, the drain's columns without a request. */
  assert(rows.nrows == 1 && rows.ncols == 6);
  op->recover_in = -1;
  if (!chime__mysql_rows_is_null(&rows, 0, 1)) {
    int64_t in = chime__mysql_rows_int64(&rows, 0, 1) -
                 chime__mysql_rows_int64(&rows, 0, 0);
    op->recover_in = in > 0 ? in : 0;
  }
  op->next_due = chime__mysql_rows_is_null(&rows, 0, 2)
                     ? INT64_MAX
                     : chime__mysql_rows_int64(&rows, 0, 2);
  int64_t now = chime__mysql_rows_int64(&rows, 0, 0);
  chime__mysql_drain_of_row(&rows, 3, &op->drain_state, &op->drain_overdue);
  op->runs_in_triggers = chime__mysql_rows_is_null(&rows, 0, 5) ||
                         chime__mysql_rows_int64(&rows, 0, 5) == 0;
  chime__mysql_rows_free(&rows);
  return chime__mysql_node_checkin(tx, now);
}

int chime__mysql_checkin(chime_store *store, int64_t now_ms,
                         int64_t *ret_recover_in_ms) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  checkin_op op = {.recover_in = -1, .next_due = INT64_MAX};
  int r = chime__mysql_tx_run_beat(s, checkin_fn, &op);
  if (r == 0 && ret_recover_in_ms)
    *ret_recover_in_ms = op.recover_in;
  if (r == 0) {
    s->checkin_next_due = op.next_due;
    s->checkin_drain_state = op.drain_state;
    s->checkin_drain_overdue = op.drain_overdue;
    atomic_store(&s->runs_in_triggers, op.runs_in_triggers);
  }
  (void)now_ms;
  /* An idle node keeps the tables bounded (retain.c); a busy one does it
   * on its completing thread, off this loop. */
  if (r == 0)
    chime__mysql_retain_checkin(s);
  return r;
}

int64_t chime__mysql_checkin_next_due(chime_store *store) {
  return chime__mysql_store_of(store)->checkin_next_due;
}
