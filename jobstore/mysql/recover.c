/*
 * mysql/recover.c: recovery of dead nodes in the MySQL store.
 *
 * A node is dead when its lease ran out: its last check-in is older than
 * its own check-in interval times CHIME__LEASE_FACTOR, in database time
 * (CHIME__MYSQL_LEASE_END_SQL; CHIME__Q_NODES_DEAD adds the checks that
 * keep a node that was itself cut off from judging others, and
 * docs/cluster.md explains the timing).  A survivor locks the dead node's
 * row FOR UPDATE (re-checking it is still dead), then in the same
 * transaction: returns its ACQUIRED claims to WAITING; for each EXECUTING
 * fire whose job requests recovery it inserts a one-shot recovery trigger
 * (group CHIME_RECOVERING, name "recover-<fire id>", fires at once,
 * misfire IGNORE, recovering = 1, the original scheduled time and the
 * fired trigger's data; a shard's place and the run's checkpoint key,
 * keep_run; a shard is recovered whatever its job says), which
 * acquire hands out as a fire with recovering set and that scheduled
 * time; the other EXECUTING fires are recorded in history as FAILED
 * ("node died"); blocked FORBID jobs are unblocked, COMPLETE triggers
 * whose last fire died are removed, and the node row is deleted.  One
 * transaction per dead node, holding its row, so exactly one survivor
 * recovers it.
 *
 * A node that restarts under its instance id after its lease ended, with
 * no survivor to recover it, recovers its earlier run's fires itself when
 * it claims the id (node.c, chime__mysql_recover_own), the same way.
 *
 * Threads: the engine's maintenance timer calls this; concurrent callers
 * (other nodes, or other stores of this process) are serialised by the
 * row lock, not by any mutex.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/runs.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECOVERY_GROUP "CHIME_RECOVERING"

/* One executing fire a recovery ended, kept for on_recovery. */
typedef struct ended_fire {
  int64_t fire_id;
  char *keys[4]; /* trigger group, name, job group, name */
  bool requeued;
} ended_fire;

typedef struct rec_op {
  const char *node;
  size_t fires;
  bool declared;     /* this node declared it dead (its row deleted) */
  bool note;         /* keep each ended fire in ended */
  ended_fire *ended; /* when the store has on_recovery */
  size_t nended;
} rec_op;

static void ended_reset(void *arg) {
  rec_op *op = arg;
  for (size_t i = 0; i < op->nended; i++)
    for (size_t k = 0; k < 4; k++)
      free(op->ended[i].keys[k]);
  free(op->ended);
  op->ended = NULL;
  op->nended = 0;
}

/* Notes fired row i (ended, requeued or not) for on_recovery.  Memory
 * short: the note is lost, the recovery goes on. */
static void note_ended(rec_op *op, const chime__mysql_rows *fr, size_t i,
                       bool requeued) {
  ended_fire *e = realloc(op->ended, (op->nended + 1) * sizeof *e);
  if (!e)
    return;
  op->ended = e;
  e = &op->ended[op->nended++];
  e->fire_id = chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID);
  e->requeued = requeued;
  const int cols[4] = {CHIME__FIRED_COL_TRIGGER_GROUP,
                       CHIME__FIRED_COL_TRIGGER_NAME,
                       CHIME__FIRED_COL_JOB_GROUP, CHIME__FIRED_COL_JOB_NAME};
  for (size_t k = 0; k < 4; k++) {
    const char *v = chime__mysql_rows_text(fr, i, cols[k]);
    e->keys[k] = v ? strdup(v) : NULL;
  }
}

/* Tells fn each executing fire op ended. */
static void tell_ended(const rec_op *op, chime_recovery_fn fn,
                       void *user_data) {
  for (size_t i = 0; i < op->nended; i++) {
    const ended_fire *e = &op->ended[i];
    chime_recovery r = {.node = op->node,
                        .fire_id = e->fire_id,
                        .trigger_group = e->keys[0],
                        .trigger_name = e->keys[1],
                        .job_group = e->keys[2],
                        .job_name = e->keys[3],
                        .requeued = e->requeued};
    fn(user_data, &r);
  }
}

