/*
 * mysql/complete.c: complete for the MySQL store, written in batches.
 *
 * Each worker calls complete for its own fire and waits for the answer.
 * Rather than one transaction (and one log flush) per fire, the waiting
 * completions queue up and one of the waiting threads writes everything
 * queued in one transaction, a constant number of statements however many
 * fires it holds, then hands the answers out: flat combining.  With one
 * fire at a time this is exactly the old single completion; under load the
 * batches grow by themselves, without a timer adding latency.
 *
 * A completion ends an EXECUTING fire of this node (fencing, otherwise
 * CHIME_ENOTOWNER for that fire alone), saves job data, deletes the fired
 * row, unblocks a FORBID job, removes a trigger that has COMPLETEd (with
 * the run it kept, runs.c: such a fire has no fired row unless something
 * moved it to one) and writes history (with each run's own data: its
 * trigger's, migration 015).
 *
 * One bad row never takes a batch down: when a batch fails for anything but
 * a lost connection (a history row the database refuses, say), its
 * completions are written one by one, so only the bad one fails; that one
 * is then written again with a plain failure message, and at last without
 * its history row, so that its fire is completed (its FORBID job unblocked)
 * rather than left EXECUTING for good.  Messages are made valid UTF-8
 * (core/utf8.h) before they are sent.
 *
 * Threads and locks: any worker thread calls complete.  s->done_mu guards
 * the queue (done_head, done_tail, done_busy) and every queued request's
 * result and finished flag; a request lives on its caller's stack until
 * finished is set under done_mu.  At most one thread writes at a time
 * (done_busy): it takes up to COMPLETE_BATCH requests off the queue, then
 * releases done_mu for its transaction (which takes the pool's lock, tx.h),
 * so done_mu is never held with another lock or across a round trip.  A
 * waiting thread sleeps on its own request's condition variable.
 */
#include "jobstore/mysql/ops.h"

#include "core/utf8.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/shards.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many completions are written in one transaction. */
#define COMPLETE_BATCH 256

/* The batch queries' columns: a fired row's, then the trigger's state
 * (complete_lock_fired.sql, and complete_lock_runs.sql for runs kept in
 * trigger rows). */
enum { COL_TRIGGER_STATE = CHIME__FIRED_COL_COUNT, NCOLS };

struct chime__mysql_completion {
  const chime_fire *fire;
  const chime_run_result *outcome;
  int64_t now;
  int result;
  size_t row;   /* its fired row in the batch's result; SIZE_MAX: none */
  bool kept;    /* that row is its run kept in its trigger row (runs.c) */
  bool retried; /* this attempt's transaction stores a retry of the fire */
  bool finished;
  /* The statements its job gave to the completion (outcome->writes): one
   * was refused in this attempt (writes_failed, why says how); the run is
   * then written as failed without them (writes_refused, outcome points
   * to refused: write_batch). */
  bool writes_failed;
  bool writes_refused;
  chime_run_result refused;
  char why[256];
  /* Its thread waits on this, so a finished batch wakes only its own
   * threads and the next writer, not every waiting worker. */
  pthread_cond_t wake;
  chime__mysql_completion *next;
};

/* How a batch writes its history rows: as they are, each failure message
 * replaced by a plain one, or not at all (the last resort of a lone
 * completion the database keeps refusing). */
typedef enum { HISTORY_AS_IS, HISTORY_PLAIN, HISTORY_NONE } history_mode;

/* The message written in place of one the database refused. */
static const char plain_message[] =
    "job failed (its failure message could not be stored)";

typedef struct batch {
  chime__mysql_completion **reqs;
  size_t n;
  history_mode history;
  chime__mysql_rows fired;
  chime__mysql_rows runs;        /* the runs kept in trigger rows (runs.c) */
  chime__mysql_shards_done done; /* sharded fires this batch ended */
} batch;

static void batch_reset(void *arg) {
  batch *b = arg;
  chime__mysql_rows_free(&b->fired);
  chime__mysql_rows_free(&b->runs);
  chime__mysql_shards_done_clear(&b->done);
}

/* The rows completion d's row is in: a fired row's columns either way. */
static const chime__mysql_rows *rows_of(const batch *b,
                                        const chime__mysql_completion *d) {
  return d->kept ? &b->runs : &b->fired;
}

/* Whether completion d writes its rows in this attempt: it succeeds, and
 * its fired row is there (not deleted by an earlier attempt's COMMIT whose
 * reply was lost). */
static bool writes(const chime__mysql_completion *d) {
  return d->result == 0 && d->row != SIZE_MAX;
}

/* The times a completion's history row carries: when its run started and
 * finished (the completion's own time when the run did not say). */
static int64_t run_finished_ms(const chime__mysql_completion *d) {
  const chime_run_result *o = d->outcome;
  return o && o->finished_ms ? o->finished_ms : d->now;
}

static int64_t run_started_ms(const chime__mysql_completion *d) {
  return d->outcome ? d->outcome->started_ms : run_finished_ms(d);
}

/* Whether completion d's run gets a history row under its job's history
 * level: a run that ended OK only at CHIME_HISTORY_ALL, any other at
 * ALL and FAILURES.  A sharded job's runs always do (the spread of a
 * sharded fire over nodes counts its shards' rows, shards.c). */
