/*
 * mysql/fire.c: fire for the MySQL store (store.h), for claims acquire
 * made ahead of their time (mysql/acquire.c): each claim moves to
 * EXECUTING only if its trigger row is still ACQUIRED by this node for
 * this fire id (checked under the row lock); the trigger gets its next
 * fire time and is stored WAITING, BLOCKED or COMPLETE.
 *
 * The claims still held as acquire left them go through one locking query
 * and a few batched writes; anything unusual (a claim lost to a removal, a
 * pause or a replacement; a retry after a lost COMMIT reply) is handled
 * one fire at a time by fire_unusual.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/batch.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct fire_res {
  int result;
  chime_trigger *trigger; /* the state after the fire */
  chime_job *job;         /* the job as it is now */
} fire_res;

typedef struct fire_op {
  chime_fire **fires;
  size_t count;
  fire_res *res;
  bool retry; /* an earlier attempt failed */
} fire_op;

static void fire_reset(void *arg) {
  fire_op *op = arg;
  op->retry = true;
  for (size_t i = 0; i < op->count; i++) {
    chime_trigger_free(op->res[i].trigger);
    chime_job_free(op->res[i].job);
    memset(&op->res[i], 0, sizeof op->res[i]);
  }
}

/* Whether row of a trigger result is still claimed by id of this node. */
static bool still_claimed(chime__mysql_tx *tx, const chime__mysql_rows *t,
                          size_t row, int64_t id) {
  const char *owner = chime__mysql_rows_text(t, row, CHIME__TRIG_COL_OWNER);
  const char *state = chime__mysql_rows_text(t, row, CHIME__TRIG_COL_STATE);
  return owner &&
         !chime__mysql_rows_is_null(t, row, CHIME__TRIG_COL_CLAIM_FIRE_ID) &&
         strcmp(state, "ACQUIRED") == 0 && strcmp(owner, tx->s->node) == 0 &&
         chime__mysql_rows_int64(t, row, CHIME__TRIG_COL_CLAIM_FIRE_ID) == id;
}

/* A retry finding the fire EXECUTING by this node: the attempt whose
 * COMMIT reply was lost did fire it.  Hands out the stored state. */
static int fired_before(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                        fire_res *res) {
  int r = chime__mysql_trigger_load(
      tx, chime__mysql_rows_text(fr, 0, CHIME__FIRED_COL_TRIGGER_GROUP),
      chime__mysql_rows_text(fr, 0, CHIME__FIRED_COL_TRIGGER_NAME), false,
      &res->trigger);
  if (r == 0)
    r = chime__mysql_job_load(
        tx, chime__mysql_rows_text(fr, 0, CHIME__FIRED_COL_JOB_GROUP),
        chime__mysql_rows_text(fr, 0, CHIME__FIRED_COL_JOB_NAME), false,
        &res->job, NULL);
  if (r == 0 && res->trigger)
    res->result = 0;
  return r == CHIME_ENOTFOUND ? 0 : r;
}

/* A claim the batch query did not find held: fired by an earlier attempt
 * of this call, or lost (its fired row is then removed). */
static int fire_unusual(chime__mysql_tx *tx, const chime_fire *f, bool retry,
                        fire_res *res) {
  chime__mysql_rows fr;
  chime__mysql_arg a[] = {chime__mysql_arg_int(f->fire_id)};
  int r = chime__mysql_fired_get(tx, f->fire_id, &fr);
  if (r < 0)
    return r;
  res->result = CHIME_ENOTOWNER;
  bool mine =
      fr.nrows && strcmp(chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_NODE),
                         tx->s->node) == 0;
  const char *state =
      mine ? chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_STATE) : "";
  if (retry && strcmp(state, "EXECUTING") == 0)
    r = fired_before(tx, &fr, res);
  else if (strcmp(state, "ACQUIRED") == 0)
    r = chime__mysql_exec(tx, CHIME__Q_FIRED_DELETE, a, 1, NULL, NULL);
  chime__mysql_rows_free(&fr);
  return r;
}