/* Tells on_recovery what the committed recovery of op->node did. */
static void tell_recovery(chime__mysql_store *s, const rec_op *op) {
  if (!s->on_recovery)
    return;
  chime_recovery node = {.node = op->node};
  s->on_recovery(s->recovery_user_data, &node);
  tell_ended(op, s->on_recovery, s->recovery_user_data);
}

/* The recovered run carries its fire's data (Quartz keeps it too): the
 * data of the trigger that fired (a fire-now's data lives on its one-shot
 * trigger, which stays until the fire completes).  None when the trigger
 * has none or is gone: the run then sees the job's data. */
static int copy_fire_data(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                          size_t i, chime_trigger *t) {
  chime_trigger *orig = NULL;
  int r = chime__mysql_trigger_load(
      tx, chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_GROUP),
      chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_NAME), false,
      &orig);
  if (r == CHIME_ENOTFOUND)
    return 0;
  if (r < 0 || !orig)
    return r;
  size_t len = 0;
  const void *data = chime_trigger_get_data(orig, &len);
  if (data)
    r = chime_trigger_set_data(t, data, len);
  chime_trigger_free(orig);
  return r;
}

/* A recovered run continues the run that died: it keeps a retry
 * attempt's number and original time, a shard's place in its sharded fire
 * (both on its completed, not yet removed one-shot trigger, which *ret
 * keeps loaded while args point into it), and the run id its checkpoint
 * is kept under (the origin of the run, else the dead fire's id). */
static int keep_run(chime__mysql_tx *tx, const chime__mysql_rows *fr, size_t i,
                    chime__mysql_arg *args, chime_trigger **ret) {
  int64_t fire_id = chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID);
  args[CHIME__TRIG_ARG(ORIGIN_FIRE_ID)] = chime__mysql_arg_int(fire_id);
  int r = chime__mysql_trigger_load(
      tx, chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_GROUP),
      chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_NAME), false, ret);
  if (r == CHIME_ENOTFOUND)
    return 0;
  const chime_trigger *t = *ret;
  if (r == 0 && t && t->origin_fire_id > 0)
    args[CHIME__TRIG_ARG(ORIGIN_FIRE_ID)] =
        chime__mysql_arg_int(t->origin_fire_id);
  if (r == 0 && t && (t->retry_attempt > 0 || t->shard_parent > 0)) {
    args[CHIME__TRIG_ARG(RETRY_ATTEMPT)] =
        chime__mysql_arg_int(t->retry_attempt);
    args[CHIME__TRIG_ARG(RETRY_SCHEDULED_MS)] =
        chime__mysql_arg_int(t->retry_scheduled_ms);
  }
  if (r == 0 && t && t->shard_parent > 0) {
    args[CHIME__TRIG_ARG(SHARD_PARENT)] = chime__mysql_arg_int(t->shard_parent);
    args[CHIME__TRIG_ARG(SHARD_INDEX)] = chime__mysql_arg_int(t->shard_index);
    args[CHIME__TRIG_ARG(SHARD_TOTAL)] = chime__mysql_arg_int(t->shard_total);
    args[CHIME__TRIG_ARG(SHARD_PARAM)] = chime__mysql_arg_text(t->shard_param);
  }
  return r;
}

/* Inserts the one-shot recovery trigger of fired row i (its job exists):
 * a keyed run's is its own trigger again (chime__trigger_keyed), which
 * takes over the run's COMPLETE row so that its unique key stays taken. */
