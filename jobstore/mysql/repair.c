/*
 * mysql/repair.c: the fixes of `chimectl repair --apply` (admin.h's
 * chime__mysql_admin_repair), each one transaction that checks again,
 * under the rows' locks, that the state is still stuck, fixes it with the
 * store's own step and records it in the audit table:
 *
 *   BLOCKED    a FORBID job's triggers left BLOCKED (PAUSED_BLOCKED) with
 *              no fire of the job executing: unblocked as a completion
 *              unblocks them (tables.c's job_unblock);
 *   LOST       a fire EXECUTING on a live node that has no run of it:
 *              ended as a dead node's fire (recover.c: run again when the
 *              job requests recovery, else FAILED); the node's late
 *              completion, if any, is refused (fencing);
 *   ERROR      a trigger in ERROR: given the state it would get if it
 *              were added now (WAITING, PAUSED, BLOCKED, COMPLETE: trig.c);
 *              it goes back to ERROR if its cause is still there;
 *   ORPHAN     a trigger of chime's own groups (shard, retry, recovery)
 *              whose job, or whose sharded fire, is gone, and which is
 *              not claimed: deleted;
 *   LEASE      a lease held by a node that is gone (queries/stuck_lease.sql):
 *              released.
 *
 * chime-admin.h's chime_admin_repair comes here through the store's
 * admin_repair (chime__mysql_repair), which names the kind by the word of
 * CHIME_ADMIN_STUCK's "kind" column.
 *
 * Threads: the operator's store's one thread.
 */
#include "jobstore/mysql/admin.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"
#include "model/records.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

typedef struct repair_op {
  chime__mysql_repair_kind kind;
  const char *group, *name; /* the job (BLOCKED) or trigger */
  int64_t fire_id;          /* LOST */
  const char *node;         /* LOST */
  const char *who, *origin;
  bool fixed;
  char target[420];
  char details[300];
} repair_op;

/* How many triggers of job (group, name) are blocked. */
static int blocked_count(chime__mysql_tx *tx, const char *group,
                         const char *name, int64_t *ret_n) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_REPAIR_BLOCKED_COUNT);
  chime__mysql_sqlbuf_key(&b, tx->s->sched, group, name);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r == 0)
    *ret_n = chime__mysql_rows_int64(&rows, 0, 0);
  chime__mysql_rows_free(&rows);
  return r;
}

static int fix_blocked(chime__mysql_tx *tx, repair_op *op) {
  int64_t before = 0, after = 0;
  int r = blocked_count(tx, op->group, op->name, &before);
  if (r == 0 && before > 0)
    r = chime__mysql_job_unblock(tx, op->group, op->name);
  if (r == 0 && before > 0)
    r = blocked_count(tx, op->group, op->name, &after);
  op->fixed = r == 0 && after < before;
  snprintf(op->target, sizeof op->target, "job %s.%s", op->group, op->name);
  snprintf(op->details, sizeof op->details,
           "blocked with no run: %lld trigger(s) unblocked",
           (long long)(before - after));
  return r;
}

static int fix_lost(chime__mysql_tx *tx, repair_op *op) {
  chime__mysql_rows rows;
  int r = chime__mysql_fired_get(tx, op->fire_id, &rows);
  if (r < 0)
    return r;
  if (rows.nrows == 1 &&
      strcmp(chime__mysql_rows_text(&rows, 0, CHIME__FIRED_COL_STATE),
             "EXECUTING") == 0 &&
      strcmp(chime__mysql_rows_text(&rows, 0, CHIME__FIRED_COL_NODE),
             op->node) == 0) {
    r = chime__mysql_recover_forgotten(tx, &rows, 0);
    op->fixed = r == 0;
  }
  chime__mysql_rows_free(&rows);
  snprintf(op->target, sizeof op->target, "fire %lld", (long long)op->fire_id);
  snprintf(op->details, sizeof op->details,
           "executing on node %.120s, which has no run of it: ended as a "
           "lost fire",
           op->node);
  return r;
}

static int fix_error(chime__mysql_tx *tx, repair_op *op) {
  chime_trigger *t = NULL;
  int r = chime__mysql_trigger_load(tx, op->group, op->name, true, &t);
  snprintf(op->target, sizeof op->target, "trigger %s.%s", op->group, op->name);
  if (r < 0 || !t || t->store_state != CHIME_STATE_ERROR) {
    chime_trigger_free(t);
    return r;
  }
  bool job = false;
  chime_store_state st;
  r = chime__mysql_trigger_start_state(tx, t, &job, &st);
  if (r == 0 && job) {
    t->store_state = st;
    r = chime__mysql_trigger_save_state(tx, t);
    op->fixed = r == 0;
    snprintf(op->details, sizeof op->details, "ERROR reset to %s",
             chime__mysql_state_name(st));
  }
  chime_trigger_free(t);
  return r;
}