/* The columns of the batch query after the trigger's. */
enum { COL_FIRE_ID = CHIME__TRIG_COL_COUNT, COL_NODE, COL_STATE, NCOLS };

/* Locks the fired rows and the triggers of the batch in one query (by the
 * fired rows' ids alone: _fired_by_ids.sql). */
static int lock_batch(chime__mysql_tx *tx, const fire_op *op,
                      chime__mysql_rows *rows) {
  memset(rows, 0, sizeof *rows);
  int64_t *ids = calloc(op->count ? op->count : 1, sizeof *ids);
  if (!ids)
    return CHIME_ENOMEM;
  size_t any = 0;
  for (size_t i = 0; i < op->count; i++)
    if (op->fires[i])
      ids[any++] = op->fires[i]->fire_id;
  if (any == 0) { /* no fire: no row */
    free(ids);
    return 0;
  }
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_FIRE_LOCK_BATCH);
  chime__mysql_sqlbuf_fired_by_ids(&b, ids, any);
  free(ids);
  int r = chime__mysql_sqlbuf_run(&b, rows, NULL);
  assert(r < 0 || rows->nrows == 0 || rows->ncols == NCOLS);
  return r;
}

/* The bookkeeping of the fire of the trigger in row i (still claimed). */
static int fire_in_batch(chime__mysql_tx *tx, chime__mysql_cache *c,
                         const chime__mysql_rows *rows, size_t i,
                         fire_res *res) {
  assert(!res->trigger && !res->job); /* reset before every attempt */
  const chime_job *j;
  int r = chime__mysql_trigger_from_row(rows, i, &res->trigger);
  assert(r < 0 || res->trigger->store_state == CHIME_STATE_ACQUIRED);
  if (r == 0)
    r = chime__mysql_cache_job(tx, c, res->trigger->job_group,
                               res->trigger->job_name, &j);
  if (r == 0 && !(res->job = chime__job_copy(j)))
    r = CHIME_ENOMEM;
  if (r == 0 && res->trigger->shard_parent > 0)
    chime__shard_job(res->job);
  if (r == 0)
    r = chime__mysql_fire_bookkeeping(tx, c, res->trigger, res->job);
  if (r == 0)
    res->result = 0;
  return r;
}

/* Whether fire i's job has the flag. */
enum { ALL, FORBID, RECOVERY };
static bool has_flag(const chime_job *job, int flag) {
  return flag == ALL ||
         (flag == FORBID && chime__concurrency_exclusive(job->concurrency)) ||
         (flag == RECOVERY && job->requests_recovery);
}

/* Rows (row) of the ids of fires[0 .. n) whose job has the flag, in the
 * optional part of the same name when the flag is not ALL (left out when
 * no job has it). */
static void ids_in(chime__mysql_sqlbuf *b, const char *row,
                   chime_fire *const *fires, const chime_job *const *jobs,
                   size_t n, int flag) {
  bool any = false;
  for (size_t i = 0; i < n && !any; i++)
    any = has_flag(jobs[i], flag);
  if (flag != ALL)
    chime__mysql_sqlbuf_part(b, row, any);
  for (size_t i = 0; any && i < n; i++) {
    if (!has_flag(jobs[i], flag))
      continue;
    chime__mysql_sqlbuf_row(b, row);
    chime__mysql_sqlbuf_at(b, "id");
    chime__mysql_sqlbuf_int(b, fires[i]->fire_id);
  }
}

/* Moves the fired rows to EXECUTING with their jobs' flags as they are. */
static int write_executing(chime__mysql_tx *tx, chime_fire *const *fires,
                           const chime_job *const *jobs, size_t n) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_FIRE_WRITE_EXECUTING);
  assert(n > 0);
  ids_in(&b, "forbid", fires, jobs, n, FORBID);
  ids_in(&b, "recovery", fires, jobs, n, RECOVERY);
  ids_in(&b, "all", fires, jobs, n, ALL);
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

/* The writes of the fires handled in the batch (results 0 and not taken
 * by fire_unusual). */
