/*
 * mysql/node.c: the identity of this node in the MySQL store's nodes
 * table: claiming the instance id when the store opens (a live node of
 * another process with the same id is refused with CHIME_EDUPNODE) and
 * giving it back when the store is closed cleanly.  Claiming an id whose
 * earlier run died (no live row) recovers that run's fires first, and
 * stamps the row with this process (host, pid, start).
 *
 * A node is live while its lease (jobstore/store.h's rule, in SQL as
 * CHIME__MYSQL_NODE_LIVE_SQL) has not run out by the database's clock;
 * recover.c declares nodes dead by the same macro.  Two stores of one
 * process may share an id (the store tests simulate several nodes that
 * way); two processes may not.
 *
 * Threads: claim runs while the store opens, leave while it is freed;
 * each is one transaction (tx.h).
 */
#include "jobstore/mysql/ops.h"

#include "chime-config.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct claim_op {
  char host[256];
  bool taken;
  bool restarted;   /* no live row of this process: an earlier run died */
  size_t recovered; /* the fires that earlier run left */
  char other_host[256];
  int64_t other_pid;
} claim_op;

/* The row of an id taken over from a dead earlier run names this one. */
static int restamp(chime__mysql_tx *tx, const char *host) {
  chime__mysql_store *s = tx->s;
  char sql[200];
  snprintf(sql, sizeof sql,
           "UPDATE %snodes SET host = ?, pid = ?, started_ms = ? WHERE "
           "sched_name = ? AND instance_id = ?",
           s->prefix);
  chime__mysql_arg a[] = {
      chime__mysql_arg_text(host), chime__mysql_arg_int((int64_t)getpid()),
      chime__mysql_arg_int(chime__mysql_now(&s->base)),
      chime__mysql_arg_text(s->sched), chime__mysql_arg_text(s->node)};
  return chime__mysql_exec_sql(tx, sql, a, 5, NULL);
}

static int claim_fn(chime__mysql_tx *tx, void *arg) {
  claim_op *op = arg;
  chime__mysql_store *s = tx->s;
  chime__mysql_arg a[] = {chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node)};
  chime__mysql_rows rows;
  op->taken = false;
  op->restarted = false;
  op->recovered = 0;
  int r = chime__mysql_query(tx, CHIME__Q_NODE_LIVE_LOCK, a, 2, &rows);
  /* No live row: whatever fires this id holds, a dead run left them, and
   * with no survivor running nobody else would ever give them back. */
  op->restarted = r == 0 && rows.nrows == 0;
  if (r == 0 && rows.nrows > 0) {
    assert(rows.nrows == 1 && rows.ncols == 2); /* the primary key */
    const char *h = chime__mysql_rows_text(&rows, 0, 0);
    int64_t pid = chime__mysql_rows_int64(&rows, 0, 1);
    if (strcmp(h, op->host) != 0 || pid != (int64_t)getpid()) {
      op->taken = true;
      snprintf(op->other_host, sizeof op->other_host, "%s", h);
      op->other_pid = pid;
    }
  }
  chime__mysql_rows_free(&rows);
  if (r < 0 || op->taken)
    return r;
  if (op->restarted)
    r = chime__mysql_recover_own(tx, &op->recovered);
  if (r == 0)
    r = chime__mysql_node_upsert(tx, op->host);
  if (r == 0 && op->restarted)
    r = restamp(tx, op->host);
  return r;
}

void chime__mysql_host_name(char *buf, size_t len) {
  if (gethostname(buf, len - 1) != 0)
    snprintf(buf, len, "unknown");
  buf[len - 1] = '\0';
}

int chime__mysql_node_upsert(chime__mysql_tx *tx, const char *host) {
  chime__mysql_store *s = tx->s;
  char here[256] = "";
  if (!host) {
    chime__mysql_host_name(here, sizeof here);
    host = here;
  }
  chime__mysql_arg a[] = {chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node),
                          chime__mysql_arg_text(host),
                          chime__mysql_arg_int((int64_t)getpid()),
                          chime__mysql_arg_int(chime__mysql_now(&s->base)),
                          chime__mysql_arg_int(s->checkin_interval_ms),
                          chime__mysql_arg_text(CHIME_VERSION_STRING),
                          chime__mysql_arg_text(s->tags ? s->tags : "")};
  return chime__mysql_exec(tx, CHIME__Q_NODE_UPSERT, a, 8, NULL, NULL);
}

int chime__mysql_node_claim(chime__mysql_store *s, char *errbuf,
                            size_t errbuf_len) {
  assert(s && !s->node_claimed);
  claim_op op = {.taken = false};
  chime__mysql_host_name(op.host, sizeof op.host);
  int r = chime__mysql_tx_run(s, claim_fn, NULL, &op, errbuf, errbuf_len);
  if (r < 0)
    return r;
  if (op.recovered)
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "instance id %s restarted after its lease ended: "
                     "recovered %zu fire(s) of its earlier run",
                     s->node, op.recovered);
  if (op.taken)
    return chime__record_err(
        errbuf, errbuf_len, CHIME_EDUPNODE,
        "instance id '%.190s' is in use by a live node (host %.200s, pid "
        "%lld) of scheduler '%.190s'; choose another id or wait until that "
        "node has been gone for %lld ms",
        s->node, op.other_host, (long long)op.other_pid, s->sched,
        (long long)chime__lease_ms(s->checkin_interval_ms));
  return 0;
}

static int leave_fn(chime__mysql_tx *tx, void *arg) {
  chime__mysql_store *s = tx->s;
  (void)arg;
  chime__mysql_arg a[] = {
      chime__mysql_arg_text(s->sched), chime__mysql_arg_text(s->node),
      chime__mysql_arg_text(s->sched), chime__mysql_arg_text(s->node)};
  return chime__mysql_exec(tx, CHIME__Q_NODE_LEAVE, a, 4, NULL, NULL);
}

void chime__mysql_node_leave(chime__mysql_store *s) {
  assert(s && s->node_claimed);
  int r = chime__mysql_tx_run(s, leave_fn, NULL, NULL, NULL, 0);
  if (r < 0)
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "could not remove node %s from the nodes table: %s",
                     s->node, chime_strerror(r));
}
