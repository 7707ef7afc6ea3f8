/*
 * mysql/trig.c: adding and replacing triggers in the MySQL store (with the
 * job in the same transaction, calendars resolved and the first fire
 * computed by chime__trigger_prepare, the state following paused groups,
 * paused jobs and blocked FORBID jobs).  Calendars are in calendar.c.
 *
 * Threads: any (tx.h); each op is one transaction of its own, holding the
 * job's row and the trigger's (old) row.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/limit.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"
#include "triggers/calendar.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct add_op {
  const chime_job *job; /* stored in the same step, or NULL */
  chime_trigger *t;     /* the copy to store */
  bool replace;         /* trigger_add's replace */
  bool replacing;       /* trigger_replace: the key must exist */
  char *errbuf;
  size_t errbuf_len;
  int64_t first;
} add_op;

/* What adding a trigger needs to know of its job. */
typedef struct job_facts {
  char *type;
  char *tags;        /* the job's required tags, or NULL */
  bool paused;       /* the job is paused, or the trigger's group is */
  bool blocked;      /* a fire of the FORBID job executes */
  chime_job *stored; /* the job as stored before this op, or NULL */
} job_facts;

/* The columns of CHIME__Q_JOB_FOR_TRIGGER after the job's. */
enum { COL_BLOCKED = CHIME__JOB_COL_COUNT, COL_GROUP_PAUSED, NCOLS };

/* Loads (locked) the trigger's job with what job_facts needs: one round
 * trip.  *ret NULL when the job does not exist. */