static bool records(const chime__mysql_completion *d) {
  const chime_run_result *o = d->outcome;
  const chime_trigger *t = d->fire->trigger;
  bool ok = !d->retried && !(o && o->error) &&
            !(o && o->status && strcmp(o->status, "OK") != 0);
  const chime_job *j = d->fire->job;
  return (t && t->shard_parent > 0) || (j && j->shard_count != 0) ||
         chime__history_wanted(j, ok);
}

/*
 * Retrying after a lost COMMIT reply, a fired row that is gone was deleted
 * either by that COMMIT or by someone else while this node was cut off: a
 * survivor that recovered the fire, an operator who cancelled it
 * (chime__mysql_fire_finish, which writes a history row of its own).  Only
 * the history tells which: the COMMIT wrote this run's own row (this node,
 * the run's start and end, its error code).  A completion whose row is
 * there is done (result 0); any other stays CHIME_ENOTOWNER, with one
 * exception: a batch written without history (HISTORY_NONE), or a run its
 * job's history level does not record, leaves no row of its own, so there
 * a fire that nobody else recorded either (a node that ends another's fire
 * records it whatever the level) is counted as completed by the COMMIT.  The
 * history is read by its (sched_name, fire_id) index (migration 015), the rows
 * no earlier than another node could have ended one of these fires (no earlier
 * than it was due, less a clock margin: the (sched_name, finished_ms) index
 * serves that bound too).
 */
static int find_own_commit(chime__mysql_tx *tx, batch *b) {
  int64_t from = INT64_MAX;
  for (size_t i = 0; i < b->n; i++) {
    const chime__mysql_completion *d = b->reqs[i];
    if (d->row != SIZE_MAX)
      continue;
    int64_t t = run_finished_ms(d);
    if (d->fire->scheduled_ms - 60000 < t)
      t = d->fire->scheduled_ms - 60000;
    if (t < from)
      from = t;
  }
  assert(from != INT64_MAX);
  chime__mysql_sqlbuf sql;
  chime__mysql_sqlbuf_init(&sql, tx);
  chime__mysql_sqlbuf_stmt(&sql, CHIME__Q_COMPLETE_HISTORY_CHECK);
  chime__mysql_sqlbuf_at(&sql, "sched");
  chime__mysql_sqlbuf_text(&sql, tx->s->sched);
  chime__mysql_sqlbuf_at(&sql, "since");
  chime__mysql_sqlbuf_int(&sql, from);
  for (size_t i = 0; i < b->n; i++) {
    if (b->reqs[i]->row != SIZE_MAX)
      continue;
    chime__mysql_sqlbuf_row(&sql, "fire_ids");
    chime__mysql_sqlbuf_at(&sql, "id");
    chime__mysql_sqlbuf_int(&sql, b->reqs[i]->fire->fire_id);
  }
  chime__mysql_rows h;
  int r = chime__mysql_sqlbuf_run(&sql, &h, NULL);
  if (r < 0)
    return r;
  assert(h.nrows == 0 || h.ncols == 5);
  for (size_t i = 0; i < b->n; i++) {
    chime__mysql_completion *d = b->reqs[i];
    if (d->row != SIZE_MAX)
      continue;
    bool recorded = false, own = false;
    for (size_t row = 0; row < h.nrows; row++) {
      if (chime__mysql_rows_int64(&h, row, 0) != d->fire->fire_id)
        continue;
      recorded = true;
      own = own ||
            (strcmp(chime__mysql_rows_text(&h, row, 1), tx->s->node) == 0 &&
             chime__mysql_rows_int64(&h, row, 2) ==
                 (d->outcome ? d->outcome->error : 0) &&
             chime__mysql_rows_int64(&h, row, 3) == run_started_ms(d) &&
             chime__mysql_rows_int64(&h, row, 4) == run_finished_ms(d));
    }
    if (own || (!recorded && (b->history == HISTORY_NONE || !records(d))))
      d->result = 0;
  }
  chime__mysql_rows_free(&h);
  return 0;
}

/* Sets completion d's row from rows (those of kept or not) when one is
 * its fire's: still this node's and EXECUTING (result 0), or another's
 * (CHIME_ENOTOWNER, and found: looked for no further). */
static bool match_row(chime__mysql_tx *tx, const chime__mysql_rows *rows,
                      bool kept, chime__mysql_completion *d) {
  for (size_t row = 0; row < rows->nrows; row++) {
    if (chime__mysql_rows_is_null(rows, row, CHIME__FIRED_COL_ID) ||
        chime__mysql_rows_int64(rows, row, CHIME__FIRED_COL_ID) !=
            d->fire->fire_id)
      continue;
    const char *node = chime__mysql_rows_text(rows, row, CHIME__FIRED_COL_NODE);
    if (strcmp(chime__mysql_rows_text(rows, row, CHIME__FIRED_COL_STATE),
               "EXECUTING") == 0 &&
        node && strcmp(node, tx->s->node) == 0) {
      d->result = 0;
      d->row = row;
      d->kept = kept;
    }
    return true;
  }
  return false;
}

/* Locks the trigger rows of the batch's runs kept in them (runs.c), by
 * their keys alone (_triggers_by_keys.sql), and sets the completions of
 * those still there (found[i]; a run not found there was moved to a fired
 * row, or is gone). */
