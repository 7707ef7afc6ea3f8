/*
 * mysql/shards.c: sharded fires, node tags and checkpoints in the MySQL
 * store (store.h's shard_split, checkpoint_set, checkpoint_get, and the
 * parts of acquire, complete and recovery that concern shards;
 * docs/batch.md, docs/schema.md).
 *
 * Terms: the *sharded fire* is the fired row of a sharded job's fire; a
 * split moves it to state SHARDED (recovery, completion and ownership
 * checks pass it over: it belongs to no node from then on) and inserts one
 * *shard trigger* per shard, a one-shot trigger with shard_parent = its
 * fire id, which any capable node claims as an ordinary fire.  The shard
 * completions count the sharded fire's shards_left down under its row
 * lock; the completion that takes it to 0 writes the sharded fire's
 * history row and ends it (fire_end: a FORBID job unblocked, a COMPLETE
 * trigger removed), in the same transaction.
 *
 * Spread: a node may claim a shard of a sharded fire while the shards it
 * holds and has run of that fire are fewer than its fair share,
 * ceil(total / live capable nodes); past that, only a shard that waited
 * longer than three check-in intervals (a share another node did not come
 * for).  Nodes polling together so each take their share, and a slow or
 * dead node's share still gets done.
 *
 * Tags: a trigger carries its job's required tags (job_tags, as job_type);
 * acquire's SELECT keeps the rows whose tags this node's cover (one string
 * expression per node tag, none for a node without tags).
 *
 * Checkpoints: a row per run id, written with INSERT ... SELECT from the
 * run's fired row (EXECUTING, this node's), which the statement locks in
 * share mode: a recovery (which locks the row to delete it) either comes
 * after the write or makes it write nothing.
 *
 * Threads: any; every op runs its own transaction (tx.h).
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/runs.h"
#include "jobstore/mysql/shards.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- tags */

/* The next tag of the comma-separated list at *p as ",tag," in buf
 * (CHIME_MAX_TAG_LEN + 3 bytes), *p moved past it; false at the end. */
static bool next_tag(const char **p, char *buf) {
  if (!*p || !**p)
    return false;
  size_t k = strcspn(*p, ",");
  snprintf(buf, CHIME_MAX_TAG_LEN + 3, ",%.*s,",
           (int)(k > CHIME_MAX_TAG_LEN ? CHIME_MAX_TAG_LEN : k), *p);
  *p += k;
  *p += **p == ',';
  return true;
}

void chime__mysql_sqlbuf_tags(chime__mysql_sqlbuf *b, const char *tags) {
  bool any = tags && *tags;
  chime__mysql_sqlbuf_part(b, "untagged", !any);
  chime__mysql_sqlbuf_part(b, "tags", any);
  if (!any)
    return;
  char tag[CHIME_MAX_TAG_LEN + 3];
  for (const char *p = tags; next_tag(&p, tag);)
    chime__mysql_sqlbuf_row(b, "replace");
  for (const char *p = tags; next_tag(&p, tag);) {
    chime__mysql_sqlbuf_row(b, "tag");
    chime__mysql_sqlbuf_at(b, "tag");
    chime__mysql_sqlbuf_text(b, tag);
  }
}

/* Fills the part covers: each required tag in the nodes row n's tags. */
static void nodes_cover(chime__mysql_sqlbuf *b, const char *required) {
  char tag[CHIME_MAX_TAG_LEN + 3];
  chime__mysql_sqlbuf_part(b, "covers", required && *required);
  for (const char *p = required; next_tag(&p, tag);) {
    chime__mysql_sqlbuf_row(b, "covers");
    chime__mysql_sqlbuf_at(b, "tag");
    chime__mysql_sqlbuf_text(b, tag);
  }
}

/* Fills the slots live_sched and covers of the count of live nodes whose
 * tags cover required. */
static void live_capable(chime__mysql_sqlbuf *b, const char *required) {
  chime__mysql_sqlbuf_at(b, "live_sched");
  chime__mysql_sqlbuf_text(b, b->tx->s->sched);
  nodes_cover(b, required);
}

/* ---------------------------------------------------------------- split */

