/*
 * mysql/fire_tx.c: transactional completion (store.h's fire_tx_*, the
 * store's side of include/chime-mysql.h).  A job's transaction holds one
 * pool connection from begin to commit or rollback:
 *
 *   - begin locks the fire's row (SELECT ... FOR UPDATE on the primary key)
 *     and checks it is EXECUTING on this node, else CHIME_ENOTOWNER.  Held
 *     until the end, the lock keeps a recovery of this node from taking the
 *     fire while the job works: recovery locks the dead node's fired rows
 *     first, and so either runs before begin (begin then finds the row gone)
 *     or after the commit (the row is gone: the fire is complete) or after
 *     a rollback.  A node frozen with the lock held does not block its
 *     recovery for ever: the survivor ends its sessions first (sessions.c).
 *   - the job's statements run on the same connection (autocommit is off).
 *   - commit runs complete's steps for this one fire on the connection
 *     (chime__mysql_complete_in, complete.c: the fired row checked again
 *     under the lock, job data, fired row deleted, FORBID unblocked, a
 *     COMPLETE trigger removed, history, a shard counted down) and then
 *     COMMIT: both or neither.  A sharded fire its last shard ended is told
 *     (SHARDED_FIRE_DONE) after the COMMIT, as complete.c does.
 *
 * Nothing here is retried: the job's statements are not ours to re-run.
 * Only begin reconnects a lost connection once (nothing was sent yet).
 * A statement refused by a read-only server (a primary demoted by a
 * fail-over) closes the connection when the transaction ends, and the
 * member is left (tx.c): the job's next begin opens on the next member
 * that takes writes.
 *
 * Threads: a transaction belongs to the worker that began it; the pool's
 * lock is taken only to take and give back the connection (tx.h).
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/shards.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chime_store_tx {
  chime__mysql_store *s;
  chime__mysql_conn *c;
  const chime_fire *fire;
  chime__mysql_tx tx;
};

/* Points tx's messages at the caller's buffer for one call. */
static void use_errbuf(chime_store_tx *t, char *errbuf, size_t len) {
  t->tx.errbuf = errbuf;
  t->tx.errbuf_len = errbuf ? len : 0;
  if (errbuf && len)
    errbuf[0] = '\0';
}

/* Ends the transaction with ROLLBACK (closing a connection that failed),
 * gives the connection back and frees t. */
static void finish(chime_store_tx *t, bool rollback) {
  chime__mysql_conn *c = t->c;
  pthread_mutex_lock(&t->s->lock);
  c->job_session = 0;
  pthread_mutex_unlock(&t->s->lock);
  if (c->db) {
    /* A statement refused as read-only: the member was demoted (a
     * fail-over); the connection is closed and the next opens on the
     * next member that takes writes. */
    bool read_only = chime__mysql_read_only_error(t->tx.last_errno);
    if (read_only)
      chime__mysql_leave_read_only(t->s, c, t->tx.last_errno);
    bool broken = read_only || chime__mysql_lost(mysql_errno(c->db));
    if (rollback && !broken &&
        chime__mysql_db_run(c->db, t->s->prefix, CHIME__Q_ROLLBACK, NULL) < 0)
      broken = true;
    if (broken)
      chime__mysql_conn_reset(c, true);
  }
  chime__mysql_pool_give(t->s, c);
  free(t);
}

/* Locks the trigger row of a run kept in it (runs.c) and says whether it
 * still holds it, this node's (else the run was moved to a fired row, or
 * is gone). */
static int lock_kept(chime_store_tx *t, bool *ret_held) {
  const chime_trigger *tr = t->fire->trigger;
  chime__mysql_arg a[3];
  chime__mysql_key_args(&t->tx, tr->group, tr->name, a);
  chime__mysql_rows rows;
  int r = chime__mysql_query(&t->tx, CHIME__Q_RUN_TX_LOCK, a, 3, &rows);
  *ret_held = r == 0 && rows.nrows == 1 &&
              strcmp(chime__mysql_rows_text(&rows, 0, 0), "EXECUTING") == 0 &&
              !chime__mysql_rows_is_null(&rows, 0, 2) &&
              chime__mysql_rows_int64(&rows, 0, 2) == t->fire->fire_id &&
              strcmp(chime__mysql_rows_text(&rows, 0, 1), t->s->node) == 0;
  chime__mysql_rows_free(&rows);
  return r;
}

/* Locks the fire's row (its trigger's, for a run kept there) and checks
 * it is this node's, executing. */
static int lock_fire(chime_store_tx *t) {
  bool held = false;
  int r = t->fire->in_trigger_row ? lock_kept(t, &held) : 0;
  if (r < 0 || held)
    return r;
  chime__mysql_sqlbuf sql;
  chime__mysql_sqlbuf_init(&sql, &t->tx);
  chime__mysql_sqlbuf_stmt(&sql, CHIME__Q_FIRE_TX_LOCK);
  chime__mysql_sqlbuf_at(&sql, "fire_id");
  chime__mysql_sqlbuf_int(&sql, t->fire->fire_id);
  chime__mysql_sqlbuf_at(&sql, "sched");
  chime__mysql_sqlbuf_text(&sql, t->s->sched);
  chime__mysql_rows rows;
  r = chime__mysql_sqlbuf_run(&sql, &rows, NULL);
  if (r < 0)
    return r;
  bool owned = rows.nrows == 1 && rows.ncols == 2 &&
               strcmp(chime__mysql_rows_text(&rows, 0, 0), "EXECUTING") == 0 &&
               strcmp(chime__mysql_rows_text(&rows, 0, 1), t->s->node) == 0;
  chime__mysql_rows_free(&rows);
  if (!owned)
    return chime__record_err(t->tx.errbuf, t->tx.errbuf_len, CHIME_ENOTOWNER,
                             "fire %lld is no longer this node's: another "
                             "node took it over",
                             (long long)t->fire->fire_id);
  return 0;
}