static int lock_runs(chime__mysql_tx *tx, batch *b, bool *found) {
  const char *groups[COMPLETE_BATCH], *names[COMPLETE_BATCH];
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++) {
    const chime_fire *f = b->reqs[i]->fire;
    bool seen = !f->in_trigger_row;
    /* A row keeps one run: its key comes once, but the list takes no
     * chance (_triggers_by_keys.sql wants each key once). */
    for (size_t k = 0; k < n && !seen; k++)
      seen = strcmp(groups[k], f->trigger->group) == 0 &&
             strcmp(names[k], f->trigger->name) == 0;
    if (seen)
      continue;
    groups[n] = f->trigger->group;
    names[n++] = f->trigger->name;
  }
  if (n == 0)
    return 0;
  chime__mysql_sqlbuf sql;
  chime__mysql_keys_stmt(&sql, tx, CHIME__Q_COMPLETE_LOCK_RUNS, groups, names,
                         n);
  int r = chime__mysql_sqlbuf_run(&sql, &b->runs, NULL);
  if (r < 0)
    return r;
  assert(b->runs.nrows == 0 || b->runs.ncols == NCOLS);
  for (size_t i = 0; i < b->n; i++)
    found[i] = b->reqs[i]->fire->in_trigger_row &&
               match_row(tx, &b->runs, true, b->reqs[i]);
  return 0;
}

/* Locks the batch's rows, the runs kept in trigger rows first (lock_runs),
 * then the fired rows of the others and of the kept runs not found there,
 * by their ids alone (_fired_by_ids.sql), and decides, per fire, whether
 * this node still runs it.  COL_TRIGGER_STATE is the trigger's state
 * (NULL when it is gone), read, for a fired row, without locking the
 * trigger: a subquery of a locking read does not lock, and the trigger is
 * most likely being claimed again by now (its next fire), which a lock
 * here would wait for. */
static int lock_fired(chime__mysql_tx *tx, batch *b) {
  assert(b->n > 0 && b->n <= COMPLETE_BATCH);
  for (size_t i = 0; i < b->n; i++) {
    chime__mysql_completion *d = b->reqs[i];
    d->result = CHIME_ENOTOWNER;
    d->row = SIZE_MAX;
    d->kept = false;
  }
  bool in_runs[COMPLETE_BATCH] = {false};
  int r = lock_runs(tx, b, in_runs);
  if (r < 0)
    return r;
  int64_t ids[COMPLETE_BATCH];
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++)
    if (!in_runs[i])
      ids[n++] = b->reqs[i]->fire->fire_id;
  if (n > 0) {
    chime__mysql_sqlbuf sql;
    chime__mysql_sqlbuf_init(&sql, tx);
    chime__mysql_sqlbuf_stmt(&sql, CHIME__Q_COMPLETE_LOCK_FIRED);
    chime__mysql_sqlbuf_fired_by_ids(&sql, ids, n);
    if ((r = chime__mysql_sqlbuf_run(&sql, &b->fired, NULL)) < 0)
      return r;
    assert(b->fired.nrows <= n);
    assert(b->fired.nrows == 0 || b->fired.ncols == NCOLS);
  }
  bool gone = false;
  for (size_t i = 0; i < b->n; i++) {
    chime__mysql_completion *d = b->reqs[i];
    if (!in_runs[i])
      (void)match_row(tx, &b->fired, false, d);
    gone = gone || d->row == SIZE_MAX;
  }
  return tx->commit_lost && gone ? find_own_commit(tx, b) : 0;
}

/* Whether a failure r of a job's statement is the statement's own (the
 * server refused it), not the connection's or the server's state. */
static bool refused_by_server(const chime__mysql_tx *tx, int r) {
  return r != CHIME_EBUSY && r != CHIME_ECONNECT && r != CHIME_ENOMEM &&
         !chime__mysql_lost(tx->last_errno) &&
         !chime__mysql_read_only_error(tx->last_errno);
}

/* Whether two job statements are the same text with as many parameters:
 * run together for their rows. */
static bool same_statement(const chime_run_write *a, const chime_run_write *b) {
  return a->nparams == b->nparams && strcmp(a->sql, b->sql) == 0;
}

/* Runs the statements of round[0 .. m) (one per fire), those of the same
 * text together (chime__mysql_job_stmt_run_many).  A statement run alone
 * that the server refused marks its fire (writes_failed, why); one run
 * with others marks none: the batch is then written fire by fire
 * (write_isolating), where each runs alone. */
static int run_round(chime__mysql_tx *tx, chime__mysql_job_stmt *js,
                     chime__mysql_completion **fires,
                     const chime_run_write **round, size_t m,
                     const char *const **rows, bool *taken) {
  memset(taken, 0, m * sizeof *taken);
  int r = 0;
  for (size_t j = 0; r == 0 && j < m; j++) {
    if (taken[j])
      continue;
    size_t k = 0;
    for (size_t l = j; l < m; l++)
      if (!taken[l] && same_statement(round[l], round[j])) {
        taken[l] = true;
        rows[k++] = (const char *const *)round[l]->params;
      }
    chime__mysql_completion *d = fires[j];
    tx->errbuf = d->why;
    tx->errbuf_len = sizeof d->why;
    r = chime__mysql_job_stmt_run_many(tx, js, round[j]->sql, rows, k,
                                       round[j]->nparams, NULL);
    d->writes_failed = r < 0 && k == 1 && refused_by_server(tx, r);
  }
  return r;
}