typedef struct split_op {
  const chime_fire *fire;
  int total;
} split_op;

static int split_fn(chime__mysql_tx *tx, void *arg) {
  split_op *op = arg;
  const chime_fire *fire = op->fire;
  chime__mysql_rows fr, n = {0};
  int r = chime__mysql_fired_get(tx, fire->fire_id, &fr);
  if (r < 0)
    return r;
  bool ours = fr.nrows == 1 &&
              strcmp(chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_STATE),
                     "EXECUTING") == 0 &&
              strcmp(chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_NODE),
                     tx->s->node) == 0;
  chime__mysql_rows_free(&fr);
  if (!ours)
    return CHIME_ENOTOWNER;
  op->total = fire->job->shard_count;
  if (op->total == CHIME_SHARDS_BROADCAST) {
    chime__mysql_sqlbuf b;
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SHARD_LIVE_COUNT);
    live_capable(&b, fire->job->required_tags);
    if ((r = chime__mysql_sqlbuf_run(&b, &n, NULL)) < 0)
      return r;
    op->total = (int)chime__mysql_rows_int64(&n, 0, 0);
    chime__mysql_rows_free(&n);
    if (op->total < 1)
      op->total = 1; /* this node, whose check-in is late */
    if (op->total > CHIME_MAX_SHARDS)
      op->total = CHIME_MAX_SHARDS;
  }
  int64_t now = chime__mysql_now(&tx->s->base);
  chime_trigger **ts = NULL;
  if ((r = chime__shard_triggers(fire, op->total, now, &ts)) < 0)
    return r;
  for (int i = 0; r == 0 && i < op->total; i++) {
    chime__mysql_arg a[CHIME__MYSQL_TRIGGER_INSERT_ARGS];
    chime__mysql_trigger_to_args(tx->s->sched, ts[i], fire->job, a);
    r = chime__mysql_exec(tx, CHIME__Q_TRIG_INSERT, a,
                          CHIME__MYSQL_TRIGGER_INSERT_ARGS, NULL, NULL);
  }
  chime__shard_triggers_free(ts, op->total);
  if (r < 0)
    return r;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SHARD_SPLIT);
  chime__mysql_sqlbuf_at(&b, "total");
  chime__mysql_sqlbuf_int(&b, op->total);
  chime__mysql_sqlbuf_at(&b, "left");
  chime__mysql_sqlbuf_int(&b, op->total);
  chime__mysql_sqlbuf_at(&b, "split_ms");
  chime__mysql_sqlbuf_int(&b, now);
  chime__mysql_sqlbuf_at(&b, "fire_id");
  chime__mysql_sqlbuf_int(&b, fire->fire_id);
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

int chime__mysql_shard_split(chime_store *store, const chime_fire *fire,
                             int *ret_total) {
  if (!fire || !chime__fire_splits(fire))
    return CHIME_EINVAL;
  split_op op = {.fire = fire};
  chime__mysql_store *s = chime__mysql_store_of(store);
  int r = chime__mysql_tx_run(s, split_fn, NULL, &op, NULL, 0);
  if (r == 0 && ret_total)
    *ret_total = op.total;
  /* SHARDED: no node's fire any more (held.c). */
  if (r == 0)
    chime__mysql_held_drop(s, fire->fire_id);
  return r;
}

/* ---------------------------------------------------------------- spread */

int chime__mysql_shard_room(chime__mysql_tx *tx, const chime_job *job,
                            int64_t parent, int *ret_room) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  const char *sched = tx->s->sched;
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SHARD_ROOM);
  chime__mysql_sqlbuf_at(&b, "parent");
  chime__mysql_sqlbuf_int(&b, parent);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, sched);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, tx->s->node);
  chime__mysql_sqlbuf_at(&b, "parent");
  chime__mysql_sqlbuf_int(&b, parent);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, sched);
  chime__mysql_sqlbuf_at(&b, "parent");
  chime__mysql_sqlbuf_int(&b, parent);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, tx->s->node);
  live_capable(&b, job->required_tags);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  assert(rows.nrows == 1 && rows.ncols == 3);
  int64_t total = chime__mysql_rows_is_null(&rows, 0, 0)
                      ? 0
                      : chime__mysql_rows_int64(&rows, 0, 0);
  int64_t mine = chime__mysql_rows_int64(&rows, 0, 1);
  int64_t live = chime__mysql_rows_int64(&rows, 0, 2);
  chime__mysql_rows_free(&rows);
  if (live < 1)
    live = 1;
  int64_t share = (total + live - 1) / live;
  *ret_room = total == 0 ? 0 : share > mine ? (int)(share - mine) : 0;
  return 0;
}