static int fix_orphan(chime__mysql_tx *tx, repair_op *op) {
  chime_trigger *t = NULL;
  int r = chime__mysql_trigger_load(tx, op->group, op->name, true, &t);
  snprintf(op->target, sizeof op->target, "trigger %s.%s", op->group, op->name);
  if (r < 0 || !t)
    return r;
  /* Not while a claim of it is under way (its fire ends it). */
  bool claimed = t->store_state == CHIME_STATE_ACQUIRED ||
                 t->store_state == CHIME_STATE_EXECUTING;
  if (!claimed) {
    r = chime__mysql_trigger_delete(tx, op->group, op->name, t->job_group,
                                    t->job_name, false);
    op->fixed = r == 0;
    snprintf(op->details, sizeof op->details,
             "its job or sharded fire is gone: deleted");
  }
  chime_trigger_free(t);
  return r;
}

static int fix_lease(chime__mysql_tx *tx, repair_op *op) {
  snprintf(op->target, sizeof op->target, "lease %s", op->name);
  chime__mysql_arg args[] = {chime__mysql_arg_text(tx->s->sched),
                             chime__mysql_arg_text(op->name),
                             chime__mysql_arg_text(op->name)};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_STUCK_LEASE, args, 3, &rows);
  if (r < 0)
    return r;
  if (rows.nrows == 1) { /* still held by a node that is gone */
    snprintf(op->details, sizeof op->details,
             "held by node %s (host %s, pid %s), %s",
             chime__mysql_rows_text(&rows, 0, 1),
             chime__mysql_rows_text(&rows, 0, 2),
             chime__mysql_rows_text(&rows, 0, 3),
             strcmp(chime__mysql_rows_text(&rows, 0, 4), "node_gone") == 0
                 ? "which has left the cluster"
                 : "whose id another process holds now");
    uint64_t changed = 0;
    r = chime__mysql_exec(tx, CHIME__Q_LEASE_EXPIRE, args, 2, &changed, NULL);
    op->fixed = r == 0 && changed > 0;
  }
  chime__mysql_rows_free(&rows);
  return r;
}

static int repair_fn(chime__mysql_tx *tx, void *arg) {
  repair_op *op = arg;
  op->fixed = false;
  op->details[0] = '\0';
  int r;
  switch (op->kind) {
  case CHIME__REPAIR_BLOCKED:
    r = fix_blocked(tx, op);
    break;
  case CHIME__REPAIR_LOST:
    r = fix_lost(tx, op);
    break;
  case CHIME__REPAIR_ERROR:
    r = fix_error(tx, op);
    break;
  case CHIME__REPAIR_LEASE:
    r = fix_lease(tx, op);
    break;
  default:
    r = fix_orphan(tx, op);
    break;
  }
  if (r < 0 || !op->fixed)
    return r;
  return chime__mysql_audit_tx(tx, op->who, op->origin, "repair", op->target,
                               op->details);
}

/* Fixes the stuck state of kind (its key checked) on s. */
static int repair_run(chime__mysql_store *s, chime__mysql_repair_kind kind,
                      const char *group, const char *name, int64_t fire_id,
                      const char *node, const char *who, const char *origin,
                      bool *ret_fixed, char *errbuf, size_t errbuf_len) {
  repair_op op = {.kind = kind,
                  .group = group,
                  .name = name,
                  .fire_id = fire_id,
                  .node = node,
                  .who = who,
                  .origin = origin};
  *ret_fixed = false;
  if ((kind == CHIME__REPAIR_LOST && (fire_id <= 0 || !node)) ||
      (kind == CHIME__REPAIR_LEASE && !name) ||
      (kind != CHIME__REPAIR_LOST && kind != CHIME__REPAIR_LEASE &&
       (!group || !name)))
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "a repair names a job, trigger, fire or lease");
  int r = chime__mysql_tx_run(s, repair_fn, NULL, &op, errbuf, errbuf_len);
  if (r == 0)
    *ret_fixed = op.fixed;
  return r;
}

int chime__mysql_admin_repair(chime__mysql_admin *a,
                              chime__mysql_repair_kind kind, const char *group,
                              const char *name, int64_t fire_id,
                              const char *node, const char *who,
                              const char *origin, bool *ret_fixed, char *errbuf,
                              size_t errbuf_len) {
  assert(a && ret_fixed);
  return repair_run(chime__mysql_admin_store(a), kind, group, name, fire_id,
                    node, who, origin, ret_fixed, errbuf, errbuf_len);
}

int chime__mysql_repair(chime_store *store, const char *kind, const char *group,
                        const char *name, int64_t fire_id, const char *node,
                        const char *who, const char *origin, bool *ret_fixed,
                        char *errbuf, size_t errbuf_len) {
  static const char *const words[] = {[CHIME__REPAIR_BLOCKED] = "blocked",
                                      [CHIME__REPAIR_LOST] = "lost",
                                      [CHIME__REPAIR_ERROR] = "error",
                                      [CHIME__REPAIR_ORPHAN] = "orphan",
                                      [CHIME__REPAIR_LEASE] = "lease"};
  assert(store && kind && ret_fixed);
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strcmp(kind, words[k]) == 0)
      return repair_run(chime__mysql_store_of(store),
                        (chime__mysql_repair_kind)k, group, name, fire_id, node,
                        who, origin, ret_fixed, errbuf, errbuf_len);
  *ret_fixed = false;
  return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                           "no stuck state of kind %s (blocked, lost, error, "
                           "orphan or lease)",
                           kind);
}
