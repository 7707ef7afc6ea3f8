/*
 * mysql/tables.c: the single-row reads and writes the MySQL store's
 * operations share (tables.h).  Keys are bound as (scheduler, group,
 * name), the order of every table's primary key.
 */
#include "jobstore/mysql/tables.h"

#include "core/clock.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/runs.h"
#include "triggers/calendar.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* CHIME_NO_FIRE in SQL: {no_fire} of the .sql files. */
_Static_assert(CHIME_NO_FIRE == INT64_MIN,
               "CHIME__MYSQL_NO_FIRE_SQL (stmt.h) is INT64_MIN");

void chime__mysql_key_args(const chime__mysql_tx *tx, const char *group,
                           const char *name, chime__mysql_arg a[3]) {
  assert(group && name);
  a[0] = chime__mysql_arg_text(tx->s->sched);
  a[1] = chime__mysql_arg_text(group);
  a[2] = chime__mysql_arg_text(name);
}

int chime__mysql_key_has_row(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                             const char *group, const char *name, bool *ret) {
  chime__mysql_arg a[3];
  chime__mysql_rows rows;
  chime__mysql_key_args(tx, group, name, a);
  int r = chime__mysql_query(tx, id, a, 3, &rows);
  *ret = r == 0 && rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_job_load(chime__mysql_tx *tx, const char *group,
                          const char *name, bool lock, chime_job **ret,
                          bool *ret_paused) {
  chime__mysql_arg a[3];
  chime__mysql_rows rows;
  chime__mysql_key_args(tx, group, name, a);
  int r = chime__mysql_query(
      tx, lock ? CHIME__Q_JOB_GET_LOCK : CHIME__Q_JOB_GET, a, 3, &rows);
  if (r == 0) {
    assert(rows.nrows <= 1); /* the primary key */
    r = rows.nrows ? chime__mysql_job_from_row(&rows, 0, ret, ret_paused)
                   : CHIME_ENOTFOUND;
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_job_write(chime__mysql_tx *tx, const chime_job *j,
                           bool exists) {
  assert(j && j->group && j->name && j->type);
  const char *tags = j->required_tags ? j->required_tags : "";
  chime__mysql_arg f[] = {chime__mysql_arg_text(j->type),
                          chime__mysql_arg_text(j->description),
                          chime__mysql_arg_bytes(j->data, j->data_len),
                          chime__mysql_arg_int(j->durable),
                          chime__mysql_arg_int(j->requests_recovery),
                          chime__mysql_arg_int(j->concurrency),
                          chime__mysql_arg_int(j->persist_data),
                          chime__mysql_arg_int(j->timeout_ms),
                          chime__mysql_arg_int(j->starting_deadline_ms),
                          chime__mysql_arg_int(j->retry.max_attempts),
                          chime__mysql_arg_int(j->retry.initial_delay_ms),
                          chime__mysql_arg_int(j->retry.multiplier_milli),
                          chime__mysql_arg_int(j->retry.max_delay_ms),
                          chime__mysql_arg_int(j->retry.jitter_ms),
                          chime__mysql_arg_int(j->queue_cap),
                          chime__mysql_arg_int(j->retry.timed_out),
                          chime__mysql_arg_int(j->shard_count),
                          chime__mysql_arg_text(j->shard_params),
                          chime__mysql_arg_text(tags),
                          chime__mysql_arg_int(j->history_level),
                          chime__mysql_arg_text(j->then_group),
                          chime__mysql_arg_text(j->then_name)};
  enum { NF = sizeof f / sizeof f[0] };
  chime__mysql_arg k[3];
  chime__mysql_key_args(tx, j->group, j->name, k);
  /* INSERT takes the key first, UPDATE last. */
  chime__mysql_arg a[NF + 3];
  size_t at = exists ? NF : 0;
  for (size_t i = 0; i < 3; i++)
    a[at + i] = k[i];
  at = exists ? 0 : 3;
  for (size_t i = 0; i < NF; i++)
    a[at + i] = f[i];
  if (!exists)
    return chime__mysql_exec(tx, CHIME__Q_JOB_INSERT, a, NF + 3, NULL, NULL);
  int r = chime__mysql_exec(tx, CHIME__Q_JOB_UPDATE, a, NF + 3, NULL, NULL);
  chime__mysql_arg t[] = {chime__mysql_arg_text(j->type),
                          chime__mysql_arg_text(tags), k[0], k[1], k[2]};
  return r < 0 ? r
               : chime__mysql_exec(tx, CHIME__Q_JOB_SET_TYPE, t, 5, NULL, NULL);
}

/* Whether job j (its key's arguments) is durable, its row locked by
 * statement id; a job that is gone counts as durable (nothing to remove). */
static int job_durable(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                       chime__mysql_arg *j, bool *ret) {
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, id, j, 3, &rows);
  *ret = r < 0 || rows.nrows == 0 || chime__mysql_rows_int64(&rows, 0, 0) != 0;
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_job_gc(chime__mysql_tx *tx, const char *job_group,
                        const char *job_name) {
  chime__mysql_arg j[3];
  chime__mysql_key_args(tx, job_group, job_name, j);
  /* Most jobs are durable (every enqueued run's): a read without a lock
   * answers that without making every node's completions of the job wait
   * for each other; only a job that may go is locked for it, and asked
   * again.  (Not a shared lock: two completions of one non-durable job,
   * its shards, would each hold one and wait for the other's to lock the
   * row for the update: a deadlock.) */
  bool durable;
  int r = job_durable(tx, CHIME__Q_JOB_DURABLE_READ, j, &durable);
  if (r == 0 && !durable)
    r = job_durable(tx, CHIME__Q_JOB_LOCK, j, &durable);
  if (r < 0 || durable)
    return r;
  bool left;
  if ((r = chime__mysql_key_has_row(tx, CHIME__Q_JOB_HAS_TRIGGERS, job_group,
                                    job_name, &left)) < 0 ||
      left)
    return r;
  return chime__mysql_exec(tx, CHIME__Q_JOB_DELETE, j, 3, NULL, NULL);
}

/* The statements of job_triggers_set: the job's triggers to change,
 * locked; the change, by primary key; those left (held), not locked. */
typedef struct job_triggers_stmts {
  chime__mysql_stmt_id lock, set, held;
} job_triggers_stmts;

/* Starts b on statement id of job g.n (its slots sched, group, name). */
static void job_triggers_stmt(chime__mysql_sqlbuf *b, chime__mysql_stmt_id id,
                              const char *group, const char *name) {
  chime__mysql_sqlbuf_stmt(b, id);
  chime__mysql_sqlbuf_key(b, b->tx->s->sched, group, name);
}

void chime__mysql_keys_stmt(chime__mysql_sqlbuf *b, chime__mysql_tx *tx,
                            chime__mysql_stmt_id id, const char *const *groups,
                            const char *const *names, size_t n) {
  chime__mysql_sqlbuf_init(b, tx);
  chime__mysql_sqlbuf_stmt(b, id);
  chime__mysql_sqlbuf_json_keys(b, "keys", groups, names, n);
  chime__mysql_sqlbuf_at(b, "sched");
  chime__mysql_sqlbuf_text(b, tx->s->sched);
}

/* Changes job g.n's triggers (q.set) that q.lock finds, passing over the
 * rows another session holds (a DBA's SELECT ... FOR UPDATE, a stuck
 * client): waiting for one would hold up the whole transaction, the claims
 * or completions of every other trigger in it.  log_held: say at WARN
 * which ones were passed over (q.held, read again without locking). */
static int job_triggers_set(chime__mysql_tx *tx, const char *group,
                            const char *name, job_triggers_stmts q,
                            const char *log_held) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  job_triggers_stmt(&b, q.lock, group, name);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  assert(rows.nrows == 0 || rows.ncols == 2);
  if (rows.nrows > 0) {
    /* By primary key: only the rows locked above. */
    const char **gs = malloc(rows.nrows * sizeof *gs);
    const char **ns = malloc(rows.nrows * sizeof *ns);
    if (!gs || !ns)
      r = CHIME_ENOMEM;
    for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
      gs[i] = chime__mysql_rows_text(&rows, i, 0);
      ns[i] = chime__mysql_rows_text(&rows, i, 1);
    }
    if (r == 0) {
      chime__mysql_keys_stmt(&b, tx, q.set, gs, ns, rows.nrows);
      r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
    }
    free(gs);
    free(ns);
  }
  chime__mysql_rows_free(&rows);
  if (r < 0 || !log_held)
    return r;
  chime__mysql_sqlbuf_init(&b, tx);
  job_triggers_stmt(&b, q.held, group, name);
  if ((r = chime__mysql_sqlbuf_run(&b, &rows, NULL)) < 0)
    return r;
  if (rows.nrows > 0)
    atomic_store(&tx->s->unblock_held_ms, chime__mono_ms());
  for (size_t i = 0; i < rows.nrows; i++)
    chime__mysql_log(tx->s, CHIME_LOG_WARN,
                     "trigger %s.%s (job %s.%s): its row is held by another "
                     "session: %s",
                     chime__mysql_rows_text(&rows, i, 0),
                     chime__mysql_rows_text(&rows, i, 1), group, name,
                     log_held);
  chime__mysql_rows_free(&rows);
  return 0;
}

int chime__mysql_job_block(chime__mysql_tx *tx, const char *group,
                           const char *name) {
  /* A held row stays WAITING: harmless, no trigger of a job with a fire
   * is claimed (acquire.c). */
  return job_triggers_set(tx, group, name,
                          (job_triggers_stmts){CHIME__Q_JOB_BLOCK_LOCK,
                                               CHIME__Q_JOB_BLOCK_SET,
                                               CHIME__Q_COUNT},
                          NULL);
}

/* log: say which rows were passed over (the misfire scan's second tries
 * do not repeat it). */
static int job_unblock(chime__mysql_tx *tx, const char *group, const char *name,
                       bool log) {
  bool busy;
  int r =
      chime__mysql_key_has_row(tx, CHIME__Q_JOB_EXECUTING, group, name, &busy);
  if (r < 0 || busy)
    return r;
  return job_triggers_set(
      tx, group, name,
      (job_triggers_stmts){CHIME__Q_JOB_UNBLOCK_LOCK, CHIME__Q_JOB_UNBLOCK_SET,
                           CHIME__Q_JOB_UNBLOCK_HELD},
      log ? "left blocked until it is free (the misfire scan unblocks it "
            "then)"
          : NULL);
}

int chime__mysql_job_unblock(chime__mysql_tx *tx, const char *group,
                             const char *name) {
  return job_unblock(tx, group, name, true);
}

int chime__mysql_unblock_orphans(chime__mysql_tx *tx, size_t max,
                                 size_t *ret_found) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_int((int64_t)max)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_JOBS_BLOCKED_IDLE, a, 2, &rows);
  assert(r < 0 || rows.nrows == 0 || rows.ncols == 2);
  *ret_found = r == 0 ? rows.nrows : 0;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++)
    r = job_unblock(tx, chime__mysql_rows_text(&rows, i, 0),
                    chime__mysql_rows_text(&rows, i, 1), false);
  chime__mysql_rows_free(&rows);
  return r;
}

