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
 * row, unblocks a FORBID job, removes a trigger that has COMPLETEd and
 * writes history.
 */
#include "jobstore/mysql/mysql.h"

#include <stdlib.h>
#include <string.h>

/* At most this many completions are written in one transaction. */
#define COMPLETE_BATCH 256

/* The batch query's columns: Q_FIRED_GET's, then the trigger's state. */
enum { FC_TSTATE = FC_PRIORITY + 1 };

struct my_done {
  const chime_fire *fire;
  const chime_outcome *outcome;
  int64_t now;
  int result;
  size_t row; /* its fired row in the batch's result; SIZE_MAX: none */
  bool finished;
  /* Its thread waits on this, so a finished batch wakes only its own
   * threads and the next writer, not every waiting worker. */
  pthread_cond_t wake;
  my_done *next;
};

typedef struct batch {
  my_done **reqs;
  size_t n;
  my_rows fired;
} batch;

static void batch_reset(void *arg) {
  batch *b = arg;
  chime__my_rows_free(&b->fired);
}

/* "(id, ...)" of the requests that still succeed. */
static void owned_ids(my_buf *sql, const batch *b) {
  chime__my_buf_sql(sql, "(0");
  for (size_t i = 0; i < b->n; i++) {
    if (b->reqs[i]->result != 0)
      continue;
    chime__my_buf_sql(sql, ",");
    chime__my_buf_int(sql, b->reqs[i]->fire->fire_id);
  }
  chime__my_buf_sql(sql, ")");
}

/* Locks the batch's fired rows and decides, per fire, whether this node
 * still runs it.  FC_TSTATE is the trigger's state (NULL when it is gone),
 * read without locking the trigger: a subquery of a locking read does not
 * lock, and the trigger is most likely being claimed again by now (its
 * next fire), which a lock here would wait for.  Fire ids are unique
 * across schedulers, and only the primary key is named: given the
 * scheduler too, MariaDB may pick the (scheduler, node) index and lock
 * every fired row of every node while scanning it. */
static int lock_fired(my_tx *tx, batch *b) {
  my_buf sql;
  chime__my_buf_init(&sql, tx);
  chime__my_buf_sql(&sql, "SELECT f.fire_id, f.trigger_group, f.trigger_name, "
                          "f.job_group, f.job_name, f.scheduled_ms, f.node, "
                          "f.state, f.forbid, f.requests_recovery, "
                          "f.recovering, f.priority, (SELECT t.state FROM "
                          "{P}triggers t WHERE t.sched_name = f.sched_name "
                          "AND t.trigger_group = f.trigger_group AND "
                          "t.trigger_name = f.trigger_name) FROM {P}fired f "
                          "FORCE INDEX (PRIMARY) "
                          "WHERE f.fire_id IN (0");
  for (size_t i = 0; i < b->n; i++) {
    chime__my_buf_sql(&sql, ",");
    chime__my_buf_int(&sql, b->reqs[i]->fire->fire_id);
  }
  chime__my_buf_sql(&sql, ") FOR UPDATE");
  int r = chime__my_buf_run(&sql, &b->fired, NULL);
  chime__my_buf_free(&sql);
  if (r < 0)
    return r;
  for (size_t i = 0; i < b->n; i++) {
    my_done *d = b->reqs[i];
    d->result = CHIME_ENOTOWNER;
    d->row = SIZE_MAX;
    for (size_t row = 0; row < b->fired.nrows; row++) {
      if (chime__my_i(&b->fired, row, FC_ID) != d->fire->fire_id)
        continue;
      if (strcmp(chime__my_s(&b->fired, row, FC_STATE), "EXECUTING") == 0 &&
          strcmp(chime__my_s(&b->fired, row, FC_NODE), tx->s->node) == 0) {
        d->result = 0;
        d->row = row;
      }
      break;
    }
  }
  return 0;
}

/* Saves the job data a run set, when its job keeps data. */
static int save_data(my_tx *tx, const batch *b, const my_done *d) {
  const chime_outcome *o = d->outcome;
  const char *jg = chime__my_s(&b->fired, d->row, FC_JG);
  const char *jn = chime__my_s(&b->fired, d->row, FC_JN);
  chime_job *job = NULL;
  int r = chime__my_job_load(tx, jg, jn, true, &job, NULL);
  my_arg a[] = {chime__my_bytes(o->data, o->data_len),
                chime__my_text(tx->s->sched), chime__my_text(jg),
                chime__my_text(jn)};
  if (r == 0 && job->persist_data)
    r = chime__my_exec(tx, Q_JOB_SET_DATA, NULL, a, 4, NULL, NULL);
  else if (r == CHIME_ENOTFOUND)
    r = 0;
  chime_job_free(job);
  return r;
}

/* Removes the triggers whose finished fire was their last. */
static int remove_completed(my_tx *tx, const batch *b) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < b->n; i++) {
    const my_done *d = b->reqs[i];
    const char *state = d->result == 0
                            ? chime__my_s(&b->fired, d->row, FC_TSTATE)
                            : NULL;
    /* Checked again under the lock: it may have been replaced since. */
    if (state && strcmp(state, "COMPLETE") == 0)
      r = chime__my_remove_if_complete(tx,
                                       chime__my_s(&b->fired, d->row, FC_TG),
                                       chime__my_s(&b->fired, d->row, FC_TN));
  }
  return r;
}

static int delete_fired(my_tx *tx, const batch *b) {
  my_buf sql;
  chime__my_buf_init(&sql, tx);
  chime__my_buf_sql(&sql, "DELETE f FROM {P}fired f FORCE INDEX (PRIMARY) "
                          "WHERE f.fire_id IN ");
  owned_ids(&sql, b);
  int r = chime__my_buf_run(&sql, NULL, NULL);
  chime__my_buf_free(&sql);
  return r;
}

