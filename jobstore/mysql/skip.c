/*
 * mysql/skip.c: FORBID_SKIP, REPLACE and a capped FORBID_QUEUE
 * (chime_concurrency, chime_job_set_queue_cap): when a run of such a job
 * completes and its triggers are unblocked, each fire time they missed
 * while it ran (FORBID_SKIP), each but the newest (REPLACE: the newest
 * replaces the run that held them up, which ignored its cancellation), or
 * each beyond the cap, oldest first (FORBID_QUEUE), is dropped (counted as
 * triggered) and recorded SKIPPED in the history, in the completion's
 * transaction, so that no due fire is lost silently and the job does not work
 * through an ever-growing backlog.
 *
 * Threads: the completion's (tx is its transaction).
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/result.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tables.h"

#include <assert.h>
#include <stdio.h>

/* History rows per trigger and completion; the last one counts the rest. */
#define SKIP_ROWS 100
/* Fire times dropped per trigger and completion at most (a trigger of a
 * few ms after a run of hours): the rest are dropped at the next one. */
#define SKIP_MAX INT64_C(1000000)

/* One history row: fire time at of trigger t was skipped (text: why). */
static void skip_row(chime__mysql_sqlbuf *b, chime__mysql_tx *tx,
                     const chime_trigger *t, int64_t at, int64_t now,
                     const char *text) {
  chime__mysql_sqlbuf_row(b, "row");
  chime__mysql_sqlbuf_at(b, "sched_name");
  chime__mysql_sqlbuf_text(b, tx->s->sched);
  const struct {
    const char *slot, *v;
  } texts[] = {{"trigger_group", t->group},
               {"trigger_name", t->name},
               {"job_group", t->job_group},
               {"job_name", t->job_name}};
  for (size_t k = 0; k < 4; k++) {
    chime__mysql_sqlbuf_at(b, texts[k].slot);
    chime__mysql_sqlbuf_text(b, texts[k].v);
  }
  chime__mysql_sqlbuf_at(b, "scheduled_ms");
  chime__mysql_sqlbuf_int(b, at);
  chime__mysql_sqlbuf_at(b, "node");
  chime__mysql_sqlbuf_text(b, tx->s->node);
  chime__mysql_sqlbuf_at(b, "error_text");
  chime__mysql_sqlbuf_text(b, text);
  chime__mysql_sqlbuf_at(b, "started_ms");
  chime__mysql_sqlbuf_int(b, now);
  chime__mysql_sqlbuf_at(b, "finished_ms");
  chime__mysql_sqlbuf_int(b, now);
}

/* Drops trigger t's times before now but the last keep and records them
 * unless record is false (the job's history level records no SKIPPED). */
static int skip_trigger(chime__mysql_tx *tx, chime_trigger *t, int64_t now,
                        int64_t keep, chime_concurrency concurrency,
                        bool record) {
  chime_calendar *cal = NULL;
  int r = chime__mysql_calendar_read(tx, t->calendar_name, &cal);
  if (r < 0 && r != CHIME_ENOTFOUND)
    return r;
  t->schedule.calendar = cal;
  int64_t drop =
      chime__trigger_queue_excess(&t->schedule, &t->state, now, keep, SKIP_MAX);
  char why[128];
  if (keep == 0)
    snprintf(why, sizeof why, "%s",
             "due while the job's previous run was going (FORBID_SKIP)");
  else if (concurrency == CHIME_CONCURRENCY_REPLACE)
    snprintf(why, sizeof why, "%s",
             "replaced by a newer fire: due while the job's previous run "
             "was going (REPLACE)");
  else
    snprintf(why, sizeof why,
             "beyond the FORBID_QUEUE cap of %lld waiting fire(s)",
             (long long)keep);
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SKIP_HISTORY_INSERT);
  int64_t rows = 0, total = 0;
  while (rows < SKIP_ROWS - 1 && drop > 0) {
    skip_row(&b, tx, t, t->state.next_fire_ms, now, why);
    chime__trigger_triggered(&t->schedule, &t->state);
    rows++;
    drop--;
  }
  int64_t first_rest = t->state.next_fire_ms;
  if (drop > 0)
    chime__trigger_skip_before(&t->schedule, &t->state, now, drop, &total,
                               &first_rest);
  if (total > 0) {
    char text[192];
    snprintf(text, sizeof text, "this and %lld more fire time(s) %s",
             (long long)(total - 1), why);
    skip_row(&b, tx, t, first_rest, now, text);
    rows++;
  }
  t->schedule.calendar = NULL;
  chime__calendar_unref(cal);
  if (rows == 0 || !record)
    chime__mysql_sqlbuf_free(&b);
  if (rows == 0)
    return 0;
  if (!chime__trigger_may_fire_again(&t->state))
    t->store_state = CHIME_STATE_COMPLETE;
  r = record ? chime__mysql_sqlbuf_run(&b, NULL, NULL) : 0;
  return r < 0 ? r : chime__mysql_trigger_save_state(tx, t);
}

int chime__mysql_skip_missed(chime__mysql_tx *tx, const char *group,
                             const char *name, int64_t now) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SKIP_CANDIDATES);
  chime__mysql_sqlbuf_key(&b, tx->s->sched, group, name);
  chime__mysql_sqlbuf_at(&b, "forbid_skip");
  chime__mysql_sqlbuf_int(&b, CHIME_CONCURRENCY_FORBID_SKIP);
  chime__mysql_sqlbuf_at(&b, "replace");
  chime__mysql_sqlbuf_int(&b, CHIME_CONCURRENCY_REPLACE);
  chime__mysql_sqlbuf_at(&b, "forbid_queue");
  chime__mysql_sqlbuf_int(&b, CHIME_CONCURRENCY_FORBID_QUEUE);
  chime__mysql_sqlbuf_at(&b, "now");
  chime__mysql_sqlbuf_int(&b, now);
  chime__mysql_sqlbuf_at(&b, "no_fire");
  chime__mysql_sqlbuf_int(&b, CHIME_NO_FIRE);
  /* A row another session holds keeps its missed times this time (they
   * are dropped at a later completion, or its misfire instruction applies)
   * rather than hold up this completion and the others of its batch. */
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    chime_trigger *t = NULL;
    if ((r = chime__mysql_trigger_from_row(&rows, i, &t)) < 0)
      break;
    chime_job policy = {
        .concurrency = (chime_concurrency)chime__mysql_rows_int64(
            &rows, i, CHIME__TRIG_COL_COUNT),
        .queue_cap =
            chime__mysql_rows_int64(&rows, i, CHIME__TRIG_COL_COUNT + 1),
        .history_level = (chime_history_level)chime__mysql_rows_int64(
            &rows, i, CHIME__TRIG_COL_COUNT + 2)};
    r = skip_trigger(tx, t, now, chime__queue_keep(&policy), policy.concurrency,
                     chime__history_wanted(&policy, false));
    chime_trigger_free(t);
  }
  chime__mysql_rows_free(&rows);
  return r;
}