/* ----------------------------------------------------------- completion */

/* Copies what on_shards_done needs of the ended sharded fire. */
static int note_done(chime__mysql_shards_done *dl, const chime__mysql_rows *fr,
                     int error, const char *message) {
  chime__mysql_shard_end *e = realloc(dl->ended, (dl->n + 1) * sizeof *e);
  if (!e)
    return CHIME_ENOMEM;
  dl->ended = e;
  e = &dl->ended[dl->n];
  memset(e, 0, sizeof *e);
  const int cols[4] = {CHIME__FIRED_COL_TRIGGER_GROUP,
                       CHIME__FIRED_COL_TRIGGER_NAME,
                       CHIME__FIRED_COL_JOB_GROUP, CHIME__FIRED_COL_JOB_NAME};
  for (size_t k = 0; k < 4; k++)
    if (!(e->keys[k] = strdup(chime__mysql_rows_text(fr, 0, cols[k])))) {
      for (size_t j = 0; j < k; j++)
        free(e->keys[j]);
      return CHIME_ENOMEM;
    }
  e->info = (chime_shards_done){
      .fire_id = chime__mysql_rows_int64(fr, 0, CHIME__FIRED_COL_ID),
      .scheduled_ms =
          chime__mysql_rows_int64(fr, 0, CHIME__FIRED_COL_SCHEDULED_MS),
      .total =
          (int)chime__mysql_rows_int64(fr, 0, CHIME__FIRED_COL_SHARDS_TOTAL),
      .failed =
          (int)chime__mysql_rows_int64(fr, 0, CHIME__FIRED_COL_SHARDS_FAILED),
      .error = error};
  snprintf(e->message, sizeof e->message, "%s", message);
  dl->n++;
  return 0;
}

/* The step after the batch (chime_job_set_shards_then): a run of the
 * then-job enqueued in this completion's transaction.  A then-job that
 * does not exist is skipped with a warning: the batch's completion stands. */
static int then_step(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                     const char *msg) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  int64_t id = chime__mysql_rows_int64(fr, 0, CHIME__FIRED_COL_ID);
  int r = chime__mysql_job_load(
      tx, chime__mysql_rows_text(fr, 0, CHIME__FIRED_COL_JOB_GROUP),
      chime__mysql_rows_text(fr, 0, CHIME__FIRED_COL_JOB_NAME), false, &job,
      NULL);
  if (r == CHIME_ENOTFOUND)
    return 0; /* the job was removed: nothing follows */
  if (r == 0)
    r = chime__shards_then_trigger(job, id, msg, &t);
  bool existed = false;
  if (r == 0 && t)
    r = chime__mysql_add_many_in(tx, &t, 1, &existed);
  if (r == CHIME_ENOTFOUND) {
    chime__mysql_log(tx->s, CHIME_LOG_WARN,
                     "sharded fire %lld ended: its then-job %s.%s does not "
                     "exist; nothing was enqueued",
                     (long long)id, job->then_group, job->then_name);
    r = 0;
  }
  chime_trigger_free(t);
  chime_job_free(job);
  return r;
}