int chime__mysql_fire_tx_begin(chime_store *store, const chime_fire *fire,
                               chime_store_tx **ret_tx, char *errbuf,
                               size_t errbuf_len) {
  assert(fire && fire->fire_id > 0 && ret_tx);
  *ret_tx = NULL;
  chime__mysql_store *s = chime__mysql_store_of(store);
  chime_store_tx *t = calloc(1, sizeof *t);
  if (!t)
    return CHIME_ENOMEM;
  t->s = s;
  t->fire = fire;
  t->c = chime__mysql_pool_take(s);
  t->tx = (chime__mysql_tx){.s = s, .c = t->c};
  use_errbuf(t, errbuf, errbuf_len);
  int r = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    if (!t->c->db &&
        (r = chime__mysql_conn_open(s, t->c, errbuf, errbuf_len)) < 0)
      break;
    t->tx.last_errno = 0;
    r = lock_fire(t);
    if (r == 0 || !chime__mysql_lost(t->tx.last_errno))
      break;
    if (chime__mysql_read_only_error(t->tx.last_errno))
      chime__mysql_leave_read_only(s, t->c, t->tx.last_errno);
    chime__mysql_conn_reset(t->c, true); /* lost: once more */
  }
  if (r < 0) {
    finish(t, true);
    return r;
  }
  pthread_mutex_lock(&s->lock);
  t->c->job_session = mysql_thread_id(t->c->db);
  pthread_mutex_unlock(&s->lock);
  *ret_tx = t;
  return 0;
}

void *chime__mysql_fire_tx_handle(chime_store_tx *t) {
  assert(t && t->c);
  return t->c->db;
}

int chime__mysql_fire_tx_enqueue(chime_store_tx *t, chime_trigger *const *ts,
                                 size_t count, bool *ret_existed, char *errbuf,
                                 size_t errbuf_len) {
  assert(t && ts && ret_existed && count > 0);
  use_errbuf(t, errbuf, errbuf_len);
  if (!t->c->db)
    return chime__record_err(errbuf, errbuf_len, CHIME_ECONNECT,
                             "the transaction's connection was lost");
  return chime__mysql_add_many_in(&t->tx, ts, count, ret_existed);
}

int chime__mysql_fire_tx_execute(chime_store_tx *t, const char *sql,
                                 const char *const *params, size_t nparams,
                                 uint64_t *ret_affected, char *errbuf,
                                 size_t errbuf_len) {
  assert(t && sql && (params || nparams == 0));
  use_errbuf(t, errbuf, errbuf_len);
  if (!t->c->db)
    return chime__record_err(errbuf, errbuf_len, CHIME_ECONNECT,
                             "the transaction's connection was lost");
  chime__mysql_job_stmt js = {0};
  int r = chime__mysql_job_stmt_run(&t->tx, &js, sql, params, nparams,
                                    ret_affected);
  chime__mysql_job_stmt_close(&js);
  return r;
}

int chime__mysql_fire_tx_commit(chime_store_tx *t,
                                const chime_run_result *outcome, char *errbuf,
                                size_t errbuf_len) {
  assert(t && chime__outcome_valid(outcome));
  use_errbuf(t, errbuf, errbuf_len);
  int r = t->c->db ? 0
                   : chime__record_err(errbuf, errbuf_len, CHIME_ECONNECT,
                                       "the transaction's connection was "
                                       "lost: nothing was written");
  chime__mysql_shards_done ended = {0};
  if (r == 0)
    r = chime__mysql_complete_in(&t->tx, t->fire, outcome, &ended);
  if (r == CHIME_ENOTOWNER)
    chime__record_err(errbuf, errbuf_len, r,
                      "fire %lld was taken over by another node: nothing of "
                      "the transaction was written",
                      (long long)t->fire->fire_id);
  bool sent = false; /* COMMIT went out: a lost reply leaves it unknown */
  if (r == 0) {
    sent = true;
    r = chime__mysql_exec_plain(&t->tx, CHIME__Q_COMMIT);
  }
  bool lost = r < 0 && chime__mysql_lost(t->tx.last_errno);
  chime__mysql_store *s = t->s;
  const chime_fire *fire = t->fire; /* the caller's */
  int64_t fire_id = fire->fire_id;
  finish(t, r < 0);
  if (r == 0) {
    chime__mysql_shards_tell(s, &ended); /* committed */
    chime__mysql_held_drop(s, fire_id);
  }
  chime__mysql_shards_done_clear(&ended);
  /* The connection was lost before the COMMIT (a survivor ended this
   * node's sessions to recover it, or the server went away): nothing was
   * written.  Say whether the fire is gone to another node. */
  bool owned = true;
  if (lost && !sent && chime__mysql_still_owned(&s->base, fire, &owned) == 0 &&
      !owned)
    r = chime__record_err(errbuf, errbuf_len, CHIME_ENOTOWNER,
                          "fire %lld was taken over by another node: nothing "
                          "of the transaction was written",
                          (long long)fire_id);
  return r;
}

void chime__mysql_fire_tx_rollback(chime_store_tx *t) {
  assert(t);
  use_errbuf(t, NULL, 0);
  finish(t, true);
}