static int job_facts_load(chime__mysql_tx *tx, const chime_trigger *t,
                          chime_job **ret, job_facts *f) {
  chime__mysql_arg a[] = {
      chime__mysql_arg_text(t->group),     chime__mysql_arg_text(t->group),
      chime__mysql_arg_text(t->group),     chime__mysql_arg_text(t->group),
      chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(t->job_group),
      chime__mysql_arg_text(t->job_name)};
  chime__mysql_rows rows;
  bool job_paused = false;
  *ret = NULL;
  int r = chime__mysql_query(tx, CHIME__Q_JOB_FOR_TRIGGER, a, 7, &rows);
  if (r == 0 && rows.nrows) {
    assert(rows.nrows == 1 && rows.ncols == NCOLS);
    r = chime__mysql_job_from_row(&rows, 0, ret, &job_paused);
    f->blocked = chime__mysql_rows_int64(&rows, 0, COL_BLOCKED) != 0;
    f->paused =
        job_paused || chime__mysql_rows_int64(&rows, 0, COL_GROUP_PAUSED) != 0;
  } else if (r == 0) {
    r = chime__mysql_group_paused(tx, t->group, &f->paused);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

/* Stores the job of op, or checks that the trigger's job exists. */
static int add_job(chime__mysql_tx *tx, add_op *op, job_facts *f) {
  chime_job *cur = NULL;
  int r = job_facts_load(tx, op->t, &cur, f);
  if (r < 0)
    return r;
  if (op->job && cur && !op->replace)
    r = chime__record_err(op->errbuf, op->errbuf_len, CHIME_EEXISTS,
                          "job %s.%s exists", cur->group, cur->name);
  else if (!op->job && !cur)
    r = chime__record_err(op->errbuf, op->errbuf_len, CHIME_ENOTFOUND,
                          "no job %s.%s", op->t->job_group, op->t->job_name);
  const chime_job *j = op->job ? op->job : cur;
  if (r == 0 && !(f->type = strdup(j->type)))
    r = CHIME_ENOMEM;
  if (r == 0 && j->required_tags && !(f->tags = strdup(j->required_tags)))
    r = CHIME_ENOMEM;
  if (r == 0 && op->job)
    r = chime__mysql_job_write(tx, op->job, cur != NULL);
  f->stored = cur;
  return r;
}

/* The state a trigger starts in. */
static chime_store_state start_state(const chime_trigger *t,
                                     const job_facts *f) {
  chime_store_state st =
      f->paused ? (f->blocked ? CHIME_STATE_PAUSED_BLOCKED : CHIME_STATE_PAUSED)
                : (f->blocked ? CHIME_STATE_BLOCKED : CHIME_STATE_WAITING);
  if (st == CHIME_STATE_WAITING && !chime__trigger_may_fire_again(&t->state))
    st = CHIME_STATE_COMPLETE;
  return st;
}

int chime__mysql_trigger_start_state(chime__mysql_tx *tx,
                                     const chime_trigger *t, bool *ret_job,
                                     chime_store_state *ret_state) {
  chime_job *job = NULL;
  job_facts f = {0};
  int r = job_facts_load(tx, t, &job, &f);
  *ret_job = job != NULL;
  *ret_state = start_state(t, &f);
  chime_job_free(job);
  return r;
}

int chime__mysql_trigger_add_facts(chime__mysql_tx *tx, const chime_trigger *t,
                                   chime_job **ret_job,
                                   chime_store_state *ret_state) {
  job_facts f = {0};
  int r = job_facts_load(tx, t, ret_job, &f);
  *ret_state = start_state(t, &f);
  return r;
}

/* Checks the key against an existing trigger; fills in a replacement's
 * job.  *ret_old is the existing trigger or NULL. */
static int add_old(chime__mysql_tx *tx, add_op *op, chime_trigger **ret_old) {
  chime_trigger *t = op->t;
  int r = chime__mysql_trigger_load(tx, t->group, t->name, true, ret_old);
  if (r < 0)
    return r;
  chime_trigger *old = *ret_old;
  if (op->replacing && !old)
    return chime__record_err(op->errbuf, op->errbuf_len, CHIME_ENOTFOUND,
                             "no trigger %s.%s", t->group, t->name);
  if (!op->replacing && old && !op->replace)
    return chime__record_err(op->errbuf, op->errbuf_len, CHIME_EEXISTS,
                             "trigger %s.%s exists", t->group, t->name);
  if (!op->replacing)
    return 0;
  if (!t->job_group) {
    free(t->job_name);
    t->job_name = NULL;
    if (!(t->job_group = strdup(old->job_group)) ||
        !(t->job_name = strdup(old->job_name)))
      return CHIME_ENOMEM;
  } else if (strcmp(t->job_group, old->job_group) != 0 || !t->job_name ||
             strcmp(t->job_name, old->job_name) != 0) {
    return chime__record_err(op->errbuf, op->errbuf_len, CHIME_EINVAL,
                             "the new trigger must fire job %s.%s",
                             old->job_group, old->job_name);
  }
  return chime__store_check_trigger_add(NULL, t, op->errbuf, op->errbuf_len);
}

static int add_fn(chime__mysql_tx *tx, void *arg) {
  add_op *op = arg;
  chime_trigger *t = op->t, *old = NULL;
  chime_calendar *cal = NULL;
  job_facts facts = {0};
  chime__mysql_arg a[CHIME__MYSQL_TRIGGER_INSERT_ARGS];
  assert(t && t->group && t->name && !t->schedule.calendar);
  assert(!op->replacing || !op->job); /* replace keeps the job */
  int r = add_old(tx, op, &old);
  if (r == 0)
    r = add_job(tx, op, &facts);
  assert(r < 0 || (facts.type && t->job_group && t->job_name));
  if (r == 0 && (r = chime__mysql_calendar_load(tx, t->calendar_name, false,
                                                &cal)) == CHIME_ENOTFOUND)
    chime__record_err(op->errbuf, op->errbuf_len, r, "no calendar named '%s'",
                      t->calendar_name);
  if (r == 0)
    r = chime__trigger_prepare(t, cal, chime__mysql_now(&tx->s->base),
                               op->errbuf, op->errbuf_len);
  if (r == 0 && old)
    r = chime__mysql_trigger_delete(tx, old->group, old->name, NULL, NULL,
                                    false);
  if (r == 0) {
    /* The partition key from the data (limit.c). */
    const chime_job *j = op->job ? op->job : facts.stored;
    r = chime__mysql_limit_partition(tx, &t, 1, j);
  }
  if (r == 0) {
    t->store_state = start_state(t, &facts);
    chime_job j = {.type = facts.type, .required_tags = facts.tags};
    chime__mysql_trigger_to_args(tx->s->sched, t, &j, a);
    r = chime__mysql_exec(tx, CHIME__Q_TRIG_INSERT, a,
                          CHIME__MYSQL_TRIGGER_INSERT_ARGS, NULL, NULL);
  }
  /* A replaced trigger's old job may be left without triggers. */
  if (r == 0 && old &&
      (strcmp(old->job_group, t->job_group) != 0 ||
       strcmp(old->job_name, t->job_name) != 0))
    r = chime__mysql_job_gc(tx, old->job_group, old->job_name);
  op->first = t->state.next_fire_ms;
  t->schedule.calendar = NULL;
  chime__calendar_unref(cal);
  chime_trigger_free(old);
  chime_job_free(facts.stored);
  free(facts.type);
  free(facts.tags);
  return r;
}

int chime__mysql_trigger_add(chime_store *store, const chime_job *job,
                             const chime_trigger *trigger, bool replace,
                             int64_t *ret_first_fire_ms, char *errbuf,
                             size_t errbuf_len) {
  int r = chime__store_check_trigger_add(job, trigger, errbuf, errbuf_len);
  if (r < 0)
    return r;
  add_op op = {.job = job,
               .replace = replace,
               .errbuf = errbuf,
               .errbuf_len = errbuf_len};
  if (!(op.t = chime__trigger_copy(trigger)))
    return CHIME_ENOMEM;
  r = chime__mysql_tx_run(chime__mysql_store_of(store), add_fn, NULL, &op,
                          errbuf, errbuf_len);
  chime_trigger_free(op.t);
  if (r == 0 && ret_first_fire_ms)
    *ret_first_fire_ms = op.first;
  return r;
}

int chime__mysql_trigger_replace(chime_store *store, const char *group,
                                 const char *name, const chime_trigger *trigger,
                                 int64_t *ret_first_fire_ms, char *errbuf,
                                 size_t errbuf_len) {
  int r = chime__key_check(group, name);
  if (r < 0 || !trigger)
    return r < 0 ? r : CHIME_EINVAL;
  add_op op = {.replacing = true, .errbuf = errbuf, .errbuf_len = errbuf_len};
  if (!(op.t = chime__trigger_copy(trigger)))
    return CHIME_ENOMEM;
  bool ok = true;
  free(op.t->group);
  free(op.t->name);
  op.t->group = chime__dup_text(group, &ok);
  op.t->name = chime__dup_text(name, &ok);
  r = ok ? chime__mysql_tx_run(chime__mysql_store_of(store), add_fn, NULL, &op,
                               errbuf, errbuf_len)
         : CHIME_ENOMEM;
  chime_trigger_free(op.t);
  if (r == 0 && ret_first_fire_ms)
    *ret_first_fire_ms = op.first;
  return r;
}
