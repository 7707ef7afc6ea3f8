/*
 * mysql/node.c: the identity of this node in the MySQL store's nodes
 * table: claiming the instance id when the store opens (a live node of
 * another process with the same id is refused with CHIME_EDUPNODE) and
 * giving it back when the store is closed cleanly.  Claiming an id whose
 * earlier run died (no live row) recovers that run's fires first, and
 * stamps the row with this process (host, pid, start).
 *
 * The database decides who holds an id, whatever the timing: an existing
 * row is locked (FOR UPDATE) while it is claimed, so a second claimer
 * waits and then sees the first one's live row; a new id is a plain
 * INSERT, so of two claimers the primary key refuses one (duplicate key),
 * which claims again and finds the other's live row.  The check-in
 * (chime__mysql_node_checkin) stamps only a row that still names this
 * process (host, pid, started_ms): a row naming another process means
 * this one lost the id (it was found dead, and the id claimed again) and
 * must claim nothing under it (CHIME_EDUPNODE; the engine fences).
 *
 * A node is live while its lease (jobstore/store.h's rule, in SQL as
 * CHIME__MYSQL_NODE_LIVE_SQL) has not run out by the database's clock;
 * recover.c declares nodes dead by the same macro.  Two stores of one
 * process may share an id (the store tests simulate several nodes that
 * way); two processes may not, even with one host name and one pid (two
 * containers on the host's network, each its own pid 1): a row is this
 * process's only when this process claimed it (held_rows).
 *
 * Threads: held_mu guards held_rows (any thread opening or freeing a
 * store; taken for a moment, never across a round trip).  Claim runs
 * while the store opens, leave while it is freed;
 * each is one transaction (tx.h); checkin runs in the store's check-in,
 * on the heartbeat connection (maint.c).
 */
#include "jobstore/mysql/ops.h"

#include "chime-config.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct claim_op {
  char host[256];
  bool taken;
  bool restarted;     /* no live row of this process: an earlier run died */
  size_t recovered;   /* the fires that earlier run left */
  int64_t started_ms; /* the row's, once claimed */
  char other_host[256];
  int64_t other_pid;
} claim_op;

/* The rows this process holds, by scheduler, id and started_ms: a live
 * row naming this host and pid is this process's only when it is listed
 * here.  Two containers sharing the host's name (host networking) both
 * run as pid 1, say: host and pid alone cannot tell them apart.  Under
 * held_mu; an entry lives while a store of this process holds the row. */
typedef struct held_row {
  struct held_row *next;
  char *sched, *node;
  int64_t started_ms;
  unsigned stores;
} held_row;

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static held_row *held_rows;

/* The entry of sched/node/started_ms, or NULL.  held_mu held. */
static held_row *held_find(const char *sched, const char *node,
                           int64_t started_ms) {
  for (held_row *h = held_rows; h; h = h->next)
    if (h->started_ms == started_ms && strcmp(h->sched, sched) == 0 &&
        strcmp(h->node, node) == 0)
      return h;
  return NULL;
}

static bool held_by_process(const char *sched, const char *node,
                            int64_t started_ms) {
  pthread_mutex_lock(&held_mu);
  bool yes = held_find(sched, node, started_ms) != NULL;
  pthread_mutex_unlock(&held_mu);
  return yes;
}

/* Counts one more store of this process holding the row.  Returns: 0;
 * CHIME_ENOMEM. */
static int held_add(const char *sched, const char *node, int64_t started_ms) {
  pthread_mutex_lock(&held_mu);
  held_row *h = held_find(sched, node, started_ms);
  int r = 0;
  if (h) {
    h->stores++;
  } else if ((h = calloc(1, sizeof *h)) && (h->sched = strdup(sched)) &&
             (h->node = strdup(node))) {
    h->started_ms = started_ms;
    h->stores = 1;
    h->next = held_rows;
    held_rows = h;
  } else {
    if (h)
      free(h->sched);
    free(h);
    r = CHIME_ENOMEM;
  }
  pthread_mutex_unlock(&held_mu);
  return r;
}

