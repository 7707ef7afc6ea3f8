/*
 * mysql_fire.c: the firing protocol of the MySQL store (store.h):
 *   - acquire claims due WAITING triggers in one transaction with
 *     SELECT ... FOR UPDATE SKIP LOCKED (no global lock row: nodes never
 *     wait for each other), marks them ACQUIRED by this node and inserts
 *     their fired rows, whose AUTO_INCREMENT ids are the fire ids;
 *   - fire moves each claim to EXECUTING only if the trigger row is still
 *     ACQUIRED by this node for this fire id (checked under the row lock),
 *     computes the next fire and stores the trigger WAITING, BLOCKED or
 *     COMPLETE;
 *   - complete ends an executing fire of this node (fencing), saves job
 *     data, unblocks the job, removes what finished and writes history;
 *   - release returns unfired claims.
 * A FORBID job: acquire locks the job row and claims none of its triggers
 * while it has a fired row (claimed or executing) or a claim in the batch.
 */
#include "jobstore/mysql_impl.h"

#include "triggers/calendar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Statement text for id with "AND job_type IN (?, ...)" inserted before
 * " ORDER BY" (or at the end); NULL on ENOMEM. */
static char *with_types(const my_store *s, my_stmt_id id, size_t ntypes) {
  const char *base = s->sql[id];
  const char *order = strstr(base, " ORDER BY");
  size_t head = order ? (size_t)(order - base) : strlen(base);
  size_t len = strlen(base) + 32 + 3 * ntypes;
  char *out = malloc(len);
  if (!out)
    return NULL;
  memcpy(out, base, head);
  size_t n = head;
  n += (size_t)snprintf(out + n, len - n, " AND job_type IN (");
  for (size_t i = 0; i < ntypes; i++)
    n += (size_t)snprintf(out + n, len - n, i ? ",?" : "?");
  n += (size_t)snprintf(out + n, len - n, ")");
  snprintf(out + n, len - n, "%s", order ? order : "");
  return out;
}

/* The fired row of id, locked; nrows 0 when absent. */
static int fired_get(my_tx *tx, int64_t id, my_rows *rows) {
  my_arg a[] = {chime__my_int(id), chime__my_text(tx->s->sched)};
  return chime__my_query(tx, Q_FIRED_GET, NULL, a, 2, rows);
}

/* Column numbers of Q_FIRED_GET. */
enum { FC_ID, FC_TG, FC_TN, FC_JG, FC_JN, FC_SCHED, FC_NODE, FC_STATE,
       FC_FORBID, FC_RR, FC_RECOVERING, FC_PRIORITY };

/* Returns claim id to WAITING when it is an ACQUIRED fire of this node. */
static int release_id(my_tx *tx, int64_t id) {
  my_rows fr;
  int r = fired_get(tx, id, &fr);
  if (r < 0)
    return r;
  if (fr.nrows && strcmp(chime__my_s(&fr, 0, FC_STATE), "ACQUIRED") == 0 &&
      strcmp(chime__my_s(&fr, 0, FC_NODE), tx->s->node) == 0) {
    my_arg a[] = {chime__my_text(tx->s->sched),
                  chime__my_text(chime__my_s(&fr, 0, FC_TG)),
                  chime__my_text(chime__my_s(&fr, 0, FC_TN)),
                  chime__my_int(id)};
    r = chime__my_exec(tx, Q_TRIG_UNCLAIM, NULL, a, 4, NULL, NULL);
    if (r == 0)
      r = chime__my_exec(tx, Q_FIRED_DELETE, NULL, &a[3], 1, NULL, NULL);
  }
  chime__my_rows_free(&fr);
  return r;
}

/* ------------------------------------------------------------- acquire */

typedef struct acq_job {
  chime_job *job;
  bool claimed; /* a FORBID job claimed in this batch */
  bool skip;    /* a FORBID job with fires elsewhere */
} acq_job;

typedef struct acq_op {
  int64_t now, nlt;
  size_t max;
  const chime_type_set *types;
  chime_fire **out;
  size_t n;
  acq_job *jobs;
  size_t njobs;
  /* The fire ids of attempts that failed: a lost connection may have
   * lost the reply to a COMMIT that happened, so a retry releases them. */
  int64_t *stale;
  size_t nstale;
} acq_op;