static int calendar_get(chime__mysql_tx *tx, const char *name,
                        chime__mysql_stmt_id id, chime_calendar **ret) {
  *ret = NULL;
  if (!name)
    return 0;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, id, a, 2, &rows);
  if (r == 0 && rows.nrows == 0)
    r = CHIME_ENOTFOUND;
  else if (r == 0)
    r = chime__calendar_from_string(chime__mysql_rows_text(&rows, 0, 0), ret,
                                    NULL, 0);
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_calendar_load(chime__mysql_tx *tx, const char *name, bool lock,
                               chime_calendar **ret) {
  return calendar_get(tx, name, lock ? CHIME__Q_CAL_GET_LOCK : CHIME__Q_CAL_GET,
                      ret);
}

int chime__mysql_calendar_read(chime__mysql_tx *tx, const char *name,
                               chime_calendar **ret) {
  return calendar_get(tx, name, CHIME__Q_CAL_READ, ret);
}

int chime__mysql_trigger_load(chime__mysql_tx *tx, const char *group,
                              const char *name, bool lock,
                              chime_trigger **ret) {
  chime__mysql_arg a[3];
  chime__mysql_rows rows;
  chime__mysql_key_args(tx, group, name, a);
  *ret = NULL;
  int r = chime__mysql_query(
      tx, lock ? CHIME__Q_TRIG_GET_LOCK : CHIME__Q_TRIG_GET, a, 3, &rows);
  if (r == 0 && rows.nrows) {
    assert(rows.nrows == 1); /* the primary key */
    r = chime__mysql_trigger_from_row(&rows, 0, ret);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_trigger_save_state(chime__mysql_tx *tx,
                                    const chime_trigger *t) {
  assert(t && t->group && t->name);
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
  return chime__mysql_exec(tx, CHIME__Q_TRIG_SET_FIRE_STATE, a, 9, NULL, NULL);
}

int chime__mysql_trigger_delete(chime__mysql_tx *tx, const char *group,
                                const char *name, const char *job_group,
                                const char *job_name, bool cascade) {
  assert(!cascade || (job_group && job_name));
  chime__mysql_arg a[3];
  chime__mysql_key_args(tx, group, name, a);
  /* A running fire outlives its trigger in its fired row: a run kept in
   * the trigger's row (runs.c) moves to one first. */
  int r = chime__mysql_runs_spill(
      tx, &(chime__mysql_runs_of){.group = group, .name = name}, NULL);
  if (r == 0)
    r = chime__mysql_exec(tx, CHIME__Q_TRIG_DELETE, a, 3, NULL, NULL);
  if (r < 0 || !cascade)
    return r;
  return chime__mysql_job_gc(tx, job_group, job_name);
}

/* Keeps keyed run t's COMPLETE row, and its key, for its unique period
 * (chime_enqueue_set_unique_for_ms) from now, by the database's clock. */
static int hold_key(chime__mysql_tx *tx, const chime_trigger *t) {
  chime__mysql_arg a[4];
  a[0] =
      chime__mysql_arg_int(chime__mysql_now(&tx->s->base) + t->unique_for_ms);
  chime__mysql_key_args(tx, t->group, t->name, a + 1);
  return chime__mysql_exec(tx, CHIME__Q_TRIG_HOLD_KEY, a, 4, NULL, NULL);
}

static int by_job(const void *a, const void *b) {
  const chime_trigger *x = *(chime_trigger *const *)a;
  const chime_trigger *y = *(chime_trigger *const *)b;
  int c = strcmp(x->job_group, y->job_group);
  return c ? c : strcmp(x->job_name, y->job_name);
}

/* Removes each job of the deleted triggers ts[0 .. n) that is not durable
 * and has no trigger left, once per job, in the order of their keys (two
 * batches lock jobs in one order). */
static int jobs_gc(chime__mysql_tx *tx, chime_trigger **ts, size_t n) {
  qsort(ts, n, sizeof *ts, by_job);
  int r = 0;
  for (size_t i = 0; r == 0 && i < n; i++)
    if (i == 0 || by_job(&ts[i - 1], &ts[i]) != 0)
      r = chime__mysql_job_gc(tx, ts[i]->job_group, ts[i]->job_name);
  return r;
}

/* Whether trigger row k of rows keeps the run of one of runs[0 .. n). */
static bool keeps_one_of(const chime__mysql_rows *rows, size_t k,
                         const int64_t *runs, size_t n) {
  if (chime__mysql_rows_is_null(rows, k, CHIME__TRIG_COL_CLAIM_FIRE_ID))
    return false;
  int64_t id = chime__mysql_rows_int64(rows, k, CHIME__TRIG_COL_CLAIM_FIRE_ID);
  for (size_t i = 0; i < n; i++)
    if (runs[i] == id)
      return true;
  return false;
}

int chime__mysql_triggers_remove_if_complete(chime__mysql_tx *tx,
                                             const char *const *groups,
                                             const char *const *names, size_t n,
                                             const int64_t *runs,
                                             size_t nruns) {
  if (n == 0)
    return 0;
  chime__mysql_sqlbuf b;
  chime__mysql_keys_stmt(&b, tx, CHIME__Q_TRIG_GET_LOCK_MANY, groups, names, n);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  /* gone[k]: trigger k of the rows is deleted (its key below). */
  chime_trigger **gone = calloc(rows.nrows + 1, sizeof *gone);
  const char **gs = calloc(rows.nrows + 1, sizeof *gs);
  const char **ns = calloc(rows.nrows + 1, sizeof *ns);
  size_t ngone = 0;
  if (!gone || !gs || !ns)
    r = CHIME_ENOMEM;
  for (size_t k = 0; r == 0 && k < rows.nrows; k++) {
    chime_trigger *t = NULL;
    r = chime__mysql_trigger_from_row(&rows, k, &t);
    if (r < 0)
      break;
    bool hold = chime__trigger_keyed(t) && t->unique_for_ms > 0 &&
                t->held_until_ms == 0;
    bool complete = t->store_state == CHIME_STATE_COMPLETE ||
                    (t->store_state == CHIME_STATE_EXECUTING &&
                     keeps_one_of(&rows, k, runs, nruns));
    if (!complete || hold) {
      if (complete)
        r = hold_key(tx, t);
      chime_trigger_free(t);
      continue;
    }
    gs[ngone] = t->group;
    ns[ngone] = t->name;
    gone[ngone++] = t;
  }
  chime__mysql_rows_free(&rows);
  if (r == 0 && ngone > 0) {
    chime__mysql_keys_stmt(&b, tx, CHIME__Q_TRIG_DELETE_MANY, gs, ns, ngone);
    r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
  }
  if (r == 0 && ngone > 0)
    r = jobs_gc(tx, gone, ngone);
  for (size_t k = 0; k < ngone; k++)
    chime_trigger_free(gone[k]);
  free(gone);
  free(gs);
  free(ns);
  return r;
}

int chime__mysql_trigger_take_over(chime__mysql_tx *tx, const chime_trigger *t,
                                   int64_t run_id) {
  if (!chime__trigger_keyed(t))
    return 0;
  chime__mysql_arg a[4];
  chime__mysql_key_args(tx, t->group, t->name, a);
  a[3] = chime__mysql_arg_int(run_id);
  return chime__mysql_exec(tx, CHIME__Q_TRIG_TAKE_OVER, a, 4, NULL, NULL);
}

int chime__mysql_fired_get(chime__mysql_tx *tx, int64_t id,
                           chime__mysql_rows *rows) {
  assert(id > 0);
  chime__mysql_arg a[] = {chime__mysql_arg_int(id),
                          chime__mysql_arg_text(tx->s->sched)};
  int r = chime__mysql_query(tx, CHIME__Q_FIRED_GET, a, 2, rows);
  size_t moved = 0;
  if (r == 0 && rows->nrows == 0) /* a run kept in its trigger row? */
    r = chime__mysql_runs_spill(tx, &(chime__mysql_runs_of){.fire_id = id},
                                &moved);
  if (r == 0 && moved > 0) {
    chime__mysql_rows_free(rows);
    r = chime__mysql_query(tx, CHIME__Q_FIRED_GET, a, 2, rows);
  }
  assert(r < 0 ||
         (rows->nrows <= 1 &&
          (rows->nrows == 0 || rows->ncols == CHIME__FIRED_COL_COUNT)));
  return r;
}

int chime__mysql_fire_owned(chime__mysql_tx *tx, const chime_fire *f,
                            bool *ret_owned) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_FIRED_OWNED);
  chime__mysql_sqlbuf_at(&b, "fire_id");
  chime__mysql_sqlbuf_int(&b, f->fire_id);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, tx->s->node);
  chime__mysql_sqlbuf_part(&b, "kept", f->in_trigger_row);
  if (f->in_trigger_row) {
    chime__mysql_sqlbuf_key(&b, tx->s->sched, f->trigger->group,
                            f->trigger->name);
    chime__mysql_sqlbuf_at(&b, "run_id");
    chime__mysql_sqlbuf_int(&b, f->fire_id);
    chime__mysql_sqlbuf_at(&b, "owner");
    chime__mysql_sqlbuf_text(&b, tx->s->node);
  }
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  *ret_owned = r == 0 && rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_claim_return(chime__mysql_tx *tx, const char *group,
                              const char *name, int64_t id) {
  assert(id > 0);
  chime__mysql_arg a[] = {
      chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(group),
      chime__mysql_arg_text(name), chime__mysql_arg_int(id)};
  int r = chime__mysql_exec(tx, CHIME__Q_TRIG_UNCLAIM, a, 4, NULL, NULL);
  return r < 0 ? r
               : chime__mysql_exec(tx, CHIME__Q_FIRED_DELETE, &a[3], 1, NULL,
                                   NULL);
}