static int requeue(chime__mysql_tx *tx, const chime__mysql_rows *fr, size_t i,
                   const chime_job *job) {
#define COL(id) chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_##id)
  char name[CHIME_RUN_NAME_LEN + 64];
  const char *group = RECOVERY_GROUP;
  chime_trigger *t = NULL, *retry = NULL;
  chime__mysql_arg a[CHIME__MYSQL_TRIGGER_INSERT_ARGS];
  chime_trigger fired = {.group = (char *)chime__mysql_rows_text(
                             fr, i, CHIME__FIRED_COL_TRIGGER_GROUP),
                         .name = (char *)chime__mysql_rows_text(
                             fr, i, CHIME__FIRED_COL_TRIGGER_NAME)};
  bool keyed = chime__trigger_keyed(&fired);
  if (keyed) {
    group = fired.group;
    snprintf(name, sizeof name, "%s", fired.name);
  } else {
    snprintf(name, sizeof name, "recover-%lld", (long long)COL(ID));
  }
  int r = chime_trigger_simple_new(group, name, 0, 0, &t, NULL, 0);
  if (r == 0)
    r = chime_trigger_set_job(t, job->group, job->name);
  if (r == 0)
    r = chime_trigger_set_misfire(t, CHIME_MISFIRE_IGNORE);
  if (r == 0)
    r = chime_trigger_set_priority(t, (int)COL(PRIORITY));
  if (r == 0)
    r = copy_fire_data(tx, fr, i, t);
  if (r == 0)
    r = chime__trigger_prepare(t, NULL, chime__mysql_now(&tx->s->base), NULL,
                               0);
  if (r == 0) {
    chime__mysql_trigger_to_args(tx->s->sched, t, job, a);
    a[CHIME__TRIG_ARG(RECOVERING)] = chime__mysql_arg_int(1);
    a[CHIME__TRIG_ARG(RECOVER_SCHEDULED_MS)] =
        chime__mysql_arg_int(COL(SCHEDULED_MS));
    r = keep_run(tx, fr, i, a, &retry);
  }
  if (r == 0 && retry) /* the run's own hold and policy go on with it */
    chime__mysql_trigger_own_args(retry, a);
  if (r == 0)
    r = chime__mysql_trigger_take_over(tx, t, 0);
  if (r == 0) {
    r = chime__mysql_exec(tx, CHIME__Q_TRIG_INSERT, a,
                          CHIME__MYSQL_TRIGGER_INSERT_ARGS, NULL, NULL);
  }
#undef COL
  chime_trigger_free(t);
  chime_trigger_free(retry);
  return r;
}

/* A lost run of a job that does not request recovery counts as a failed
 * attempt (XXL-JOB's failover retry): with attempts left, *ret is its
 * retry trigger, made as a failure's completion makes it (the attempt after
 * the lost one, the original time, the fire's data), NULL otherwise. */
static int retry_of_lost(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                         size_t i, chime_job *job, chime_trigger **ret) {
  chime_trigger *orig = NULL;
  *ret = NULL;
  int r = chime__mysql_trigger_load(
      tx, chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_GROUP),
      chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_NAME), false,
      &orig);
  if (r == CHIME_ENOTFOUND || !orig)
    return r == CHIME_ENOTFOUND ? 0 : r;
  chime_fire f = {
      .fire_id = chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID),
      .scheduled_ms =
          chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_SCHEDULED_MS),
      .job = job,
      .trigger = orig};
  chime_run_result lost = {.error = CHIME_ENOTOWNER, .status = "FAILED"};
  int64_t now = chime__mysql_now(&tx->s->base);
  r = chime__retry_for(&f, &lost, now, ret);
  if (r == 0 && *ret)
    r = chime__trigger_prepare(*ret, NULL, now, NULL, 0);
  chime_trigger_free(orig);
  return r;
}

/* Stores retry (of a lost run, its fire ended) as the completion stores a
 * failure's. */
static int store_retry(chime__mysql_tx *tx, chime_trigger *retry,
                       const chime_job *job) {
  bool exists = false;
  int r =
      chime__mysql_trigger_start_state(tx, retry, &exists, &retry->store_state);
  if (r < 0 || !exists)
    return r;
  if ((r = chime__mysql_trigger_take_over(tx, retry, 0)) < 0)
    return r;
  chime__mysql_arg a[CHIME__MYSQL_TRIGGER_INSERT_ARGS];
  chime__mysql_trigger_to_args(tx->s->sched, retry, job, a);
  return chime__mysql_exec(tx, CHIME__Q_TRIG_INSERT, a,
                           CHIME__MYSQL_TRIGGER_INSERT_ARGS, NULL, NULL);
}