static void acq_reset(void *arg) {
  acq_op *op = arg;
  int64_t *st = op->n ? realloc(op->stale, (op->nstale + op->n) *
                                               sizeof *op->stale)
                      : op->stale;
  if (st) {
    op->stale = st;
    for (size_t i = 0; i < op->n; i++)
      op->stale[op->nstale++] = op->out[i]->fire_id;
  }
  for (size_t i = 0; i < op->n; i++)
    chime__fire_free(op->out[i]);
  op->n = 0;
  for (size_t i = 0; i < op->njobs; i++)
    chime_job_free(op->jobs[i].job);
  op->njobs = 0;
}

/* The batch's entry for the trigger's job (loaded and checked once). */
static int acq_job_for(my_tx *tx, acq_op *op, const chime_trigger *t,
                       acq_job **ret) {
  for (size_t i = 0; i < op->njobs; i++) {
    chime_job *j = op->jobs[i].job;
    if (strcmp(j->group, t->job_group) == 0 &&
        strcmp(j->name, t->job_name) == 0) {
      *ret = &op->jobs[i];
      return 0;
    }
  }
  acq_job *e = &op->jobs[op->njobs];
  memset(e, 0, sizeof *e);
  int r = chime__my_job_load(tx, t->job_group, t->job_name, false, &e->job,
                             NULL);
  if (r == 0 && e->job->concurrency == CHIME_CONCURRENCY_FORBID) {
    /* Lock the job row, then look for its fires: one claim at a time. */
    chime_job_free(e->job);
    e->job = NULL;
    r = chime__my_job_load(tx, t->job_group, t->job_name, true, &e->job, NULL);
    my_arg a[] = {chime__my_text(tx->s->sched), chime__my_text(t->job_group),
                  chime__my_text(t->job_name)};
    my_rows rows;
    if (r == 0 && (r = chime__my_query(tx, Q_JOB_HAS_FIRES, NULL, a, 3,
                                       &rows)) == 0) {
      e->skip = rows.nrows > 0;
      chime__my_rows_free(&rows);
    }
  }
  if (r < 0) {
    chime_job_free(e->job);
    return r;
  }
  op->njobs++;
  *ret = e;
  return 0;
}

/* Claims the trigger of row i.  *ret_fire is NULL when it is passed over. */
static int claim(my_tx *tx, acq_op *op, const my_rows *rows, size_t i,
                 chime_fire **ret_fire) {
  chime_trigger *t;
  acq_job *aj = NULL;
  *ret_fire = NULL;
  int r = chime__my_row_trigger(rows, i, &t);
  if (r == 0 && (r = acq_job_for(tx, op, t, &aj)) == 0 &&
      (aj->skip || aj->claimed)) {
    chime_trigger_free(t);
    return 0;
  }
  if (r < 0) {
    chime_trigger_free(t);
    return r;
  }
  const chime_job *j = aj->job;
  bool forbid = j->concurrency == CHIME_CONCURRENCY_FORBID;
  bool recovering = chime__my_i(rows, i, MY_TC_RECOVERING) != 0;
  int64_t scheduled = recovering && chime__my_s(rows, i, MY_TC_RECOVER_MS)
                          ? chime__my_i(rows, i, MY_TC_RECOVER_MS)
                          : t->state.next_fire_ms;
  my_arg a[] = {chime__my_text(tx->s->sched), chime__my_text(t->group),
                chime__my_text(t->name), chime__my_text(t->job_group),
                chime__my_text(t->job_name), chime__my_int(scheduled),
                chime__my_int(op->now), chime__my_text(tx->s->node),
                chime__my_int(forbid), chime__my_int(j->requests_recovery),
                chime__my_int(recovering),
                chime__my_int(t->schedule.priority)};
  uint64_t id = 0;
  /* The trigger rows are marked ACQUIRED together (mark_claimed). */
  r = chime__my_exec(tx, Q_FIRED_INSERT, NULL, a, 12, NULL, &id);
  chime_fire *f = r == 0 ? calloc(1, sizeof *f) : NULL;
  if (r == 0 && (!f || !(f->job = chime__job_copy(j))))
    r = CHIME_ENOMEM;
  if (r < 0) {
    chime__fire_free(f);
    chime_trigger_free(t);
    return r;
  }
  t->store_state = CHIME_STATE_ACQUIRED;
  f->trigger = t;
  f->fire_id = (int64_t)id;
  f->scheduled_ms = scheduled;
  f->phase = CHIME_FIRE_ACQUIRED;
  f->recovering = recovering;
  aj->claimed = forbid;
  *ret_fire = f;
  return 0;
}