int chime__mysql_fire_end(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                          size_t i) {
  assert(fr && i < fr->nrows && fr->ncols >= CHIME__FIRED_COL_COUNT);
#define TEXT(id) chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_##id)
  chime__mysql_arg id =
      chime__mysql_arg_int(chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID));
  int r = chime__mysql_exec(tx, CHIME__Q_FIRED_DELETE, &id, 1, NULL, NULL);
  if (r == 0 && chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_FORBID))
    r = chime__mysql_job_unblock(tx, TEXT(JOB_GROUP), TEXT(JOB_NAME));
  const char *group = TEXT(TRIGGER_GROUP), *name = TEXT(TRIGGER_NAME);
  if (r == 0)
    r = chime__mysql_triggers_remove_if_complete(tx, &group, &name, 1, NULL, 0);
#undef TEXT
  return r;
}

int chime__mysql_group_paused(chime__mysql_tx *tx, const char *group,
                              bool *ret) {
  chime__mysql_arg a = chime__mysql_arg_text(tx->s->sched);
  chime__mysql_rows rows;
  *ret = false;
  int r = chime__mysql_query(tx, CHIME__Q_PG_LIST, &a, 1, &rows);
  for (size_t i = 0; r == 0 && i < rows.nrows && !*ret; i++)
    *ret =
        chime__group_matches((chime_match)chime__mysql_rows_int64(&rows, i, 0),
                             chime__mysql_rows_text(&rows, i, 1), group);
  chime__mysql_rows_free(&rows);
  return r;
}
