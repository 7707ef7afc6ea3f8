/*
 * mysql/interrupt.c: the MySQL store's side of cancellation (store.h's
 * interrupt and interrupted).  interrupt sets fired.cancel_requested on
 * EXECUTING fires, whichever node runs them; each node reads its own
 * flagged fires (interrupted) at its check-ins, so a run anywhere in the
 * cluster learns of its interrupt within one check-in interval.  The flag
 * stays until the fire completes: reading it again is harmless.  A run of
 * a REPLACE job counts as interrupted once one of the job's triggers, held
 * BLOCKED by the run, comes due: no flag is written for it.  A run kept
 * in its trigger row (runs.c) is moved to a fired row first, where the
 * flag is.
 *
 * Threads: any (store.h); each call is one transaction of its own.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/result.h"
#include "jobstore/mysql/runs.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>

typedef struct interrupt_op {
  const char *group, *name;
  int64_t fire_id;
  uint64_t affected;
  int64_t *ids;
  size_t count;
  int64_t now; /* interrupted: the database's clock */
} interrupt_op;

static int flag_fn(chime__mysql_tx *tx, void *arg) {
  interrupt_op *op = arg;
  chime__mysql_runs_of of = {.fire_id = op->fire_id};
  if (op->fire_id <= 0) {
    of.job_group = op->group;
    of.job_name = op->name;
  }
  int r = chime__mysql_runs_spill(tx, &of, NULL);
  if (r < 0)
    return r;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  /* The flag alternates between 1 and 2 (both "cancel"), so that a fire
   * flagged already still counts as a changed row. */
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_INTERRUPT_FLAG);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_part(&b, "one_fire", op->fire_id > 0);
  if (op->fire_id > 0) {
    chime__mysql_sqlbuf_at(&b, "fire_id");
    chime__mysql_sqlbuf_int(&b, op->fire_id);
  }
  chime__mysql_sqlbuf_part(&b, "of_job", op->fire_id <= 0);
  if (op->fire_id <= 0) {
    chime__mysql_sqlbuf_at(&b, "group");
    chime__mysql_sqlbuf_text(&b, op->group);
    chime__mysql_sqlbuf_at(&b, "name");
    chime__mysql_sqlbuf_text(&b, op->name);
  }
  return chime__mysql_sqlbuf_run(&b, NULL, &op->affected);
}

int chime__mysql_interrupt(chime_store *store, const char *group,
                           const char *name, int64_t fire_id,
                           size_t *ret_count) {
  if (!chime__interrupt_args_valid(group, name, fire_id))
    return CHIME_EINVAL;
  interrupt_op op = {.group = group, .name = name, .fire_id = fire_id};
  int r = chime__mysql_tx_run(chime__mysql_store_of(store), flag_fn, NULL, &op,
                              NULL, 0);
  if (r == 0 && ret_count)
    *ret_count = (size_t)op.affected;
  return r;
}

static int list_fn(chime__mysql_tx *tx, void *arg) {
  interrupt_op *op = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_INTERRUPT_LIST);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, tx->s->node);
  /* Flagged, or replaced: a REPLACE job whose blocked trigger came due. */
  chime__mysql_sqlbuf_at(&b, "replace");
  chime__mysql_sqlbuf_int(&b, CHIME_CONCURRENCY_REPLACE);
  chime__mysql_sqlbuf_at(&b, "no_fire");
  chime__mysql_sqlbuf_int(&b, CHIME_NO_FIRE);
  chime__mysql_sqlbuf_at(&b, "now");
  chime__mysql_sqlbuf_int(&b, op->now);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  op->count = 0;
  if (r == 0 && rows.nrows > 0) {
    free(op->ids);
    op->ids = malloc(rows.nrows * sizeof *op->ids);
    if (!op->ids)
      r = CHIME_ENOMEM;
    for (size_t i = 0; r == 0 && i < rows.nrows; i++)
      op->ids[i] = chime__mysql_rows_int64(&rows, i, 0);
    op->count = r == 0 ? rows.nrows : 0;
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_interrupted(chime_store *store, int64_t **ret_ids,
                             size_t *ret_count) {
  if (!ret_ids || !ret_count)
    return CHIME_EINVAL;
  interrupt_op op = {.now = chime__mysql_now(store)};
  int r =
      chime__mysql_tx_run_hot(chime__mysql_store_of(store), list_fn, NULL, &op);
  if (r < 0) {
    free(op.ids);
    return r;
  }
  *ret_ids = op.ids;
  *ret_count = op.count;
  return 0;
}