/* Runs the statements each job gave to its fire's completion
 * (chime_ctx_complete_with) for the fires this node still runs (a fire
 * taken over writes none: the other node's run does).  Each run's own
 * statements keep their order: round k runs every fire's k-th statement.
 * One refused fails the batch; write_batch then writes its fire alone
 * without them. */
static int run_writes(chime__mysql_tx *tx, batch *b) {
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++)
    n += writes(b->reqs[i]) && b->reqs[i]->outcome &&
         b->reqs[i]->outcome->writes;
  if (n == 0) /* the common case: no job gave any */
    return 0;
  chime__mysql_completion **fires = calloc(n, sizeof *fires);
  const chime_run_write **next = calloc(n, sizeof *next);
  const chime_run_write **round = calloc(n, sizeof *round);
  const char *const **rows = calloc(n, sizeof *rows);
  bool *taken = calloc(n, sizeof *taken);
  int r = fires && next && round && rows && taken ? 0 : CHIME_ENOMEM;
  size_t nf = 0;
  for (size_t i = 0; r == 0 && i < b->n; i++) {
    chime__mysql_completion *d = b->reqs[i];
    if (writes(d) && d->outcome && d->outcome->writes) {
      fires[nf] = d;
      next[nf++] = d->outcome->writes;
    }
  }
  char *errbuf = tx->errbuf;
  size_t errbuf_len = tx->errbuf_len;
  chime__mysql_job_stmt js = {0};
  while (r == 0 && nf > 0) {
    /* This round: each fire's next statement (fires[0 .. m) then have one
     * each, in round[]); a fire with none left drops out. */
    size_t m = 0;
    for (size_t i = 0; i < nf; i++) {
      if (!next[i])
        continue;
      round[m] = next[i];
      fires[m] = fires[i];
      next[m] = round[m]->next;
      m++;
    }
    nf = m;
    if (m > 0)
      r = run_round(tx, &js, fires, round, m, rows, taken);
  }
  chime__mysql_job_stmt_close(&js);
  if (r < 0 && errbuf && errbuf_len && tx->errbuf != errbuf)
    snprintf(errbuf, errbuf_len, "%s", tx->errbuf); /* the caller's too */
  tx->errbuf = errbuf;
  tx->errbuf_len = errbuf_len;
  free(fires);
  free(next);
  free(round);
  free(rows);
  free(taken);
  return r;
}

/* Completion d's job statements were refused: its run is written as
 * failed (and retried as its job says), without them. */
static void refuse_writes(chime__mysql_store *s, chime__mysql_completion *d) {
  assert(d->outcome && d->outcome->writes && !d->writes_refused);
  chime__mysql_log(s, CHIME_LOG_WARN,
                   "fire %lld: a statement its job gave to the completion "
                   "was refused (%s): the run is recorded failed, none of "
                   "its statements written",
                   (long long)d->fire->fire_id, d->why);
  d->refused = *d->outcome;
  d->refused.error = CHIME_EJOBFAILED;
  d->refused.status = NULL;
  d->refused.writes = NULL;
  char msg[sizeof d->why];
  snprintf(msg, sizeof msg, "%s", d->why);
  snprintf(d->why, sizeof d->why,
           "a statement given to the completion was refused: %.190s", msg);
  d->refused.message = d->why;
  d->outcome = &d->refused;
  d->writes_refused = true;
}

/* Saves the job data a run set, when its job keeps data. */
static int save_data(chime__mysql_tx *tx, const batch *b,
                     const chime__mysql_completion *d) {
  const chime_run_result *o = d->outcome;
  assert(d->result == 0 && d->row < rows_of(b, d)->nrows && o && o->set_data);
  const char *jg =
      chime__mysql_rows_text(rows_of(b, d), d->row, CHIME__FIRED_COL_JOB_GROUP);
  const char *jn =
      chime__mysql_rows_text(rows_of(b, d), d->row, CHIME__FIRED_COL_JOB_NAME);
  chime_job *job = NULL;
  int r = chime__mysql_job_load(tx, jg, jn, true, &job, NULL);
  chime__mysql_arg a[] = {chime__mysql_arg_bytes(o->data, o->data_len),
                          chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(jg), chime__mysql_arg_text(jn)};
  if (r == 0 && job->persist_data)
    r = chime__mysql_exec(tx, CHIME__Q_JOB_SET_DATA, a, 4, NULL, NULL);
  else if (r == CHIME_ENOTFOUND)
    r = 0;
  chime_job_free(job);
  return r;
}

/* Removes the triggers whose finished fire was their last, together,
 * with the runs kept in them (runs.c). */
