/*
 * mysql/sessions.c: each node's database sessions, and ending a dead
 * node's sessions before recovering its fires.
 *
 * Why: a node frozen (SIGSTOP, a stalled VM) inside a transaction keeps its
 * row locks; the job's completion transaction (fire_tx.c) holds its fired
 * row for the whole job.  Recovery locks the dead node's fired rows and
 * would wait for them until the frozen node's connection times out (hours,
 * by the server's wait_timeout).  So every connection of a node registers
 * its CONNECTION_ID() in {P}node_sessions when it opens
 * (chime__mysql_session_register, in tx.c where connections open), and a
 * survivor that found a node dead
 * KILLs the node's live sessions first (chime__mysql_sessions_end): the
 * server rolls their transactions back and releases the locks, and the
 * recovery that follows does not wait.
 *
 * Only a session that is the node's for sure is killed: one listed in the
 * process list (which shows a user without the PROCESS privilege only its
 * own sessions), of this database user, registered since the server last
 * started (ids start again after a restart), never the caller's own.  A
 * registration replaces an older row with the same id (the id was reused:
 * the old session is gone).  Ending the sessions of a node whose lease ran
 * out is safe even when it is only slow: it is fenced already and
 * reconnects.
 *
 * Threads: sessions_end runs on the engine's loop thread, through tx_run_hot (a
 * lock it meets gives up after half a check-in interval, as all the loop's
 * work).
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int chime__mysql_kill(chime__mysql_tx *tx, int64_t conn_id) {
  /* On the bare connection: a session gone already (ER_NO_SUCH_THREAD) is
   * no error of the transaction, and is not logged as one. */
  MYSQL *db = tx->c->db;
  int r = chime__mysql_db_run_int(db, tx->s->prefix, CHIME__Q_SESSION_KILL,
                                  "conn_id", conn_id, NULL);
  if (r == 0 || r == CHIME_ENOMEM)
    return r;
  if (mysql_errno(db) == ER_NO_SUCH_THREAD)
    return 1;
  return chime__mysql_fail(tx, mysql_errno(db), mysql_error(db),
                           tx->s->sql[CHIME__Q_SESSION_KILL]);
}

typedef struct end_op {
  const char *node;
  size_t killed;
} end_op;

/* Reads the node's registered sessions (a plain read: a registration not
 * yet committed is not seen, and not waited for), KILLs those that are its
 * for sure (see above), and deletes the rows read, by their primary keys
 * only.  A DELETE by node would wait for the lock of a registration the
 * node had not committed when it froze (a pool connection opens lazily, so
 * a job's first transaction may be the one registering it), up to the lock
 * timeout on every retry, on the survivor's loop thread. */
static int end_fn(chime__mysql_tx *tx, void *arg) {
  end_op *op = arg;
  op->killed = 0;
  chime__mysql_sqlbuf q;
  chime__mysql_sqlbuf_init(&q, tx);
  chime__mysql_sqlbuf_stmt(&q, CHIME__Q_SESSIONS_OF_NODE);
  chime__mysql_sqlbuf_at(&q, "sched");
  chime__mysql_sqlbuf_text(&q, tx->s->sched);
  chime__mysql_sqlbuf_at(&q, "node");
  chime__mysql_sqlbuf_text(&q, op->node);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&q, &rows, NULL);
  if (r < 0)
    return r;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    if (chime__mysql_rows_is_null(&rows, i, 1) ||
        !chime__mysql_rows_int64(&rows, i, 1))
      continue; /* gone, or not the node's for sure */
    int k = chime__mysql_kill(tx, chime__mysql_rows_int64(&rows, i, 0));
    if (k == 0)
      op->killed++;
    else if (k < 0)
      r = k;
  }
  int64_t *ids = NULL;
  if (r == 0 && rows.nrows > 0 && !(ids = malloc(rows.nrows * sizeof *ids)))
    r = CHIME_ENOMEM;
  if (r == 0 && rows.nrows > 0) {
    /* The rows read are stale now: their sessions are gone. */
    for (size_t i = 0; i < rows.nrows; i++)
      ids[i] = chime__mysql_rows_int64(&rows, i, 0);
    chime__mysql_sqlbuf_init(&q, tx);
    chime__mysql_sqlbuf_stmt(&q, CHIME__Q_SESSIONS_FORGET);
    chime__mysql_sqlbuf_sorted_ids(&q, "conn_ids", ids, rows.nrows);
    /* A row whose id a new session of another node took meanwhile stays. */
    chime__mysql_sqlbuf_at(&q, "sched");
    chime__mysql_sqlbuf_text(&q, tx->s->sched);
    chime__mysql_sqlbuf_at(&q, "node");
    chime__mysql_sqlbuf_text(&q, op->node);
    r = chime__mysql_sqlbuf_run(&q, NULL, NULL);
  }
  free(ids);
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_sessions_end(chime__mysql_store *s, const char *node) {
  assert(s && node && strcmp(node, s->node) != 0);
  end_op op = {.node = node};
  /* The loop's own work: bounded like recovery itself (tx.h). */
  int r = chime__mysql_tx_run_hot(s, end_fn, NULL, &op);
  if (r == 0 && op.killed > 0)
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "ended %zu database session(s) of dead node %s", op.killed,
                     node);
  return r;
}