/* Marks the triggers of fires[0 .. n) ACQUIRED by their fired rows, in
 * statements of at most CLAIM_CHUNK fires. */
#define CLAIM_CHUNK 500
static int mark_claimed(my_tx *tx, chime_fire **fires, size_t n) {
  static const char head[] =
      "UPDATE {P}triggers t JOIN {P}fired f ON f.sched_name = t.sched_name "
      "AND f.trigger_group = t.trigger_group AND f.trigger_name = "
      "t.trigger_name SET t.state = 'ACQUIRED', t.owner = f.node, "
      "t.claim_fire_id = f.fire_id WHERE f.fire_id IN (";
  int r = 0;
  for (size_t from = 0; r == 0 && from < n; from += CLAIM_CHUNK) {
    size_t k = n - from < CLAIM_CHUNK ? n - from : CLAIM_CHUNK;
    char *text = malloc(sizeof head + 2 * k + 2);
    my_arg *a = calloc(k, sizeof *a);
    if (!text || !a) {
      r = CHIME_ENOMEM;
    } else {
      size_t len = sizeof head - 1;
      memcpy(text, head, len);
      for (size_t i = 0; i < k; i++) {
        text[len++] = i ? ',' : '?';
        if (i)
          text[len++] = '?';
        a[i] = chime__my_int(fires[from + i]->fire_id);
      }
      memcpy(text + len, ")", 2);
      char *sql = chime__my_subst(text, tx->s->prefix);
      r = sql ? chime__my_exec(tx, Q_COUNT, sql, a, k, NULL, NULL)
              : CHIME_ENOMEM;
      free(sql);
    }
    free(text);
    free(a);
  }
  return r;
}

static int acquire_fn(my_tx *tx, void *arg) {
  acq_op *op = arg;
  my_store *s = tx->s;
  size_t ntypes = op->types ? op->types->count : 0;
  size_t nargs = 4 + ntypes;
  my_arg *a = calloc(nargs, sizeof *a);
  char *sql = op->types ? with_types(s, Q_ACQUIRE, ntypes) : NULL;
  my_rows rows = {0};
  int r = !a || (op->types && !sql) ? CHIME_ENOMEM : 0;
  for (size_t i = 0; r == 0 && i < op->nstale; i++)
    r = release_id(tx, op->stale[i]);
  if (r == 0) {
    a[0] = chime__my_text(s->sched);
    a[1] = chime__my_int(op->nlt);
    a[2] = chime__my_int(op->now - s->threshold_ms);
    for (size_t i = 0; i < ntypes; i++)
      a[3 + i] = chime__my_text(op->types->names[i]);
    a[3 + ntypes] = chime__my_int((int64_t)op->max);
    r = chime__my_query(tx, Q_ACQUIRE, sql, a, nargs, &rows);
  }
  if (r == 0) {
    op->out = realloc(op->out, (rows.nrows ? rows.nrows : 1) * sizeof *op->out);
    op->jobs = realloc(op->jobs, (rows.nrows ? rows.nrows : 1) *
                                     sizeof *op->jobs);
    if (!op->out || !op->jobs)
      r = CHIME_ENOMEM;
  }
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    chime_fire *f;
    r = claim(tx, op, &rows, i, &f);
    if (r == 0 && f)
      op->out[op->n++] = f;
  }
  if (r == 0)
    r = mark_claimed(tx, op->out, op->n);
  chime__my_rows_free(&rows);
  free(sql);
  free(a);
  return r;
}