static int remove_completed(chime__mysql_tx *tx, const batch *b) {
  const char **groups = calloc(b->n, sizeof *groups);
  const char **names = calloc(b->n, sizeof *names);
  int64_t *runs = calloc(b->n, sizeof *runs);
  if (!groups || !names || !runs) {
    free(groups);
    free(names);
    free(runs);
    return CHIME_ENOMEM;
  }
  size_t n = 0, nruns = 0;
  for (size_t i = 0; i < b->n; i++) {
    const chime__mysql_completion *d = b->reqs[i];
    const char *state =
        writes(d)
            ? chime__mysql_rows_text(rows_of(b, d), d->row, COL_TRIGGER_STATE)
            : NULL;
    /* Checked again under the lock: it may have been replaced since (a
     * kept run's retry took its row over, store_retries). */
    if (!state || (strcmp(state, "COMPLETE") != 0 && !d->kept))
      continue;
    if (d->kept)
      runs[nruns++] = d->fire->fire_id;
    groups[n] = chime__mysql_rows_text(rows_of(b, d), d->row,
                                       CHIME__FIRED_COL_TRIGGER_GROUP);
    names[n++] = chime__mysql_rows_text(rows_of(b, d), d->row,
                                        CHIME__FIRED_COL_TRIGGER_NAME);
  }
  int r = chime__mysql_triggers_remove_if_complete(tx, groups, names, n, runs,
                                                   nruns);
  free(groups);
  free(names);
  free(runs);
  return r;
}

/* Deletes the fired rows of the fires that still succeed, by their ids
 * alone (_fired_by_ids.sql). */
static int delete_fired(chime__mysql_tx *tx, const batch *b) {
  assert(b->n <= COMPLETE_BATCH);
  int64_t ids[COMPLETE_BATCH];
  size_t owned = 0;
  for (size_t i = 0; i < b->n; i++)
    if (b->reqs[i]->result == 0 && !b->reqs[i]->kept)
      ids[owned++] = b->reqs[i]->fire->fire_id;
  if (owned == 0) /* no fired row of ours to delete (kept: runs.c) */
    return 0;
  chime__mysql_sqlbuf sql;
  chime__mysql_sqlbuf_init(&sql, tx);
  chime__mysql_sqlbuf_stmt(&sql, CHIME__Q_COMPLETE_DELETE_FIRED);
  chime__mysql_sqlbuf_fired_by_ids(&sql, ids, owned);
  return chime__mysql_sqlbuf_run(&sql, NULL, NULL);
}

/* Unblocks each FORBID job of the batch once its fires are gone. */
static int unblock_jobs(chime__mysql_tx *tx, const batch *b) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < b->n; i++) {
    const chime__mysql_completion *d = b->reqs[i];
    if (!writes(d) || !chime__mysql_rows_int64(rows_of(b, d), d->row,
                                               CHIME__FIRED_COL_FORBID))
      continue;
    const char *group = chime__mysql_rows_text(rows_of(b, d), d->row,
                                               CHIME__FIRED_COL_JOB_GROUP);
    const char *name = chime__mysql_rows_text(rows_of(b, d), d->row,
                                              CHIME__FIRED_COL_JOB_NAME);
    r = chime__mysql_job_unblock(tx, group, name);
    if (r == 0)
      r = chime__mysql_skip_missed(tx, group, name, d->now);
  }
  return r;
}

/* Stores the retry of each failed fire whose job wants another attempt
 * (jobstore/retry.c), after unblock_jobs so a FORBID job's retry waits
 * rather than starting BLOCKED.  It starts as any new trigger of its job
 * does (PAUSED while the job or group CHIME_RETRY is paused, as in the
 * memory store); none for a job removed meanwhile.  The name comes from
 * the fire id, and a fire is completed once, so no retry is stored twice;
 * a keyed run's retry is its own trigger again, replacing its COMPLETE
 * row (remove_completed then finds it WAITING and keeps it). */
static int store_retries(chime__mysql_tx *tx, const batch *b) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < b->n; i++) {
    chime__mysql_completion *d = b->reqs[i];
    chime_trigger *t = NULL;
    d->retried = false;
    if (writes(d))
      r = chime__retry_for(d->fire, d->outcome, d->now, &t);
    if (r == 0 && t)
      r = chime__trigger_prepare(t, NULL, d->now, NULL, 0);
    bool job = false;
    if (r == 0 && t)
      r = chime__mysql_trigger_start_state(tx, t, &job, &t->store_state);
    if (r == 0 && t && job)
      r = chime__mysql_trigger_take_over(tx, t, d->kept ? d->fire->fire_id : 0);
    if (r == 0 && t && job) {
      chime__mysql_arg a[CHIME__MYSQL_TRIGGER_INSERT_ARGS];
      chime__mysql_trigger_to_args(tx->s->sched, t, d->fire->job, a);
      r = chime__mysql_exec(tx, CHIME__Q_TRIG_INSERT, a,
                            CHIME__MYSQL_TRIGGER_INSERT_ARGS, NULL, NULL);
      d->retried = r == 0;
    }
    chime_trigger_free(t);
  }
  return r;
}

/* The runs' own data one history INSERT carries at most before the next
 * row starts another (hex doubles it): a batch of runs with large data
 * (CHIME_MAX_DATA_LEN each) stays far below max_allowed_packet (16 MiB by
 * default), and a batch of ordinary runs (no data of their own) is still
 * one statement. */
#define HISTORY_DATA_PER_INSERT (2 * 1024 * 1024)

