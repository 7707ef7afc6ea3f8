/*
 * mysql/recover.c: recovery of dead nodes in the MySQL store (the design
 * is described at the top of mysql/maint.c): one transaction per dead
 * node, holding its nodes row FOR UPDATE, so exactly one survivor recovers
 * it.  Who is dead is decided by SQL_DEAD below (the lease rule of
 * mysql/node.c plus the checks that keep a node that was itself cut off
 * from judging others); docs/cluster.md explains the timing.
 */
#include "jobstore/mysql/mysql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECOVERY_GROUP "CHIME_RECOVERING"


#define NOW_MS "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"

/*
 * The dead nodes as this node sees them: their lease ran out, this node's
 * own lease has not (a node cut off from the database, or stalled, never
 * judges others when it comes back), and this node checked in at least a
 * check-in interval after the other's last check-in (after an outage of
 * the database nobody is judged until it had the time to check in again).
 * Arguments: this node, the scheduler, the lease factor twice.
 */
static const char SQL_DEAD[] =
    "SELECT d.instance_id FROM {P}nodes d JOIN {P}nodes me ON "
    "me.sched_name = d.sched_name AND me.instance_id = ? WHERE "
    "d.sched_name = ? AND d.instance_id <> me.instance_id AND "
    "d.last_checkin_ms + d.checkin_interval_ms * ? < " NOW_MS " AND "
    "me.last_checkin_ms + me.checkin_interval_ms * ? >= " NOW_MS " AND "
    "me.last_checkin_ms >= d.last_checkin_ms + d.checkin_interval_ms";

/* The same for one node (one more argument), locking its row. */
static const char SQL_LOCK_TAIL[] = " AND d.instance_id = ? FOR UPDATE";

typedef struct rec_op {
  const char *node;
  char *sql;
  size_t fires;
} rec_op;

/* Inserts the one-shot recovery trigger of fired row i (its job exists). */
static int requeue(chime__mysql_tx *tx, const chime__mysql_rows *fr, size_t i,
                   const chime_job *job) {
  char name[64];
  chime_trigger *t = NULL;
  snprintf(name, sizeof name, "recover-%lld",
           (long long)chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID));
  int r = chime_trigger_simple_new(RECOVERY_GROUP, name, 0, 0, &t, NULL, 0);
  if (r == 0)
    r = chime_trigger_set_job(t, job->group, job->name);
  if (r == 0)
    r = chime_trigger_set_misfire(t, CHIME_MISFIRE_IGNORE);
  if (r == 0)
    r = chime_trigger_set_priority(t, (int)chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_PRIORITY));
  if (r == 0)
    r = chime__trigger_prepare(t, NULL, chime__mysql_now(&tx->s->base), NULL, 0);
  if (r == 0) {
    chime__mysql_arg a[CHIME__MYSQL_TRIGGER_INSERT_ARGS];
    chime__mysql_trigger_to_args(tx->s, t, job->type, a);
    a[1 + CHIME__TRIG_COL_RECOVERING] = chime__mysql_arg_int(1);
    a[1 + CHIME__TRIG_COL_RECOVER_SCHEDULED_MS] = chime__mysql_arg_int(chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_SCHEDULED_MS));
    r = chime__mysql_exec(tx, CHIME__Q_TRIG_INSERT, NULL, a, CHIME__MYSQL_TRIGGER_INSERT_ARGS,
                       NULL, NULL);
  }
  chime_trigger_free(t);
  return r;
}

/* Ends fired row i of fr: deletes it, unblocks its job, removes a
 * COMPLETE trigger; writes history with outcome. */
static int finish(chime__mysql_tx *tx, const chime__mysql_rows *fr, size_t i, const char *outcome,
                  const char *text) {
  int64_t now = chime__mysql_now(&tx->s->base);
  chime__mysql_arg h[] = {
      chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_int(chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID)),
      chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_GROUP)),
      chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_NAME)),
      chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_JOB_GROUP)),
      chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_JOB_NAME)),
      chime__mysql_arg_int(chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_SCHEDULED_MS)),
      chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_NODE)), chime__mysql_arg_text(outcome),
      chime__mysql_arg_int(CHIME_ENOTOWNER), chime__mysql_arg_text(text), chime__mysql_arg_int(now),
      chime__mysql_arg_int(0), chime__mysql_arg_int(chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_RECOVERING)),
      chime__mysql_arg_int(now)};
  int r = chime__mysql_exec(tx, CHIME__Q_HISTORY_INSERT, NULL, h, 15, NULL, NULL);
  return r < 0 ? r : chime__mysql_fire_end(tx, fr, i);
}

