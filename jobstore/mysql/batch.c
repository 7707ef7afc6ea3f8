/*
 * mysql/batch.c: the writes of the firing protocol, one statement per
 * batch rather than per fire (shared by acquire, acquire_due and fire),
 * and the per-batch cache of the jobs and calendars the fires use.
 *
 * Why batches: on a database a statement costs a round trip, a parse and
 * an optimisation, about as much as touching the rows themselves, so a
 * batch of fires written with a handful of statements costs little more
 * than one fire written the same way.
 */
#include "jobstore/mysql/batch.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/tables.h"
#include "triggers/calendar.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Appends one fired row's values. */
static void fired_values(chime__mysql_sqlbuf *b, const chime_fire *f,
                         int64_t now, bool executing) {
  chime__mysql_tx *tx = b->tx;
  const chime_trigger *t = f->trigger;
  assert(t && f->job && f->fire_id == 0 && t->job_group && t->job_name);
  chime__mysql_sqlbuf_row(b, "row");
  chime__mysql_sqlbuf_at(b, "sched_name");
  chime__mysql_sqlbuf_text(b, tx->s->sched);
  const struct {
    const char *slot, *v;
  } keys[] = {{"trigger_group", t->group},
              {"trigger_name", t->name},
              {"job_group", t->job_group},
              {"job_name", t->job_name}};
  for (size_t k = 0; k < 4; k++) {
    chime__mysql_sqlbuf_at(b, keys[k].slot);
    chime__mysql_sqlbuf_text(b, keys[k].v);
  }
  chime__mysql_sqlbuf_at(b, "scheduled_ms");
  chime__mysql_sqlbuf_int(b, f->scheduled_ms);
  chime__mysql_sqlbuf_at(b, "acquired_ms");
  chime__mysql_sqlbuf_int(b, now);
  chime__mysql_sqlbuf_at(b, "node");
  chime__mysql_sqlbuf_text(b, tx->s->node);
  chime__mysql_sqlbuf_at(b, "state");
  chime__mysql_sqlbuf_text(b, executing ? "EXECUTING" : "ACQUIRED");
  const struct {
    const char *slot;
    int64_t v;
  } flags[] = {{"forbid", chime__concurrency_exclusive(f->job->concurrency)},
               {"requests_recovery", f->job->requests_recovery},
               {"recovering", f->recovering},
               {"priority", t->schedule.priority},
               {"shard_parent", t->shard_parent}};
  for (size_t k = 0; k < 5; k++) {
    chime__mysql_sqlbuf_at(b, flags[k].slot);
    chime__mysql_sqlbuf_int(b, flags[k].v);
  }
  /* What a limited type's claim counts (acquire.c, limit.c). */
  chime__mysql_sqlbuf_at(b, "job_type");
  chime__mysql_sqlbuf_text(b, f->job->type);
  chime__mysql_sqlbuf_at(b, "partition_key");
  chime__mysql_sqlbuf_text(b, t->partition_key); /* NULL: SQL NULL */
}

/* Sets the fire ids of fires from the rows the INSERT made, when the
 * AUTO_INCREMENT ids of one multi-row INSERT need not be consecutive
 * (innodb_autoinc_lock_mode 2): this node's rows in that state from the
 * first id on are exactly these, since only the loop thread inserts fired
 * rows and earlier statements got smaller ids. */
static int read_ids(chime__mysql_tx *tx, chime_fire **fires, size_t n,
                    int64_t first, bool executing) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_FIRED_READ_IDS);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, tx->s->node);
  chime__mysql_sqlbuf_at(&b, "state");
  chime__mysql_sqlbuf_text(&b, executing ? "EXECUTING" : "ACQUIRED");
  chime__mysql_sqlbuf_at(&b, "first");
  chime__mysql_sqlbuf_int(&b, first);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  assert(rows.nrows == 0 || rows.ncols == 3);
  size_t matched = 0;
  for (size_t row = 0; row < rows.nrows; row++) {
    const char *g = chime__mysql_rows_text(&rows, row, 1);
    const char *name = chime__mysql_rows_text(&rows, row, 2);
    /* In insertion order unless the ids interleaved: try row's first. */
    for (size_t k = 0; k < n; k++) {
      chime_fire *f = fires[(row + k) % n];
      if (f->fire_id == 0 && strcmp(f->trigger->group, g) == 0 &&
          strcmp(f->trigger->name, name) == 0) {
        f->fire_id = chime__mysql_rows_int64(&rows, row, 0);
        matched++;
        break;
      }
    }
  }
  chime__mysql_rows_free(&rows);
  if (matched == n)
    return 0;
  chime__mysql_log(tx->s, CHIME_LOG_ERROR,
                   "inserted %zu fired rows but found %zu of them", n, matched);
  return CHIME_EINTERNAL;
}