/* Appends completion d's history row, "(...)", to sql. */
static int history_row(chime__mysql_tx *tx, const batch *b,
                       const chime__mysql_completion *d,
                       chime__mysql_sqlbuf *sql) {
  const chime_run_result *o = d->outcome;
  int code = o ? o->error : 0;
  int64_t fin = run_finished_ms(d), started = run_started_ms(d);
  chime__mysql_sqlbuf_row(sql, "row");
  chime__mysql_sqlbuf_at(sql, "sched_name");
  chime__mysql_sqlbuf_text(sql, tx->s->sched);
  chime__mysql_sqlbuf_at(sql, "fire_id");
  chime__mysql_sqlbuf_int(sql, d->fire->fire_id);
  static const struct {
    const char *slot;
    size_t col;
  } texts[] = {{"trigger_group", CHIME__FIRED_COL_TRIGGER_GROUP},
               {"trigger_name", CHIME__FIRED_COL_TRIGGER_NAME},
               {"job_group", CHIME__FIRED_COL_JOB_GROUP},
               {"job_name", CHIME__FIRED_COL_JOB_NAME}};
  for (size_t k = 0; k < 4; k++) {
    chime__mysql_sqlbuf_at(sql, texts[k].slot);
    chime__mysql_sqlbuf_text(
        sql, chime__mysql_rows_text(rows_of(b, d), d->row, texts[k].col));
  }
  chime__mysql_sqlbuf_at(sql, "scheduled_ms");
  const chime_trigger *ft = d->fire->trigger;
  chime__mysql_sqlbuf_int(
      sql, ft && ft->retry_scheduled_ms > 0
               ? ft->retry_scheduled_ms
               : chime__mysql_rows_int64(rows_of(b, d), d->row,
                                         CHIME__FIRED_COL_SCHEDULED_MS));
  chime__mysql_sqlbuf_at(sql, "node");
  chime__mysql_sqlbuf_text(sql, tx->s->node);
  chime__mysql_sqlbuf_at(sql, "outcome");
  chime__mysql_sqlbuf_text(sql, d->retried       ? "RETRIED"
                                : o && o->status ? o->status
                                : code           ? "FAILED"
                                                 : "OK");
  chime__mysql_sqlbuf_at(sql, "error_code");
  chime__mysql_sqlbuf_int(sql, code);
  chime__mysql_sqlbuf_at(sql, "error_text");
  if (o && o->message && b->history == HISTORY_PLAIN) {
    chime__mysql_sqlbuf_text(sql, plain_message);
  } else if (o && o->message) {
    char *text = chime__utf8_sanitize(o->message, CHIME_MAX_DESCRIPTION_LEN);
    if (!text)
      return CHIME_ENOMEM;
    chime__mysql_sqlbuf_text(sql, text);
    free(text);
  } else {
    chime__mysql_sqlbuf_text(sql, NULL);
  }
  bool shard = ft && ft->shard_parent > 0;
  const struct {
    const char *slot;
    int64_t v;
  } nums[] = {
      {"started_ms", started},
      {"duration_ms", fin - started},
      {"recovering", chime__mysql_rows_int64(rows_of(b, d), d->row,
                                             CHIME__FIRED_COL_RECOVERING)},
      {"finished_ms", fin},
      {"shard_parent", shard ? ft->shard_parent : 0},
      {"shard_index", shard ? ft->shard_index : -1}};
  for (size_t k = 0; k < 6; k++) {
    chime__mysql_sqlbuf_at(sql, nums[k].slot);
    chime__mysql_sqlbuf_int(sql, nums[k].v);
  }
  /* The run's own data (its trigger's), NULL when it used its job's. */
  size_t len = 0;
  const void *data = chime__fire_own_data(d->fire, &len);
  chime__mysql_sqlbuf_at(sql, "data");
  chime__mysql_sqlbuf_bytes(sql, data, len);
  return 0;
}

/* The batch's history: one multi-row INSERT, more when the runs' own data
 * passes HISTORY_DATA_PER_INSERT. */
static int write_history(chime__mysql_tx *tx, const batch *b) {
  if (b->history == HISTORY_NONE)
    return 0;
  int r = 0;
  for (size_t i = 0; r == 0 && i < b->n;) {
    chime__mysql_sqlbuf sql;
    chime__mysql_sqlbuf_init(&sql, tx);
    chime__mysql_sqlbuf_stmt(&sql, CHIME__Q_COMPLETE_HISTORY_INSERT);
    size_t rows = 0, data = 0;
    for (; r == 0 && i < b->n && data < HISTORY_DATA_PER_INSERT; i++) {
      const chime__mysql_completion *d = b->reqs[i];
      if (!writes(d) || !records(d))
        continue;
      size_t len = 0;
      (void)chime__fire_own_data(d->fire, &len);
      data += len;
      rows++;
      r = history_row(tx, b, d, &sql);
    }
    if (r == 0 && rows > 0)
      r = chime__mysql_sqlbuf_run(&sql, NULL, NULL);
    else
      chime__mysql_sqlbuf_free(&sql);
  }
  return r;
}

/* Deletes the checkpoints of the runs that wrote or read one, or were
 * recovered (and may have found one): a checkpoint ends with its run. */