/* Handles fired row i of the dead node. */
static int recover_fire(chime__mysql_tx *tx, const chime__mysql_rows *fr, size_t i) {
  if (strcmp(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_STATE), "ACQUIRED") == 0) {
    chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                  chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_GROUP)),
                  chime__mysql_arg_text(chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_TRIGGER_NAME)),
                  chime__mysql_arg_int(chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_ID))};
    int r = chime__mysql_exec(tx, CHIME__Q_TRIG_UNCLAIM, NULL, a, 4, NULL, NULL);
    return r < 0 ? r
                 : chime__mysql_exec(tx, CHIME__Q_FIRED_DELETE, NULL, &a[3], 1, NULL,
                                  NULL);
  }
  chime_job *job = NULL;
  int r = chime__mysql_job_load(tx, chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_JOB_GROUP),
                             chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_JOB_NAME), true, &job, NULL);
  if (r < 0 && r != CHIME_ENOTFOUND)
    return r;
  char text[300];
  snprintf(text, sizeof text, "node %s died while the job ran",
           chime__mysql_rows_text(fr, i, CHIME__FIRED_COL_NODE));
  bool rerun = job && chime__mysql_rows_int64(fr, i, CHIME__FIRED_COL_REQUESTS_RECOVERY) && job->requests_recovery;
  r = rerun ? requeue(tx, fr, i, job) : 0;
  if (r == 0)
    r = finish(tx, fr, i, rerun ? "REQUEUED" : "FAILED", text);
  chime_job_free(job);
  return r;
}

static int recover_fn(chime__mysql_tx *tx, void *arg) {
  rec_op *op = arg;
  chime__mysql_arg l[] = {chime__mysql_arg_text(tx->s->node), chime__mysql_arg_text(tx->s->sched),
                chime__mysql_arg_int(CHIME__LEASE_FACTOR),
                chime__mysql_arg_int(CHIME__LEASE_FACTOR),
                chime__mysql_arg_text(op->node)};
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched), chime__mysql_arg_text(op->node)};
  chime__mysql_rows rows;
  op->fires = 0;
  int r = chime__mysql_query(tx, CHIME__Q_NODE_LOCK, op->sql, l, 5, &rows);
  if (r < 0)
    return r;
  bool dead = rows.nrows > 0;
  chime__mysql_rows_free(&rows);
  if (!dead)
    return 0; /* it checked in again, or another survivor recovered it */
  if ((r = chime__mysql_query(tx, CHIME__Q_FIRED_OF_NODE, NULL, a, 2, &rows)) < 0)
    return r;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++)
    r = recover_fire(tx, &rows, i);
  op->fires = rows.nrows;
  chime__mysql_rows_free(&rows);
  if (r == 0)
    r = chime__mysql_exec(tx, CHIME__Q_NODE_DELETE, NULL, a, 2, NULL, NULL);
  if (r == 0)
    chime__mysql_log(tx->s, CHIME_LOG_WARN,
                  "recovered dead node %s (%zu fire(s))", op->node, op->fires);
  return r;
}

typedef struct dead_op {
  char *sql;
  chime__mysql_rows rows;
} dead_op;

static void dead_reset(void *arg) {
  dead_op *op = arg;
  chime__mysql_rows_free(&op->rows);
}

static int dead_fn(chime__mysql_tx *tx, void *arg) {
  dead_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->node), chime__mysql_arg_text(tx->s->sched),
                chime__mysql_arg_int(CHIME__LEASE_FACTOR),
                chime__mysql_arg_int(CHIME__LEASE_FACTOR)};
  return chime__mysql_query(tx, CHIME__Q_NODES_DEAD, op->sql, a, 4, &op->rows);
}

int chime__mysql_recover_dead_nodes(chime_store *store, int64_t now_ms,
                      size_t *ret_recovered) {
  chime__mysql_store *s = (chime__mysql_store *)store;
  dead_op dead = {.sql = chime__mysql_subst_prefix(SQL_DEAD, s->prefix)};
  size_t len = sizeof SQL_DEAD + sizeof SQL_LOCK_TAIL;
  char *lock = malloc(len);
  (void)now_ms;
  if (lock)
    snprintf(lock, len, "%s%s", SQL_DEAD, SQL_LOCK_TAIL);
  char *lock_sql = lock ? chime__mysql_subst_prefix(lock, s->prefix) : NULL;
  free(lock);
  int r = dead.sql && lock_sql ? 0 : CHIME_ENOMEM;
  if (r == 0)
    r = chime__mysql_tx_run(s, dead_fn, dead_reset, &dead, NULL, 0);
  size_t total = 0;
  for (size_t i = 0; r == 0 && i < dead.rows.nrows; i++) {
    rec_op op = {.node = chime__mysql_rows_text(&dead.rows, i, 0), .sql = lock_sql};
    r = chime__mysql_tx_run(s, recover_fn, NULL, &op, NULL, 0);
    total += op.fires;
  }
  dead_reset(&dead);
  free(dead.sql);
  free(lock_sql);
  if (r < 0)
    return r;
  if (ret_recovered)
    *ret_recovered = total;
  return 0;
}