static void held_drop(const char *sched, const char *node, int64_t started_ms) {
  pthread_mutex_lock(&held_mu);
  for (held_row **p = &held_rows; *p; p = &(*p)->next) {
    held_row *h = *p;
    if (h->started_ms != started_ms || strcmp(h->sched, sched) != 0 ||
        strcmp(h->node, node) != 0)
      continue;
    assert(h->stores > 0);
    if (--h->stores == 0) {
      *p = h->next;
      free(h->sched);
      free(h->node);
      free(h);
    }
    break;
  }
  pthread_mutex_unlock(&held_mu);
}

/* The arguments host, pid, started, interval, version, tags and
 * runs_in_triggers: started again, since this process reads runs kept in
 * trigger rows (runs.c, migration 018). */
#define NODE_ROW_ARGS(s, host, started)                                        \
  chime__mysql_arg_text(host), chime__mysql_arg_int((int64_t)getpid()),        \
      chime__mysql_arg_int(started),                                           \
      chime__mysql_arg_int((s)->checkin_interval_ms),                          \
      chime__mysql_arg_text(CHIME_VERSION_STRING),                             \
      chime__mysql_arg_text((s)->tags ? (s)->tags : ""),                       \
      chime__mysql_arg_int(started)

/* The id has a live row of this process (another store of it): shared,
 * stamped as a check-in would. */
static int share(chime__mysql_tx *tx, const claim_op *op) {
  chime__mysql_store *s = tx->s;
  /* Its fires are reported by the store that checks in (NULL: none). */
  chime__mysql_arg a[] = {chime__mysql_arg_int(s->checkin_interval_ms),
                          chime__mysql_arg_text(s->tags ? s->tags : ""),
                          chime__mysql_arg_text(NULL),
                          chime__mysql_arg_text(NULL),
                          chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node),
                          chime__mysql_arg_text(op->host),
                          chime__mysql_arg_int((int64_t)getpid()),
                          chime__mysql_arg_int(op->started_ms)};
  return chime__mysql_exec(tx, CHIME__Q_NODE_STAMP, a, 9, NULL, NULL);
}

/* Whether this node may keep runs in trigger rows (runs.c): no other live
 * node is of a release that does not read them.  The check-ins read it
 * again (maint.c). */
static int read_runs_gate(chime__mysql_tx *tx) {
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(tx->s->node)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_NODES_WITHOUT_RUNS, a, 2, &rows);
  if (r == 0)
    atomic_store(&tx->s->runs_in_triggers,
                 chime__mysql_rows_int64(&rows, 0, 0) == 0);
  chime__mysql_rows_free(&rows);
  return r;
}