int chime__mysql_fired_insert(chime__mysql_tx *tx, chime_fire **fires, size_t n,
                              int64_t now, bool executing) {
  assert(fires && n > 0);
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_FIRED_INSERT);
  for (size_t i = 0; i < n; i++)
    fired_values(&b, fires[i], now, executing);
  int r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
  int64_t first = (int64_t)mysql_insert_id(tx->c->db);
  if (r < 0 || tx->s->id_step == 0)
    return r < 0 ? r : read_ids(tx, fires, n, first, executing);
  assert(first > 0 && tx->s->id_step > 0);
  for (size_t i = 0; i < n; i++)
    fires[i]->fire_id = first + (int64_t)i * tx->s->id_step;
  return 0;
}

int chime__mysql_triggers_write(chime__mysql_tx *tx, chime_trigger *const *ts,
                                const chime_job *const *jobs,
                                chime_fire *const *fires, size_t n,
                                int64_t now) {
  assert(ts && jobs && n > 0);
  /* An INSERT whose rows all exist, locked by this transaction, so every
   * row takes the UPDATE branch: the cheapest multi-row update MySQL has.
   * The insert-only columns get the trigger's own values all the same. */
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_TRIGGERS_WRITE);
  for (size_t i = 0; i < n; i++) {
    const chime_trigger *t = ts[i];
    const chime_fire *kept =
        fires && fires[i]->in_trigger_row ? fires[i] : NULL;
    /* The states fire bookkeeping leaves a trigger in (and a kept run). */
    assert(t->store_state == CHIME_STATE_WAITING ||
           t->store_state == CHIME_STATE_BLOCKED ||
           t->store_state == CHIME_STATE_COMPLETE ||
           (kept && t->store_state == CHIME_STATE_EXECUTING));
    assert(!kept || (kept->trigger == t && kept->fire_id > 0));
    chime__mysql_sqlbuf_row(&b, "row");
    chime__mysql_sqlbuf_at(&b, "sched_name");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    const struct {
      const char *slot, *v;
    } texts[] = {{"trigger_group", t->group},
                 {"trigger_name", t->name},
                 {"job_group", t->job_group},
                 {"job_name", t->job_name},
                 {"job_type", jobs[i]->type}};
    for (size_t k = 0; k < 5; k++) {
      chime__mysql_sqlbuf_at(&b, texts[k].slot);
      chime__mysql_sqlbuf_text(&b, texts[k].v);
    }
    const struct {
      const char *slot;
      int64_t v;
    } nums[] = {{"kind", t->schedule.kind},
                {"start_set", t->start_set},
                {"start_ms", t->schedule.start_ms},
                {"end_ms", t->schedule.end_ms},
                {"misfire", t->schedule.misfire},
                {"priority", t->schedule.priority},
                {"next_fire_ms", t->state.next_fire_ms},
                {"prev_fire_ms", t->state.prev_fire_ms},
                {"times_triggered", t->state.times_triggered},
                {"state_start_ms", t->state.start_ms},
                {"state_repeat_count", t->state.repeat_count}};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
      chime__mysql_sqlbuf_at(&b, nums[k].slot);
      chime__mysql_sqlbuf_int(&b, nums[k].v);
    }
    chime__mysql_sqlbuf_at(&b, "state");
    chime__mysql_sqlbuf_text(&b, chime__mysql_state_name(t->store_state));
    /* The run it keeps (NULL: none, as every other write leaves it). */
    chime__mysql_sqlbuf_at(&b, "owner");
    chime__mysql_sqlbuf_text(&b, kept ? tx->s->node : NULL);
    const char *const slots[] = {"claim_fire_id", "run_acquired_ms"};
    const int64_t run[] = {kept ? kept->fire_id : 0, now};
    for (size_t k = 0; k < 2; k++) {
      chime__mysql_sqlbuf_at(&b, slots[k]);
      if (kept)
        chime__mysql_sqlbuf_int(&b, run[k]);
      else
        chime__mysql_sqlbuf_text(&b, NULL);
    }
  }
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