int chime__mysql_fire_record(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                             size_t i, const char *outcome, int code,
                             const char *text, int64_t started_ms) {
#define COL(id) chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_##id)
#define TEXT(id)                                                               \
  chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_##id))
  int64_t now = chime__mysql_now(&tx->s->base);
  if (started_ms > now)
    started_ms = now;
  chime__mysql_arg h[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_int(COL(ID)),
                          TEXT(TRIGGER_GROUP),
                          TEXT(TRIGGER_NAME),
                          TEXT(JOB_GROUP),
                          TEXT(JOB_NAME),
                          chime__mysql_arg_int(COL(SCHEDULED_MS)),
                          TEXT(NODE),
                          chime__mysql_arg_text(outcome),
                          chime__mysql_arg_int(code),
                          chime__mysql_arg_text(text),
                          chime__mysql_arg_int(started_ms),
                          chime__mysql_arg_int(now - started_ms),
                          chime__mysql_arg_int(COL(RECOVERING)),
                          chime__mysql_arg_int(now),
                          chime__mysql_arg_int(COL(SHARD_PARENT)),
                          chime__mysql_arg_text(tx->s->sched),
                          TEXT(TRIGGER_GROUP),
                          TEXT(TRIGGER_NAME)};
#undef TEXT
#undef COL
  int r = chime__mysql_exec(tx, CHIME__Q_HISTORY_INSERT, h, 19, NULL, NULL);
  return r < 0 ? r : chime__mysql_fire_end(tx, fr, i);
}

int chime__mysql_fire_finish(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                             size_t i, const char *outcome, const char *text) {
  return chime__mysql_fire_record(tx, fr, i, outcome, CHIME_ENOTOWNER, text,
                                  chime__mysql_now(&tx->s->base));
}

/* Why a node's executing fires end without it: it died (recovery of a
 * dead node, or of an id's earlier run), or it is stopping and hands them
 * over (chime__mysql_hand_over).  The history text says which; a fire that
 * is not run again is FAILED when its node died, CANCELLED when its node
 * cut it short. */
typedef struct lost_why {
  const char *text_fmt; /* printf format with the node's name */
  const char *dropped;  /* the outcome of a fire that is not run again */
  bool never_started;   /* run again whatever its job says (release_fired) */
} lost_why;

static const lost_why node_died = {"node %s died while the job ran", "FAILED",
                                   false};
static const lost_why node_stopped = {
    "node %s stopped before the run ended (cut short by its shutdown)",
    "CANCELLED", false};
static const lost_why node_forgot = {
    "node %s had no run of this fire while it held it EXECUTING (ended by "
    "chimectl repair)",
    "FAILED", false};
static const lost_why node_drained = {
    "node %s was draining and its drain timeout passed before the run ended",
    "CANCELLED", false};
static const lost_why node_released = {
    "node %s released it from its local queue: no worker could start it in "
    "time, or the node was stopping",
    "FAILED", true};

/* Handles fired row i of a node that died or stopped (op, when not NULL,
 * notes an executing fire it ended). */
static int recover_fire(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                        size_t i, rec_op *op, const lost_why *why) {
#define TEXT(id) chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_##id)
  const char *state = TEXT(STATE);
  assert(strcmp(state, "ACQUIRED") == 0 || strcmp(state, "EXECUTING") == 0);
  if (strcmp(state, "ACQUIRED") == 0)
    return chime__mysql_claim_return(
        tx, TEXT(TRIGGER_GROUP), TEXT(TRIGGER_NAME),
        chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID));
  chime_job *job = NULL;
  /* A release (a live node's, often) locks the job's row only when the
   * job's runs exclude each other, as a claim does: other nodes go on
   * claiming and completing the job's other fires meanwhile. */
  bool lock = !why->never_started;
  int r = chime__mysql_job_load(tx, TEXT(JOB_GROUP), TEXT(JOB_NAME), lock, &job,
                                NULL);
  if (r == 0 && !lock && chime__concurrency_exclusive(job->concurrency)) {
    chime_job_free(job);
    job = NULL;
    r = chime__mysql_job_load(tx, TEXT(JOB_GROUP), TEXT(JOB_NAME), true, &job,
                              NULL);
  }
  if (r < 0 && r != CHIME_ENOTFOUND)
    return r;
  char text[300];
  snprintf(text, sizeof text, why->text_fmt, TEXT(NODE));
  /* A shard is always run again: its sharded fire waits for it. */
  bool rerun =
      job &&
      (why->never_started ||
       chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_SHARD_PARENT) > 0 ||
       (chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_REQUESTS_RECOVERY) &&
        job->requests_recovery));
