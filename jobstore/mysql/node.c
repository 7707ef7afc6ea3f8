/*
 * mysql/node.c: the identity of this node in the MySQL store's nodes
 * table: claiming the instance id when the store opens (a live node of
 * another process with the same id is refused with CHIME_EDUPNODE) and
 * giving it back when the store is closed cleanly.
 *
 * A node is live while its last check-in (database time) is younger than
 * its lease, CHIME__LEASE_FACTOR check-in intervals; mysql/recover.c
 * uses the same rule to declare nodes dead.  Two stores of one process
 * may share an id (the store tests simulate several nodes that way); two
 * processes may not.
 */
#include "jobstore/mysql/mysql.h"

#include "chime-config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The live row of this id, if any, locked. */
static const char SQL_LIVE[] =
    "SELECT host, pid FROM {P}nodes WHERE sched_name = ? AND instance_id = ? "
    "AND last_checkin_ms + checkin_interval_ms * ? >= "
    "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) FOR UPDATE";

/* Removes this node's row when it holds no fires. */
static const char SQL_LEAVE[] =
    "DELETE FROM {P}nodes WHERE sched_name = ? AND instance_id = ? AND NOT "
    "EXISTS (SELECT 1 FROM {P}fired WHERE sched_name = ? AND node = ?)";

typedef struct claim_op {
  char *sql;
  char host[256];
  bool taken;
  char other_host[256];
  int64_t other_pid;
} claim_op;

static int claim_fn(chime__mysql_tx *tx, void *arg) {
  claim_op *op = arg;
  chime__mysql_store *s = tx->s;
  chime__mysql_arg a[] = {chime__mysql_arg_text(s->sched), chime__mysql_arg_text(s->node),
                chime__mysql_arg_int(CHIME__LEASE_FACTOR)};
  chime__mysql_rows rows;
  op->taken = false;
  int r = chime__mysql_query(tx, CHIME__Q_NODES_DEAD, op->sql, a, 3, &rows);
  if (r < 0)
    return r;
  if (rows.nrows > 0) {
    const char *h = chime__mysql_rows_text(&rows, 0, 0);
    int64_t pid = chime__mysql_rows_int64(&rows, 0, 1);
    if (strcmp(h ? h : "", op->host) != 0 || pid != (int64_t)getpid()) {
      op->taken = true;
      snprintf(op->other_host, sizeof op->other_host, "%s", h ? h : "?");
      op->other_pid = pid;
    }
  }
  chime__mysql_rows_free(&rows);
  if (op->taken)
    return 0;
  int64_t now = chime__mysql_now(&s->base);
  chime__mysql_arg u[] = {chime__mysql_arg_text(s->sched),
                chime__mysql_arg_text(s->node),
                chime__mysql_arg_text(op->host),
                chime__mysql_arg_int((int64_t)getpid()),
                chime__mysql_arg_int(now),
                chime__mysql_arg_int(s->checkin_interval_ms),
                chime__mysql_arg_text(CHIME_VERSION_STRING)};
  return chime__mysql_exec(tx, CHIME__Q_NODE_UPSERT, NULL, u, 7, NULL, NULL);
}

int chime__mysql_node_claim(chime__mysql_store *s, char *errbuf, size_t errbuf_len) {
  claim_op op = {.sql = chime__mysql_subst_prefix(SQL_LIVE, s->prefix)};
  if (!op.sql)
    return CHIME_ENOMEM;
  if (gethostname(op.host, sizeof op.host - 1) != 0)
    snprintf(op.host, sizeof op.host, "unknown");
  int r = chime__mysql_tx_run(s, claim_fn, NULL, &op, errbuf, errbuf_len);
  free(op.sql);
  if (r < 0)
    return r;
  if (op.taken)
    return chime__record_err(
        errbuf, errbuf_len, CHIME_EDUPNODE,
        "instance id '%.190s' is in use by a live node (host %.200s, pid "
        "%lld) of scheduler '%.190s'; choose another id or wait until that "
        "node has been gone for %lld ms",
        s->node, op.other_host, (long long)op.other_pid, s->sched,
        (long long)(s->checkin_interval_ms * CHIME__LEASE_FACTOR));
  return 0;
}

typedef struct leave_op {
  char *sql;
} leave_op;

static int leave_fn(chime__mysql_tx *tx, void *arg) {
  leave_op *op = arg;
  chime__mysql_store *s = tx->s;
  chime__mysql_arg a[] = {chime__mysql_arg_text(s->sched), chime__mysql_arg_text(s->node),
                chime__mysql_arg_text(s->sched), chime__mysql_arg_text(s->node)};
  return chime__mysql_exec(tx, CHIME__Q_NODE_DELETE, op->sql, a, 4, NULL, NULL);
}

void chime__mysql_node_leave(chime__mysql_store *s) {
  leave_op op = {.sql = chime__mysql_subst_prefix(SQL_LEAVE, s->prefix)};
  if (!op.sql)
    return;
  int r = chime__mysql_tx_run(s, leave_fn, NULL, &op, NULL, 0);
  if (r < 0)
    chime__mysql_log(s, CHIME_LOG_WARN,
                  "could not remove node %s from the nodes table: %s", s->node,
                  chime_strerror(r));
  free(op.sql);
}