int chime__mysql_jobs_block(chime__mysql_tx *tx, const chime_job *const *jobs,
                            size_t n) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < n; i++) {
    const chime_job *j = jobs[i];
    if (!chime__concurrency_exclusive(j->concurrency))
      continue;
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++)
      seen = strcmp(jobs[k]->group, j->group) == 0 &&
             strcmp(jobs[k]->name, j->name) == 0;
    if (!seen)
      r = chime__mysql_job_block(tx, j->group, j->name);
  }
  return r;
}

/* ---------------------------------------------------------------- cache */

void chime__mysql_cache_clear(chime__mysql_cache *c) {
  for (size_t i = 0; i < c->njobs; i++)
    chime_job_free(c->jobs[i]);
  for (size_t i = 0; i < c->ncals; i++) {
    free(c->cal_names[i]);
    chime__calendar_unref(c->cals[i]);
  }
  free(c->jobs);
  free(c->cal_names);
  free(c->cals);
  memset(c, 0, sizeof *c);
}

int chime__mysql_cache_job(chime__mysql_tx *tx, chime__mysql_cache *c,
                           const char *group, const char *name,
                           const chime_job **ret) {
  assert(c && group && name && ret);
  for (size_t i = 0; i < c->njobs; i++)
    if (strcmp(c->jobs[i]->group, group) == 0 &&
        strcmp(c->jobs[i]->name, name) == 0) {
      *ret = c->jobs[i];
      return 0;
    }
  chime_job **jobs = realloc(c->jobs, (c->njobs + 1) * sizeof *jobs);
  if (!jobs)
    return CHIME_ENOMEM;
  c->jobs = jobs;
  chime_job *j = NULL;
  int r = chime__mysql_job_load(tx, group, name, false, &j, NULL);
  if (r == 0 && chime__concurrency_exclusive(j->concurrency)) {
    /* Locked: its triggers are about to be blocked. */
    chime_job_free(j);
    j = NULL;
    r = chime__mysql_job_load(tx, group, name, true, &j, NULL);
  }
  if (r < 0)
    return r;
  c->jobs[c->njobs++] = j;
  *ret = j;
  return 0;
}

/* The calendar named name (NULL for none or when it was removed). */
static int cache_calendar(chime__mysql_tx *tx, chime__mysql_cache *c,
                          const char *name, chime_calendar **ret) {
  *ret = NULL;
  if (!name)
    return 0;
  for (size_t i = 0; i < c->ncals; i++)
    if (strcmp(c->cal_names[i], name) == 0) {
      *ret = c->cals[i];
      return 0;
    }
  char **names = realloc(c->cal_names, (c->ncals + 1) * sizeof *names);
  if (names)
    c->cal_names = names;
  chime_calendar **cals =
      names ? realloc(c->cals, (c->ncals + 1) * sizeof *cals) : NULL;
  if (!cals)
    return CHIME_ENOMEM;
  c->cals = cals;
  chime_calendar *cal = NULL;
  int r = chime__mysql_calendar_read(tx, name, &cal);
  if (r == CHIME_ENOTFOUND)
    return 0;
  if (r < 0)
    return r;
  if (!(c->cal_names[c->ncals] = strdup(name))) {
    chime__calendar_unref(cal);
    return CHIME_ENOMEM;
  }
  c->cals[c->ncals++] = cal;
  *ret = cal;
  return 0;
}

int chime__mysql_fire_bookkeeping(chime__mysql_tx *tx, chime__mysql_cache *c,
                                  chime_trigger *t, const chime_job *job) {
  assert(t && job && !t->schedule.calendar);
  assert(strcmp(t->job_group, job->group) == 0 &&
         strcmp(t->job_name, job->name) == 0);
  chime_calendar *cal;
  int r = cache_calendar(tx, c, t->calendar_name, &cal);
  if (r < 0)
    return r;
  t->schedule.calendar = cal;
  chime__trigger_triggered(&t->schedule, &t->state);
  t->schedule.calendar = NULL;
  t->store_state =
      !chime__trigger_may_fire_again(&t->state)        ? CHIME_STATE_COMPLETE
      : chime__concurrency_exclusive(job->concurrency) ? CHIME_STATE_BLOCKED
                                                       : CHIME_STATE_WAITING;
  return 0;
}