#undef TEXT
  chime_trigger *retry = NULL;
  r = rerun ? requeue(tx, fr, i, job)
      : job ? retry_of_lost(tx, fr, i, job, &retry)
            : 0;
  if (r == 0)
    r = chime__mysql_fire_finish(tx, fr, i,
                                 rerun   ? "REQUEUED"
                                 : retry ? "RETRIED"
                                         : why->dropped,
                                 text);
  /* After the fire ended: a FORBID job is no longer blocked by it. */
  if (r == 0 && retry)
    r = store_retry(tx, retry, job);
  chime_trigger_free(retry);
  if (r == 0 && op && op->note)
    note_ended(op, fr, i, rerun);
  chime_job_free(job);
  return r;
}

/* Ends every run of node as why says (op as for recover_fire): its
 * fired rows, locked, in id order (CHIME__Q_FIRED_OF_NODE), its runs kept
 * in trigger rows (runs.c) moved to fired rows first.  *ret_n: how many. */
static int end_runs_of(chime__mysql_tx *tx, const char *node, rec_op *op,
                       const lost_why *why, size_t *ret_n) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(node)};
  chime__mysql_rows rows = {0};
  *ret_n = 0;
  int r =
      chime__mysql_runs_spill(tx, &(chime__mysql_runs_of){.node = node}, NULL);
  if (r == 0)
    r = chime__mysql_query(tx, CHIME__Q_FIRED_OF_NODE, a, 2, &rows);
  assert(r < 0 || rows.nrows == 0 || rows.ncols == CHIME__FIRED_COL_COUNT);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++)
    r = recover_fire(tx, &rows, i, op, why);
  *ret_n = rows.nrows;
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_recover_forgotten(chime__mysql_tx *tx,
                                   const chime__mysql_rows *fr, size_t i) {
  return recover_fire(tx, fr, i, NULL, &node_forgot);
}

/* A node listed dead without a row (CHIME__Q_NODES_DEAD's second half)
 * still owns runs kept in trigger rows: they are recovered as a dead
 * node's, unless it has a row (the id claimed again: its claim recovers
 * them, chime__mysql_recover_own; or a dead node's row another survivor
 * holds while it recovers it), read without a lock, which would wait for
 * that survivor.  The runs' own locks order the two. */
static int recover_rowless(chime__mysql_tx *tx, rec_op *op) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->node)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_NODE_HOLDER, a, 2, &rows);
  bool rowless = r == 0 && rows.nrows == 0;
  chime__mysql_rows_free(&rows);
  if (!rowless)
    return r;
  r = end_runs_of(tx, op->node, op, &node_died, &op->fires);
  if (r == 0 && op->fires > 0)
    chime__mysql_log(tx->s, CHIME_LOG_WARN,
                     "recovered %zu fire(s) kept in trigger rows by node %s, "
                     "whose row was gone",
                     op->fires, op->node);
  return r;
}

static int recover_fn(chime__mysql_tx *tx, void *arg) {
  rec_op *op = arg;
  chime__mysql_arg l[] = {chime__mysql_arg_text(tx->s->node),
                          chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->node)};
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->node)};
  chime__mysql_rows rows;
  op->fires = 0;
  op->declared = false;
  ended_reset(op); /* a retried transaction starts again */
  int r = chime__mysql_query(tx, CHIME__Q_NODE_DEAD_LOCK, l, 3, &rows);
  bool dead = r == 0 && rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  if (r == 0 && !dead)
    return recover_rowless(tx, op);
  if (r == 0)
    r = end_runs_of(tx, op->node, op, &node_died, &op->fires);
  if (r == 0)
    r = chime__mysql_exec(tx, CHIME__Q_NODE_DELETE, a, 2, NULL, NULL);
  op->declared = r == 0;
  if (r == 0)
    chime__mysql_log(tx->s, CHIME_LOG_WARN,
                     "recovered dead node %s (%zu fire(s))", op->node,
                     op->fires);
  return r;
}