int chime__mysql_shard_ended(chime__mysql_tx *tx, int64_t parent, int index,
                             bool failed, chime__mysql_shards_done *dl) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SHARD_ENDED);
  chime__mysql_sqlbuf_part(&b, "failed", failed);
  if (failed) {
    char idx[16];
    snprintf(idx, sizeof idx, "%d", index);
    chime__mysql_sqlbuf_at(&b, "index");
    chime__mysql_sqlbuf_text(&b, idx);
  }
  chime__mysql_sqlbuf_at(&b, "parent");
  chime__mysql_sqlbuf_int(&b, parent);
  uint64_t changed = 0;
  int r = chime__mysql_sqlbuf_run(&b, NULL, &changed);
  if (r < 0 || changed == 0)
    return r; /* the sharded fire is gone (its job was removed) */
  chime__mysql_rows fr;
  if ((r = chime__mysql_fired_get(tx, parent, &fr)) < 0)
    return r;
  if (fr.nrows == 1 &&
      chime__mysql_rows_int64(&fr, 0, CHIME__FIRED_COL_SHARDS_LEFT) == 0) {
    int nfailed =
        (int)chime__mysql_rows_int64(&fr, 0, CHIME__FIRED_COL_SHARDS_FAILED);
    int total =
        (int)chime__mysql_rows_int64(&fr, 0, CHIME__FIRED_COL_SHARDS_TOTAL);
    char list[256], msg[320];
    snprintf(list, sizeof list, "%s",
             chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_FAILED_LIST));
    chime__shards_message(msg, sizeof msg, total, nfailed, list);
    int error = nfailed ? CHIME_EJOBFAILED : 0;
    int64_t split = chime__mysql_rows_int64(&fr, 0, CHIME__FIRED_COL_SPLIT_MS);
    r = chime__mysql_fire_record(tx, &fr, 0, error ? "FAILED" : "OK", error,
                                 msg, split);
    if (r == 0)
      r = then_step(tx, &fr, msg);
    if (r == 0 && dl)
      r = note_done(dl, &fr, error, msg);
  }
  chime__mysql_rows_free(&fr);
  return r;
}

void chime__mysql_shards_done_clear(chime__mysql_shards_done *dl) {
  for (size_t i = 0; i < dl->n; i++)
    for (size_t k = 0; k < 4; k++)
      free(dl->ended[i].keys[k]);
  free(dl->ended);
  dl->ended = NULL;
  dl->n = 0;
}

void chime__mysql_shards_tell(chime__mysql_store *s,
                              chime__mysql_shards_done *dl) {
  for (size_t i = 0; s->on_shards_done && i < dl->n; i++) {
    chime__mysql_shard_end *e = &dl->ended[i];
    e->info.trigger_group = e->keys[0];
    e->info.trigger_name = e->keys[1];
    e->info.job_group = e->keys[2];
    e->info.job_name = e->keys[3];
    e->info.message = e->message;
    s->on_shards_done(s->shards_user_data, &e->info);
  }
  chime__mysql_shards_done_clear(dl);
}

/* Ends sharded fire id, locked now, if it still waits for its shards. */
static int end_removed(chime__mysql_tx *tx, int64_t id, const char *why) {
  chime__mysql_rows fr;
  int r = chime__mysql_fired_get(tx, id, &fr);
  if (r < 0)
    return r;
  if (fr.nrows == 1 &&
      strcmp(chime__mysql_rows_text(&fr, 0, CHIME__FIRED_COL_STATE),
             "SHARDED") == 0)
    r = chime__mysql_fire_record(
        tx, &fr, 0, "CANCELLED", CHIME_ECANCELLED, why,
        chime__mysql_rows_int64(&fr, 0, CHIME__FIRED_COL_SPLIT_MS));
  chime__mysql_rows_free(&fr);
  return r;
}

int chime__mysql_shards_end_removed(chime__mysql_tx *tx, bool by_job,
                                    const char *group, const char *name) {
  /* Found without locks (fired has no index by trigger, and a locking
   * scan would wait for every fire a job's own transaction holds), then
   * locked one by one by primary key. */
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SHARDS_OF_REMOVED);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  for (int k = 0; k < 2; k++) { /* the part of_job, then of_trigger */
    bool on = (k == 0) == by_job;
    chime__mysql_sqlbuf_part(&b, k == 0 ? "of_job" : "of_trigger", on);
    if (!on)
      continue;
    chime__mysql_sqlbuf_at(&b, "group");
    chime__mysql_sqlbuf_text(&b, group);
    chime__mysql_sqlbuf_at(&b, "name");
    chime__mysql_sqlbuf_text(&b, name);
  }
  chime__mysql_rows ids;
  int r = chime__mysql_sqlbuf_run(&b, &ids, NULL);
  if (r < 0)
    return r;
  for (size_t i = 0; r == 0 && i < ids.nrows; i++)
    r = end_removed(tx, chime__mysql_rows_int64(&ids, i, 0),
                    by_job ? "job removed" : "trigger removed");
  chime__mysql_rows_free(&ids);
  return r;
}