static int drop_checkpoints(chime__mysql_tx *tx, const batch *b) {
  int64_t *ids = malloc(b->n * sizeof *ids);
  if (!ids)
    return CHIME_ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++) {
    const chime__mysql_completion *d = b->reqs[i];
    if (writes(d) &&
        ((d->outcome && d->outcome->checkpointed) || d->fire->recovering))
      ids[n++] = chime__fire_run_id(d->fire);
  }
  int r = 0;
  if (n > 0) {
    chime__mysql_sqlbuf sql;
    chime__mysql_sqlbuf_init(&sql, tx);
    chime__mysql_sqlbuf_stmt(&sql, CHIME__Q_COMPLETE_DROP_CHECKPOINTS);
    chime__mysql_sqlbuf_sorted_ids(&sql, "run_ids", ids, n);
    chime__mysql_sqlbuf_at(&sql, "sched");
    chime__mysql_sqlbuf_text(&sql, tx->s->sched);
    r = chime__mysql_sqlbuf_run(&sql, NULL, NULL);
  }
  free(ids);
  return r;
}

/* A shard that ended for good in this batch. */
typedef struct shard_done {
  int64_t parent;
  int index;
  bool failed;
} shard_done;

static int by_parent(const void *a, const void *b) {
  const shard_done *x = a, *y = b;
  return (x->parent > y->parent) - (x->parent < y->parent);
}

/* Counts down the sharded fires of the shards the batch ended (not those
 * retried), in fire id order so that two batches lock them in one order. */
static int end_shards(chime__mysql_tx *tx, batch *b) {
  shard_done *ends = NULL;
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++) {
    const chime__mysql_completion *d = b->reqs[i];
    const chime_trigger *t = d->fire->trigger;
    if (!writes(d) || d->retried || !t || t->shard_parent <= 0)
      continue;
    if (!ends && !(ends = calloc(b->n, sizeof *ends)))
      return CHIME_ENOMEM;
    ends[n++] = (shard_done){.parent = t->shard_parent,
                             .index = t->shard_index,
                             .failed = d->outcome && d->outcome->error != 0};
  }
  if (n > 1)
    qsort(ends, n, sizeof *ends, by_parent);
  int r = 0;
  for (size_t i = 0; r == 0 && i < n; i++)
    r = chime__mysql_shard_ended(tx, ends[i].parent, ends[i].index,
                                 ends[i].failed, &b->done);
  free(ends);
  return r;
}

static int batch_fn(chime__mysql_tx *tx, void *arg) {
  batch *b = arg;
  for (size_t i = 0; i < b->n; i++)
    b->reqs[i]->writes_failed = false;
  int r = lock_fired(tx, b);
  if (r == 0)
    r = run_writes(tx, b);
  for (size_t i = 0; r == 0 && i < b->n; i++) {
    const chime__mysql_completion *d = b->reqs[i];
    if (writes(d) && d->outcome && d->outcome->set_data)
      r = save_data(tx, b, d);
  }
  if (r == 0)
    r = delete_fired(tx, b);
  if (r == 0)
    r = unblock_jobs(tx, b);
  /* The retry first: it keeps a non-durable job whose last trigger
   * completed (the job of a one-shot trigger) from being removed. */
  if (r == 0)
    r = store_retries(tx, b);
  if (r == 0)
    r = remove_completed(tx, b);
  if (r == 0)
    r = write_history(tx, b);
  if (r == 0)
    r = drop_checkpoints(tx, b);
  if (r == 0)
    r = end_shards(tx, b);
  return r;
}

/* Writes the n completions at reqs in one transaction and sets their
 * results.  A lone completion the database refuses is written again with a
 * plain message, then without history.  Returns: 0 or the batch's error.
 * s->done_mu not held. */
static int write_batch(chime__mysql_store *s, chime__mysql_completion **reqs,
                       size_t n) {
  batch b = {.reqs = reqs, .n = n};
  int r;
  for (;;) {
    r = chime__mysql_tx_run(s, batch_fn, batch_reset, &b, NULL, 0);
    chime__mysql_rows_free(&b.fired);
    chime__mysql_rows_free(&b.runs);
    if (r == 0)
      chime__mysql_shards_tell(s, &b.done); /* committed */
    chime__mysql_shards_done_clear(&b.done);
    if (r < 0 && n == 1 && reqs[0]->writes_failed) {
      refuse_writes(s, reqs[0]);
      continue;
    }
    if (r == 0 || r == CHIME_ECONNECT || r == CHIME_ENOMEM || n > 1 ||
        b.history == HISTORY_NONE)
      break;
    b.history++;
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "the completion of fire %lld was refused (%s): writing "
                     "it again %s",
                     (long long)reqs[0]->fire->fire_id, chime_err_name(r),
                     b.history == HISTORY_PLAIN ? "with a plain message"
                                                : "without its history row");
  }
  for (size_t i = 0; r < 0 && i < n; i++)
    reqs[i]->result = r;
  return r;
}

/* Writes the n completions at reqs as one batch, and when the batch fails
 * for anything but a lost connection, one by one, so that only a bad one
 * fails (and that one is still completed, write_batch).  Sets each
 * result.  s->done_mu not held. */
static void write_isolating(chime__mysql_store *s,
                            chime__mysql_completion **reqs, size_t n) {
  int r = write_batch(s, reqs, n);
  if (r < 0 && r != CHIME_ECONNECT && r != CHIME_ENOMEM && n > 1) {
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "a batch of %zu completions failed (%s): writing them "
                     "one by one",
                     n, chime_err_name(r));
    for (size_t i = 0; i < n; i++)
      (void)write_batch(s, &reqs[i], 1);
  }
}