int chime__my_acquire(chime_store *store, int64_t now_ms,
                      int64_t no_later_than_ms, size_t max,
                      const chime_type_set *types, chime_fire ***ret_fires,
                      size_t *ret_count) {
  if (!ret_fires || !ret_count)
    return CHIME_EINVAL;
  acq_op op = {.now = now_ms, .nlt = no_later_than_ms, .max = max,
               .types = types};
  int r = 0;
  if (max > 0 && (!types || types->count > 0))
    r = chime__my_run((my_store *)store, acquire_fn, acq_reset, &op, NULL, 0);
  for (size_t i = 0; i < op.njobs; i++)
    chime_job_free(op.jobs[i].job);
  free(op.jobs);
  if (r < 0) {
    acq_reset(&op);
    free(op.out);
  }
  free(op.stale);
  if (r < 0)
    return r;
  *ret_fires = op.out;
  *ret_count = op.n;
  return 0;
}

/* ------------------------------------------------------------------ fire */

typedef struct fire_res {
  int result;
  chime_trigger *trigger; /* the state after the fire */
  chime_job *job;         /* the job as it is now */
} fire_res;

typedef struct fire_op {
  chime_fire **fires;
  size_t count;
  fire_res *res;
  bool retry; /* an earlier attempt failed */
} fire_op;

static void fire_reset(void *arg) {
  fire_op *op = arg;
  op->retry = true;
  for (size_t i = 0; i < op->count; i++) {
    chime_trigger_free(op->res[i].trigger);
    chime_job_free(op->res[i].job);
    memset(&op->res[i], 0, sizeof op->res[i]);
  }
}

/* Whether row 0 of a trigger result is still claimed by id of this node. */
static bool still_claimed(my_tx *tx, const my_rows *t, int64_t id) {
  if (t->nrows == 0)
    return false;
  const char *owner = chime__my_s(t, 0, MY_TC_OWNER);
  const char *claim = chime__my_s(t, 0, MY_TC_CLAIM);
  const char *state = chime__my_s(t, 0, MY_TC_STATE);
  return owner && claim && state &&
         strcmp(state, "ACQUIRED") == 0 && strcmp(owner, tx->s->node) == 0 &&
         strtoll(claim, NULL, 10) == id;
}

/* Runs the bookkeeping of a fire on t and stores its new state. */
static int fire_triggered(my_tx *tx, chime_trigger *t, const chime_job *j,
                          int64_t id) {
  chime_calendar *cal = NULL;
  int r = chime__my_calendar_load(tx, t->calendar_name, false, &cal);
  if (r < 0 && r != CHIME_ENOTFOUND)
    return r;
  t->schedule.calendar = cal;
  chime__trigger_triggered(&t->schedule, &t->state);
  t->schedule.calendar = NULL;
  chime__calendar_unref(cal);
  bool forbid = j->concurrency == CHIME_CONCURRENCY_FORBID;
  my_arg e[] = {chime__my_int(forbid), chime__my_int(j->requests_recovery),
                chime__my_int(id)};
  if ((r = chime__my_exec(tx, Q_FIRED_SET_EXECUTING, NULL, e, 3, NULL,
                          NULL)) < 0)
    return r;
  my_arg k[] = {chime__my_text(tx->s->sched), chime__my_text(j->group),
                chime__my_text(j->name)};
  if (forbid &&
      (r = chime__my_exec(tx, Q_BLOCK_JOB, NULL, k, 3, NULL, NULL)) < 0)
    return r;
  t->store_state = !chime__trigger_may_fire_again(&t->state)
                       ? CHIME_STATE_COMPLETE
                   : forbid ? CHIME_STATE_BLOCKED
                            : CHIME_STATE_WAITING;
  return chime__my_trigger_save_state(tx, t);
}

/* A retry finding the fire EXECUTING by this node: the attempt whose
 * COMMIT reply was lost did fire it.  Hands out the stored state. */
static int fired_before(my_tx *tx, const my_rows *fr, fire_res *res) {
  int r = chime__my_trigger_load(tx, chime__my_s(fr, 0, FC_TG),
                                 chime__my_s(fr, 0, FC_TN), false,
                                 &res->trigger);
  if (r == 0)
    r = chime__my_job_load(tx, chime__my_s(fr, 0, FC_JG),
                           chime__my_s(fr, 0, FC_JN), false, &res->job, NULL);
  if (r == 0 && res->trigger)
    res->result = 0;
  return r == CHIME_ENOTFOUND ? 0 : r;
}