/* Claims the id's row for this process (op says how it went). */
static int claim_row(chime__mysql_tx *tx, claim_op *op) {
  chime__mysql_store *s = tx->s;
  chime__mysql_arg a[] = {chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node)};
  chime__mysql_rows rows;
  op->taken = false;
  op->restarted = false;
  op->recovered = 0;
  op->started_ms = chime__mysql_now(&s->base);
  /* The row, live or not, locked: a concurrent claimer of an existing id
   * waits here for this one's commit, then sees the row it wrote. */
  int r = chime__mysql_query(tx, CHIME__Q_NODE_LOCK, a, 2, &rows);
  if (r < 0) {
    chime__mysql_rows_free(&rows);
    return r;
  }
  bool exists = rows.nrows > 0;
  bool live = false;
  if (exists) {
    assert(rows.nrows == 1 && rows.ncols == 4); /* the primary key */
    live = chime__mysql_rows_int64(&rows, 0, 3) != 0;
  }
  /* No live row: whatever fires this id holds, a dead run left them, and
   * with no survivor running nobody else would ever give them back. */
  op->restarted = !live;
  if (live) {
    const char *h = chime__mysql_rows_text(&rows, 0, 0);
    int64_t pid = chime__mysql_rows_int64(&rows, 0, 1);
    int64_t started = chime__mysql_rows_int64(&rows, 0, 2);
    if (strcmp(h, op->host) != 0 || pid != (int64_t)getpid() ||
        !held_by_process(s->sched, s->node, started)) {
      op->taken = true;
      snprintf(op->other_host, sizeof op->other_host, "%s", h);
      op->other_pid = pid;
    } else {
      op->started_ms = started;
    }
  }
  chime__mysql_rows_free(&rows);
  if (op->taken)
    return 0;
  if (live) /* another store of this process: the row is shared */
    return share(tx, op);
  r = chime__mysql_recover_own(tx, &op->recovered);
  if (r < 0)
    return r;
  if (exists) { /* a dead run's row, locked above: now this process's */
    chime__mysql_arg t[] = {NODE_ROW_ARGS(s, op->host, op->started_ms),
                            chime__mysql_arg_text(s->sched),
                            chime__mysql_arg_text(s->node)};
    return chime__mysql_exec(tx, CHIME__Q_NODE_TAKE, t, 9, NULL, NULL);
  }
  /* A new id: the primary key decides between concurrent claimers (a
   * duplicate key, CHIME_EEXISTS, sends this one round again). */
  chime__mysql_arg n[] = {chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node),
                          NODE_ROW_ARGS(s, op->host, op->started_ms)};
  return chime__mysql_exec(tx, CHIME__Q_NODE_INSERT, n, 9, NULL, NULL);
}

static int claim_fn(chime__mysql_tx *tx, void *arg) {
  claim_op *op = arg;
  int r = claim_row(tx, op);
  return r < 0 || op->taken ? r : read_runs_gate(tx);
}

void chime__mysql_host_name(char *buf, size_t len) {
  if (gethostname(buf, len - 1) != 0)
    snprintf(buf, len, "unknown");
  buf[len - 1] = '\0';
}

/* A claim that lost the race for a new id to another claimer's INSERT is
 * run again (it then finds that claimer's live row); a few rounds at most,
 * for an id whose rows come and go meanwhile. */
#define CLAIM_ROUNDS 3

int chime__mysql_node_claim(chime__mysql_store *s, char *errbuf,
                            size_t errbuf_len) {
  assert(s && !s->node_claimed);
  claim_op op = {.taken = false};
  chime__mysql_host_name(op.host, sizeof op.host);
  int r = CHIME_EEXISTS;
  for (int round = 0; r == CHIME_EEXISTS && round < CLAIM_ROUNDS; round++)
    r = chime__mysql_tx_run(s, claim_fn, NULL, &op, errbuf, errbuf_len);
  if (r == CHIME_EEXISTS)
    return chime__record_err(
        errbuf, errbuf_len, CHIME_EDUPNODE,
        "instance id '%.190s' of scheduler '%.190s' was claimed by another "
        "process at the same time, %d times in a row; choose another id",
        s->node, s->sched, CLAIM_ROUNDS);
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
  snprintf(s->node_host, sizeof s->node_host, "%s", op.host);
  s->node_pid = (int64_t)getpid();
  s->node_started_ms = op.started_ms;
  return held_add(s->sched, s->node, op.started_ms);
}