static int write_batch(chime__mysql_tx *tx, const fire_op *op,
                       const bool *batched) {
  chime_fire **fires = calloc(op->count, sizeof *fires);
  chime_trigger **ts = calloc(op->count, sizeof *ts);
  const chime_job **js = calloc(op->count, sizeof *js);
  size_t n = 0;
  int r = fires && ts && js ? 0 : CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < op->count; i++) {
    if (!batched[i])
      continue;
    fires[n] = op->fires[i];
    ts[n] = op->res[i].trigger;
    js[n++] = op->res[i].job;
  }
  if (r == 0 && n > 0)
    r = write_executing(tx, fires, js, n);
  if (r == 0 && n > 0)
    r = chime__mysql_jobs_block(tx, js, n);
  if (r == 0 && n > 0)
    r = chime__mysql_triggers_write(tx, ts, js, NULL, n, 0);
  free(fires);
  free(ts);
  free(js);
  return r;
}

static int fire_fn(chime__mysql_tx *tx, void *arg) {
  fire_op *op = arg;
  chime__mysql_rows rows;
  int r = lock_batch(tx, op, &rows);
  if (r < 0)
    return r;
  assert(rows.nrows <= op->count); /* one row per fire id at most */
  bool *batched = calloc(op->count, sizeof *batched);
  size_t *row_of = calloc(op->count, sizeof *row_of);
  chime__mysql_cache cache = {0};
  if (!batched || !row_of)
    r = CHIME_ENOMEM;
  for (size_t row = 0; r == 0 && row < rows.nrows; row++) {
    int64_t id = chime__mysql_rows_int64(&rows, row, COL_FIRE_ID);
    for (size_t i = 0; i < op->count; i++) {
      if (!op->fires[i] || op->fires[i]->fire_id != id)
        continue;
      batched[i] = strcmp(chime__mysql_rows_text(&rows, row, COL_NODE),
                          tx->s->node) == 0 &&
                   strcmp(chime__mysql_rows_text(&rows, row, COL_STATE),
                          "ACQUIRED") == 0 &&
                   still_claimed(tx, &rows, row, id);
      row_of[i] = row;
      break;
    }
  }
  for (size_t i = 0; r == 0 && i < op->count; i++) {
    if (!op->fires[i])
      continue;
    r = batched[i] ? fire_in_batch(tx, &cache, &rows, row_of[i], &op->res[i])
                   : fire_unusual(tx, op->fires[i], op->retry, &op->res[i]);
  }
  if (r == 0)
    r = write_batch(tx, op, batched);
  chime__mysql_cache_clear(&cache);
  chime__mysql_rows_free(&rows);
  free(batched);
  free(row_of);
  return r;
}

int chime__mysql_fire(chime_store *store, chime_fire **fires, size_t count,
                      int64_t now_ms) {
  (void)now_ms;
  if (!fires && count > 0)
    return CHIME_EINVAL;
  if (count == 0)
    return 0;
  for (size_t i = 0; i < count; i++)
    assert(!fires[i] ||
           (fires[i]->fire_id > 0 && fires[i]->trigger && fires[i]->job));
  fire_op op = {.fires = fires, .count = count};
  if (!(op.res = calloc(count, sizeof *op.res)))
    return CHIME_ENOMEM;
  int r = chime__mysql_tx_run_hot(chime__mysql_store_of(store), fire_fn,
                                  fire_reset, &op);
  for (size_t i = 0; r == 0 && i < count; i++) {
    chime_fire *f = fires[i];
    if (!f)
      continue;
    f->result = op.res[i].result;
    if (f->result != 0)
      continue;
    chime_job_free(f->job);
    f->job = op.res[i].job;
    op.res[i].job = NULL;
    f->trigger->state = op.res[i].trigger->state;
    f->trigger->store_state = op.res[i].trigger->store_state;
    f->phase = CHIME_FIRE_EXECUTING;
    chime__mysql_held_add(chime__mysql_store_of(store), f->fire_id);
  }
  fire_reset(&op);
  free(op.res);
  return r;
}