static int fire_one(my_tx *tx, const chime_fire *f, bool retry,
                    fire_res *res) {
  my_rows fr, tr = {0};
  int r = fired_get(tx, f->fire_id, &fr);
  if (r < 0)
    return r;
  res->result = CHIME_ENOTOWNER;
  bool mine = fr.nrows && strcmp(chime__my_s(&fr, 0, FC_NODE),
                                 tx->s->node) == 0;
  if (mine && retry &&
      strcmp(chime__my_s(&fr, 0, FC_STATE), "EXECUTING") == 0) {
    r = fired_before(tx, &fr, res);
    chime__my_rows_free(&fr);
    return r;
  }
  if (!mine || strcmp(chime__my_s(&fr, 0, FC_STATE), "ACQUIRED") != 0) {
    chime__my_rows_free(&fr);
    return 0;
  }
  my_arg k[] = {chime__my_text(tx->s->sched),
                chime__my_text(chime__my_s(&fr, 0, FC_TG)),
                chime__my_text(chime__my_s(&fr, 0, FC_TN))};
  r = chime__my_query(tx, Q_TRIG_GET_LOCK, NULL, k, 3, &tr);
  if (r == 0 && !still_claimed(tx, &tr, f->fire_id)) {
    /* The claim was lost: removed, paused or replaced. */
    my_arg d = chime__my_int(f->fire_id);
    r = chime__my_exec(tx, Q_FIRED_DELETE, NULL, &d, 1, NULL, NULL);
  } else if (r == 0) {
    r = chime__my_row_trigger(&tr, 0, &res->trigger);
    if (r == 0)
      r = chime__my_job_load(tx, res->trigger->job_group,
                             res->trigger->job_name, true, &res->job, NULL);
    if (r == 0)
      r = fire_triggered(tx, res->trigger, res->job, f->fire_id);
    if (r == 0)
      res->result = 0;
  }
  chime__my_rows_free(&fr);
  chime__my_rows_free(&tr);
  return r;
}

static int fire_fn(my_tx *tx, void *arg) {
  fire_op *op = arg;
  int r = 0;
  for (size_t i = 0; r == 0 && i < op->count; i++)
    if (op->fires[i])
      r = fire_one(tx, op->fires[i], op->retry, &op->res[i]);
  return r;
}

int chime__my_fire(chime_store *store, chime_fire **fires, size_t count,
                   int64_t now_ms) {
  (void)now_ms;
  if (!fires && count > 0)
    return CHIME_EINVAL;
  if (count == 0)
    return 0;
  fire_op op = {.fires = fires, .count = count};
  if (!(op.res = calloc(count, sizeof *op.res)))
    return CHIME_ENOMEM;
  int r = chime__my_run((my_store *)store, fire_fn, fire_reset, &op, NULL, 0);
  for (size_t i = 0; r == 0 && i < count; i++) {
    chime_fire *f = fires[i];
    if (!f)
      continue;
    f->result = op.res[i].result;
    if (f->result != 0)
      continue;
    chime_job_free(f->job);
    f->job = op.res[i].job;
    op.res[i].job = NULL;
    f->trigger->state = op.res[i].trigger->state;
    f->trigger->store_state = op.res[i].trigger->store_state;
    f->phase = CHIME_FIRE_EXECUTING;
  }
  fire_reset(&op);
  free(op.res);
  return r;
}

/* -------------------------------------------------------------- release */

static int release_fn(my_tx *tx, void *arg) {
  fire_op *op = arg;
  int r = 0;
  for (size_t i = 0; r == 0 && i < op->count; i++)
    if (op->fires[i])
      r = release_id(tx, op->fires[i]->fire_id);
  return r;
}

int chime__my_release(chime_store *store, chime_fire **fires, size_t count) {
  if (!fires && count > 0)
    return CHIME_EINVAL;
  if (count == 0)
    return 0;
  fire_op op = {.fires = fires, .count = count};
  return chime__my_run((my_store *)store, release_fn, NULL, &op, NULL, 0);
}