/* The row of this node names host/pid/started (or is gone: *ret_gone). */
static int holder(chime__mysql_tx *tx, bool *ret_ours, bool *ret_gone,
                  char *other, size_t other_len, int64_t *ret_pid) {
  chime__mysql_store *s = tx->s;
  chime__mysql_arg a[] = {chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_NODE_HOLDER, a, 2, &rows);
  if (r == 0) {
    *ret_gone = rows.nrows == 0;
    *ret_ours = false;
    if (rows.nrows > 0) {
      assert(rows.nrows == 1 && rows.ncols == 3);
      const char *h = chime__mysql_rows_text(&rows, 0, 0);
      *ret_pid = chime__mysql_rows_int64(&rows, 0, 1);
      *ret_ours = strcmp(h, s->node_host) == 0 && *ret_pid == s->node_pid &&
                  chime__mysql_rows_int64(&rows, 0, 2) == s->node_started_ms;
      snprintf(other, other_len, "%s", h);
    }
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_node_checkin(chime__mysql_tx *tx, int64_t now_ms) {
  chime__mysql_store *s = tx->s;
  assert(s->node_claimed);
  /* The fires held, taken after the check-in read the clock (now_ms):
   * every fire committed before now_ms is in the list unless this node
   * is done with it (held.c). */
  char *held = chime__mysql_held_text(s);
  if (!held)
    return CHIME_ENOMEM;
  chime__mysql_arg a[] = {chime__mysql_arg_int(s->checkin_interval_ms),
                          chime__mysql_arg_text(s->tags ? s->tags : ""),
                          chime__mysql_arg_text(held),
                          chime__mysql_arg_int(now_ms),
                          chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node),
                          chime__mysql_arg_text(s->node_host),
                          chime__mysql_arg_int(s->node_pid),
                          chime__mysql_arg_int(s->node_started_ms)};
  uint64_t changed = 0;
  int r = chime__mysql_exec(tx, CHIME__Q_NODE_STAMP, a, 9, &changed, NULL);
  free(held);
  if (r < 0 || changed > 0)
    goto held;
  /* Nothing changed: the same millisecond as the last stamp (another
   * store of this process), a row removed by a survivor that found this
   * node dead (a pause past its lease), or a row naming another process
   * that claimed the id after that. */
  bool ours = false, gone = false;
  char other[256] = "?";
  int64_t other_pid = 0;
  r = holder(tx, &ours, &gone, other, sizeof other, &other_pid);
  if (r < 0 || ours)
    goto held;
  if (gone) {
    /* Back under the id, as a new claim would be: the primary key decides
     * against a process claiming it at the same moment. */
    chime__mysql_arg n[] = {chime__mysql_arg_text(s->sched),
                            chime__mysql_arg_text(s->node),
                            NODE_ROW_ARGS(s, s->node_host, s->node_started_ms)};
    r = chime__mysql_exec(tx, CHIME__Q_NODE_INSERT, n, 9, NULL, NULL);
    if (r != CHIME_EEXISTS)
      goto held;
  }
  /* Another process holds the id: this one must not claim anything under
   * it.  Said once per loss, at ERROR: two processes were given one id. */
  if (!s->node_lost)
    chime__mysql_log(
        s, CHIME_LOG_ERROR,
        "instance id %s is now held by another process (host %s, pid %lld): "
        "this process (host %s, pid %lld) lost it, probably after a pause "
        "past its lease, and claims no fires under it; stop this process or "
        "give each process its own instance id",
        s->node, other, (long long)other_pid, s->node_host,
        (long long)s->node_pid);
  s->node_lost = true;
  return CHIME_EDUPNODE;
held:
  if (r == 0 && s->node_lost) {
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "instance id %s is held by this process again", s->node);
    s->node_lost = false;
  }
  return r;
}

int chime__mysql_node_leave_tx(chime__mysql_tx *tx) {
  chime__mysql_store *s = tx->s;
  chime__mysql_arg a[] = {chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node),
                          chime__mysql_arg_text(s->node_host),
                          chime__mysql_arg_int(s->node_pid),
                          chime__mysql_arg_int(s->node_started_ms),
                          chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node),
                          chime__mysql_arg_text(s->sched),
                          chime__mysql_arg_text(s->node)};
  return chime__mysql_exec(tx, CHIME__Q_NODE_LEAVE, a, 9, NULL, NULL);
}

static int leave_fn(chime__mysql_tx *tx, void *arg) {
  (void)arg;
  return chime__mysql_node_leave_tx(tx);
}

void chime__mysql_node_leave(chime__mysql_store *s) {
  assert(s && s->node_claimed);
  held_drop(s->sched, s->node, s->node_started_ms);
  int r = chime__mysql_tx_run(s, leave_fn, NULL, NULL, NULL, 0);
  if (r < 0)
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "could not remove node %s from the nodes table: %s",
                     s->node, chime_strerror(r));
}