/* Writes the queued completions, at most COMPLETE_BATCH of them, taken from
 * the queue's head.  s->done_mu held; released while writing. */
static void write_some(chime__mysql_store *s) {
  chime__mysql_completion *reqs[COMPLETE_BATCH];
  size_t n = 0;
  assert(!s->done_busy && s->done_head);
  assert(pthread_mutex_trylock(&s->done_mu) == EBUSY); /* held */
  s->done_busy = true;
  while (s->done_head && n < COMPLETE_BATCH) {
    reqs[n++] = s->done_head;
    s->done_queued--;
    s->done_head = s->done_head->next;
  }
  if (!s->done_head)
    s->done_tail = NULL;
  pthread_mutex_unlock(&s->done_mu);
  write_isolating(s, reqs, n);
  pthread_mutex_lock(&s->done_mu);
  assert(s->done_busy);
  for (size_t i = 0; i < n; i++) {
    assert(!reqs[i]->finished);
    reqs[i]->finished = true;
    pthread_cond_signal(&reqs[i]->wake);
  }
  s->done_busy = false;
  if (s->done_head) /* the next writer */
    pthread_cond_signal(&s->done_head->wake);
}

int chime__mysql_complete(chime_store *store, const chime_fire *fire,
                          const chime_run_result *outcome) {
  if (!fire || !chime__outcome_valid(outcome))
    return CHIME_EINVAL;
  assert(fire->fire_id > 0);
  chime__mysql_store *s = chime__mysql_store_of(store);
  chime__mysql_completion d = {
      .fire = fire, .outcome = outcome, .now = chime__mysql_now(store)};
  pthread_cond_init(&d.wake, NULL);
  pthread_mutex_lock(&s->done_mu);
  if (s->done_tail)
    s->done_tail->next = &d;
  else
    s->done_head = &d;
  s->done_tail = &d;
  s->done_queued++;
  /* Wait for a batch holding d, or write the queue when nobody does. */
  bool wrote = false;
  while (!d.finished) {
    if (s->done_busy) {
      pthread_cond_wait(&d.wake, &s->done_mu);
    } else {
      write_some(s);
      wrote = true;
    }
  }
  pthread_mutex_unlock(&s->done_mu);
  pthread_cond_destroy(&d.wake);
  /* The writer trims the history it grows, its answers handed out. */
  if (wrote)
    chime__mysql_retain_after_complete(s);
  if (d.result != CHIME_EBUSY && d.result != CHIME_ECONNECT)
    chime__mysql_held_drop(s, fire->fire_id); /* done with (held.c) */
  return d.result;
}

/* complete_many: the engine's completer hands every queued completion at
 * once; they are written in transactions of at most COMPLETE_BATCH, on the
 * calling thread, beside (not through) the workers' queue above. */
void chime__mysql_complete_many(chime_store *store,
                                const chime_fire *const *fires,
                                const chime_run_result *const *outcomes,
                                size_t count, int *ret_results) {
  assert(count == 0 || (fires && outcomes && ret_results));
  chime__mysql_store *s = chime__mysql_store_of(store);
  chime__mysql_completion reqs[COMPLETE_BATCH];
  chime__mysql_completion *ptrs[COMPLETE_BATCH];
  size_t i = 0;
  while (i < count) {
    batch b = {.reqs = ptrs};
    size_t first = i;
    int64_t now = chime__mysql_now(store);
    for (; i < count && b.n < COMPLETE_BATCH; i++) {
      if (!fires[i] || !chime__outcome_valid(outcomes[i])) {
        ret_results[i] = CHIME_EINVAL;
        continue;
      }
      assert(fires[i]->fire_id > 0);
      reqs[b.n] = (chime__mysql_completion){
          .fire = fires[i], .outcome = outcomes[i], .now = now};
      ptrs[b.n] = &reqs[b.n];
      b.n++;
    }
    if (b.n == 0)
      continue;
    write_isolating(s, ptrs, b.n);
    size_t k = 0;
    for (size_t j = first; j < i; j++) {
      if (!fires[j] || !chime__outcome_valid(outcomes[j]))
        continue;
      assert(k < b.n && reqs[k].fire == fires[j]);
      ret_results[j] = reqs[k].result;
      if (reqs[k].result != CHIME_EBUSY && reqs[k].result != CHIME_ECONNECT)
        chime__mysql_held_drop(s, fires[j]->fire_id);
      k++;
    }
  }
  /* The answers are written: trim the history they grew (retain.c). */
  if (count > 0)
    chime__mysql_retain_after_complete(s);
}

int chime__mysql_complete_in(chime__mysql_tx *tx, const chime_fire *fire,
                             const chime_run_result *outcome,
                             chime__mysql_shards_done *ended) {
  assert(tx && fire && fire->fire_id > 0 && chime__outcome_valid(outcome));
  chime__mysql_completion d = {
      .fire = fire, .outcome = outcome, .now = chime__mysql_now(&tx->s->base)};
  chime__mysql_completion *reqs[1] = {&d};
  batch b = {.reqs = reqs, .n = 1};
  int r = batch_fn(tx, &b);
  if (r == 0 && d.result == 0) { /* the caller tells them after its COMMIT */
    *ended = b.done;
    b.done = (chime__mysql_shards_done){0};
  }
  batch_reset(&b);
  return r < 0 ? r : d.result;
}