int chime__mysql_recover_own(chime__mysql_tx *tx, size_t *ret_fires) {
  return end_runs_of(tx, tx->s->node, NULL, &node_died, ret_fires);
}

/* The fires of a release_fired call, and how many went back. */
typedef struct release_op {
  chime_fire *const *fires;
  size_t count;
  size_t released;
} release_op;

static int release_fn(chime__mysql_tx *tx, void *arg) {
  release_op *op = arg;
  op->released = 0; /* a retried transaction starts again */
  int r = 0;
  for (size_t k = 0; r == 0 && k < op->count; k++) {
    chime__mysql_rows rows;
    if ((r = chime__mysql_fired_get(tx, op->fires[k]->fire_id, &rows)) < 0)
      break;
    /* Still this node's and EXECUTING: otherwise it was taken over (or
     * ended) meanwhile and is somebody else's business. */
    if (rows.nrows == 1 &&
        strcmp(chime__mysql_rows_text(&rows, 0, CHIME__FIRED_COL_NODE),
               tx->s->node) == 0 &&
        strcmp(chime__mysql_rows_text(&rows, 0, CHIME__FIRED_COL_STATE),
               "EXECUTING") == 0) {
      r = recover_fire(tx, &rows, 0, NULL, &node_released);
      if (r == 0)
        op->released++;
    }
    chime__mysql_rows_free(&rows);
  }
  return r;
}

int chime__mysql_release_fired(chime_store *store, chime_fire *const *fires,
                               size_t count, size_t *ret_released) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  release_op op = {.fires = fires, .count = count};
  int r =
      count > 0 ? chime__mysql_tx_run(s, release_fn, NULL, &op, NULL, 0) : 0;
  if (r == 0)
    for (size_t k = 0; k < count; k++)
      chime__mysql_held_drop(s, fires[k]->fire_id);
  if (ret_released)
    *ret_released = r == 0 ? op.released : 0;
  return r;
}

/* A job past its node's shutdown deadline may still hold its fire's row
 * in its own completion transaction (fire_tx.c): its session is ended
 * first, as a dead node's are (sessions.c), so the hand-over does not wait
 * for it; the job's commit then fails and nothing of it is kept. */
static int end_job_sessions(chime__mysql_tx *tx) {
  chime__mysql_store *s = tx->s;
  unsigned long ids[64];
  size_t n = 0;
  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; i < s->nconns && n < 64; i++)
    if (s->conns[i].job_session && &s->conns[i] != tx->c)
      ids[n++] = s->conns[i].job_session;
  pthread_mutex_unlock(&s->lock);
  for (size_t i = 0; i < n; i++) {
    int r = chime__mysql_kill(tx, (int64_t)ids[i]);
    if (r < 0)
      return r;
  }
  return 0;
}

/* The fires of this node handed over; the node leaves with them unless
 * it drains (stay). */
static int hand_over_tx(chime__mysql_tx *tx, rec_op *op, bool stay) {
  int k = end_job_sessions(tx);
  if (k < 0)
    return k;
  ended_reset(op); /* a retried transaction starts again */
  int r = end_runs_of(tx, tx->s->node, op, stay ? &node_drained : &node_stopped,
                      &op->fires);
  /* The node checks out with it: its loop checks in no more, and a
   * process started at once under its id (a restart) finds it free even
   * while this one still has a job that ignored its deadline. */
  if (r == 0 && !stay)
    r = chime__mysql_node_leave_tx(tx);
  return r;
}

static int hand_over_fn(chime__mysql_tx *tx, void *arg) {
  return hand_over_tx(tx, arg, false);
}

static int drain_hand_over_fn(chime__mysql_tx *tx, void *arg) {
  return hand_over_tx(tx, arg, true);
}

/* A hand-over by fn (hand_over_fn or drain_hand_over_fn). */
static int hand_over_by(chime_store *store, chime__mysql_tx_fn fn,
                        int64_t budget_ms, chime_recovery_fn each,
                        void *user_data, size_t *ret_handed) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  rec_op op = {.node = s->node, .note = true};
  int r = chime__mysql_tx_run_within(s, fn, &op, budget_ms);
  if (r == 0)
    chime__mysql_held_clear(s); /* handed over: none is this node's */
  if (r == 0 && each)
    tell_ended(&op, each, user_data);
  if (ret_handed)
    *ret_handed = r == 0 ? op.fires : 0;
  ended_reset(&op);
  return r;
}