/* Unblocks each FORBID job of the batch once its fires are gone. */
static int unblock_jobs(my_tx *tx, const batch *b) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < b->n; i++) {
    const my_done *d = b->reqs[i];
    if (d->result != 0 || !chime__my_i(&b->fired, d->row, FC_FORBID))
      continue;
    r = chime__my_unblock_job(tx, chime__my_s(&b->fired, d->row, FC_JG),
                              chime__my_s(&b->fired, d->row, FC_JN));
  }
  return r;
}

/* One multi-row INSERT of the batch's history. */
static int write_history(my_tx *tx, const batch *b) {
  my_buf sql;
  chime__my_buf_init(&sql, tx);
  chime__my_buf_sql(&sql, "INSERT INTO {P}history (sched_name, fire_id, "
                          "trigger_group, trigger_name, job_group, job_name, "
                          "scheduled_ms, node, outcome, error_code, "
                          "error_text, started_ms, duration_ms, recovering, "
                          "finished_ms) VALUES ");
  bool first = true;
  for (size_t i = 0; i < b->n; i++) {
    const my_done *d = b->reqs[i];
    if (d->result != 0)
      continue;
    const chime_outcome *o = d->outcome;
    int code = o ? o->error : 0;
    int64_t fin = o && o->finished_ms ? o->finished_ms : d->now;
    int64_t started = o ? o->started_ms : fin;
    chime__my_buf_sql(&sql, first ? "(" : ",(");
    first = false;
    chime__my_buf_str(&sql, tx->s->sched);
    chime__my_buf_sql(&sql, ",");
    chime__my_buf_int(&sql, d->fire->fire_id);
    const size_t texts[] = {FC_TG, FC_TN, FC_JG, FC_JN};
    for (size_t k = 0; k < 4; k++) {
      chime__my_buf_sql(&sql, ",");
      chime__my_buf_str(&sql, chime__my_s(&b->fired, d->row, texts[k]));
    }
    chime__my_buf_sql(&sql, ",");
    chime__my_buf_int(&sql, chime__my_i(&b->fired, d->row, FC_SCHED));
    chime__my_buf_sql(&sql, ",");
    chime__my_buf_str(&sql, tx->s->node);
    chime__my_buf_sql(&sql, code ? ",'FAILED'," : ",'OK',");
    chime__my_buf_int(&sql, code);
    chime__my_buf_sql(&sql, ",");
    chime__my_buf_str(&sql, o ? o->message : NULL);
    int64_t nums[] = {started, fin - started,
                      chime__my_i(&b->fired, d->row, FC_RECOVERING), fin};
    for (size_t k = 0; k < 4; k++) {
      chime__my_buf_sql(&sql, ",");
      chime__my_buf_int(&sql, nums[k]);
    }
    chime__my_buf_sql(&sql, ")");
  }
  int r = first ? 0 : chime__my_buf_run(&sql, NULL, NULL);
  chime__my_buf_free(&sql);
  return r;
}

static int batch_fn(my_tx *tx, void *arg) {
  batch *b = arg;
  int r = lock_fired(tx, b);
  for (size_t i = 0; r == 0 && i < b->n; i++) {
    const my_done *d = b->reqs[i];
    if (d->result == 0 && d->outcome && d->outcome->set_data)
      r = save_data(tx, b, d);
  }
  if (r == 0)
    r = delete_fired(tx, b);
  if (r == 0)
    r = unblock_jobs(tx, b);
  if (r == 0)
    r = remove_completed(tx, b);
  if (r == 0)
    r = write_history(tx, b);
  return r;
}

/* Writes the queued completions, at most COMPLETE_BATCH of them, taken from
 * the queue's head.  s->done_mu held; released while writing. */
static void write_some(my_store *s) {
  my_done *reqs[COMPLETE_BATCH];
  batch b = {.reqs = reqs};
  s->done_busy = true;
  while (s->done_head && b.n < COMPLETE_BATCH) {
    reqs[b.n++] = s->done_head;
    s->done_head = s->done_head->next;
  }
  if (!s->done_head)
    s->done_tail = NULL;
  pthread_mutex_unlock(&s->done_mu);
  int r = chime__my_run(s, batch_fn, batch_reset, &b, NULL, 0);
  batch_reset(&b);
  pthread_mutex_lock(&s->done_mu);
  for (size_t i = 0; i < b.n; i++) {
    if (r < 0)
      reqs[i]->result = r;
    reqs[i]->finished = true;
    pthread_cond_signal(&reqs[i]->wake);
  }
  s->done_busy = false;
  if (s->done_head) /* the next writer */
    pthread_cond_signal(&s->done_head->wake);
}

int chime__my_complete(chime_store *store, const chime_fire *fire,
                       const chime_outcome *outcome) {
  if (!fire || !chime__outcome_valid(outcome))
    return CHIME_EINVAL;
  my_store *s = (my_store *)store;
  my_done d = {.fire = fire, .outcome = outcome, .now = chime__my_now(store)};
  pthread_cond_init(&d.wake, NULL);
  pthread_mutex_lock(&s->done_mu);
  if (s->done_tail)
    s->done_tail->next = &d;
  else
    s->done_head = &d;
  s->done_tail = &d;
  /* Wait for a batch holding d, or write the queue when nobody does. */
  while (!d.finished) {
    if (s->done_busy)
      pthread_cond_wait(&d.wake, &s->done_mu);
    else
      write_some(s);
  }
  pthread_mutex_unlock(&s->done_mu);
  pthread_cond_destroy(&d.wake);
  return d.result;
}