/* ---------------------------------------------------------- checkpoints */

typedef struct ckpt_op {
  const chime_fire *fire;
  const void *data;
  size_t len;
  void *out;
  size_t out_len;
  bool found;
} ckpt_op;

static int ckpt_set_fn(chime__mysql_tx *tx, void *arg) {
  ckpt_op *op = arg;
  const chime_fire *f = op->fire;
  /* A checkpoint is written against the run's fired row: a run kept in
   * its trigger row (runs.c) moves to one first, once. */
  int r = f->in_trigger_row
              ? chime__mysql_runs_spill(
                    tx,
                    &(chime__mysql_runs_of){.group = f->trigger->group,
                                            .name = f->trigger->name,
                                            .fire_id = f->fire_id},
                    NULL)
              : 0;
  if (r < 0)
    return r;
  chime__mysql_arg a[] = {
      chime__mysql_arg_text(tx->s->sched),
      chime__mysql_arg_int(chime__fire_run_id(op->fire)),
      chime__mysql_arg_int(op->fire->fire_id),
      chime__mysql_arg_text(tx->s->node),
      chime__mysql_arg_bytes(op->len ? op->data : "", op->len),
      chime__mysql_arg_int(chime__mysql_now(&tx->s->base)),
      chime__mysql_arg_int(op->fire->fire_id),
      chime__mysql_arg_text(tx->s->sched),
      chime__mysql_arg_text(tx->s->node)};
  uint64_t n = 0;
  r = chime__mysql_exec(tx, CHIME__Q_CHECKPOINT_SET, a, 9, &n, NULL);
  if (r < 0 || n > 0)
    return r;
  /* Nothing changed: the same bytes again, or not this node's fire. */
  bool owned = false;
  r = chime__mysql_fire_owned(tx, f, &owned);
  return r < 0 ? r : owned ? 0 : CHIME_ENOTOWNER;
}

int chime__mysql_checkpoint_set(chime_store *store, const chime_fire *fire,
                                const void *data, size_t len) {
  if (!fire || (!data && len > 0))
    return CHIME_EINVAL;
  if (len > CHIME_MAX_DATA_LEN)
    return CHIME_ELIMIT;
  ckpt_op op = {.fire = fire, .data = data, .len = len};
  return chime__mysql_tx_run(chime__mysql_store_of(store), ckpt_set_fn, NULL,
                             &op, NULL, 0);
}

static void ckpt_reset(void *arg) {
  ckpt_op *op = arg;
  free(op->out);
  op->out = NULL;
  op->out_len = 0;
  op->found = false;
}

static int ckpt_get_fn(chime__mysql_tx *tx, void *arg) {
  ckpt_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_int(chime__fire_run_id(op->fire))};
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_CHECKPOINT_GET, a, 2, &rows);
  if (r == 0 && rows.nrows > 0) {
    size_t len = chime__mysql_rows_len(&rows, 0, 0);
    op->found = true;
    op->out_len = len;
    if (len && !(op->out = malloc(len)))
      r = CHIME_ENOMEM;
    else if (len)
      memcpy(op->out, chime__mysql_rows_text(&rows, 0, 0), len);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_checkpoint_get(chime_store *store, const chime_fire *fire,
                                void **ret_data, size_t *ret_len) {
  if (!fire || !ret_data || !ret_len)
    return CHIME_EINVAL;
  ckpt_op op = {.fire = fire};
  int r = chime__mysql_tx_run(chime__mysql_store_of(store), ckpt_get_fn,
                              ckpt_reset, &op, NULL, 0);
  if (r == 0 && !op.found)
    r = CHIME_ENOTFOUND;
  if (r < 0) {
    free(op.out);
    return r;
  }
  *ret_data = op.out;
  *ret_len = op.out_len;
  return 0;
}