int chime__mysql_hand_over(chime_store *store, int64_t budget_ms,
                           chime_recovery_fn each, void *user_data,
                           size_t *ret_handed) {
  return hand_over_by(store, hand_over_fn, budget_ms, each, user_data,
                      ret_handed);
}

int chime__mysql_drain_hand_over(chime_store *store, int64_t budget_ms,
                                 chime_recovery_fn each, void *user_data,
                                 size_t *ret_handed) {
  return hand_over_by(store, drain_hand_over_fn, budget_ms, each, user_data,
                      ret_handed);
}

/*
 * On Galera, a member applies other members' commits a moment after they
 * were certified, so a plain read may miss a check-in another member just
 * committed.  The decision that a node is dead reads with wsrep_sync_wait
 * READ (1): it waits until this member has applied every commit the
 * cluster had certified when the read began.  (A recovery that still
 * acted on a stale check-in would conflict with it on the nodes row and
 * fail certification, so this is about not trying, not about safety.)
 * Returns fn's result; a failed SET is fn's error.
 */
static int set_sync_wait(chime__mysql_tx *tx, int64_t level) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SESSION_SYNC_WAIT);
  chime__mysql_sqlbuf_at(&b, "level");
  chime__mysql_sqlbuf_int(&b, level);
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

static int with_sync_wait(chime__mysql_tx *tx, chime__mysql_tx_fn fn,
                          void *arg) {
  if (!tx->c->galera || tx->s->sync_wait >= 1)
    return fn(tx, arg);
  int r = set_sync_wait(tx, 1);
  if (r < 0)
    return r;
  r = fn(tx, arg);
  int r2 = set_sync_wait(tx, tx->s->sync_wait < 0 ? 0 : tx->s->sync_wait);
  return r < 0 ? r : r2;
}

static int recover_synced_fn(chime__mysql_tx *tx, void *arg) {
  return with_sync_wait(tx, recover_fn, arg);
}

static void dead_reset(void *arg) {
  chime__mysql_rows_free(arg);
}

static int dead_query_fn(chime__mysql_tx *tx, void *arg) {
  chime__mysql_arg a[] = {
      chime__mysql_arg_text(tx->s->node), chime__mysql_arg_text(tx->s->sched),
      chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(tx->s->node)};
  return chime__mysql_query(tx, CHIME__Q_NODES_DEAD, a, 4, arg);
}

static int dead_fn(chime__mysql_tx *tx, void *arg) {
  return with_sync_wait(tx, dead_query_fn, arg);
}

int chime__mysql_recover_dead_nodes(chime_store *store, int64_t now_ms,
                                    size_t *ret_recovered) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  chime__mysql_rows dead = {0};
  (void)now_ms; /* the database's clock decides */
  int r = chime__mysql_tx_run_hot(s, dead_fn, dead_reset, &dead);
  size_t total = 0;
  for (size_t i = 0; r == 0 && i < dead.nrows; i++) {
    rec_op op = {.node = chime__mysql_rows_text(&dead, i, 0),
                 .note = s->on_recovery != NULL};
    assert(op.node && strcmp(op.node, s->node) != 0);
    /* Its open transactions would hold its fires' locks (sessions.c).
     * Recovery goes on without it (it may then wait for those locks). */
    r = chime__mysql_sessions_end(s, op.node);
    if (r < 0)
      chime__mysql_log(s, CHIME_LOG_WARN,
                       "cannot end the sessions of dead node %s: %s", op.node,
                       chime_strerror(r));
    r = chime__mysql_tx_run_hot(s, recover_synced_fn, NULL, &op);
    if (r == 0 && op.declared)
      tell_recovery(s, &op);
    ended_reset(&op);
    total += op.fires;
  }
  chime__mysql_rows_free(&dead);
  if (r < 0)
    return r;
  if (ret_recovered)
    *ret_recovered = total;
  return 0;
}
