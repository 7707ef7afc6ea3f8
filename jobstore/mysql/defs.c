/*
 * mysql/defs.c: jobs and triggers in the MySQL store: add, replace,
 * remove (with the cascades of store.h), get, status and key lists by
 * group matcher.  Every change runs in one transaction that locks the
 * rows it reads (FOR UPDATE), so it sees and keeps a consistent state.
 * Adding and replacing triggers is in trig.c.
 *
 * Threads: any (tx.h); each op is one transaction of its own.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/runs.h"
#include "jobstore/mysql/shards.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Whether the job row exists (locking it). */
static int job_exists(chime__mysql_tx *tx, const char *group, const char *name,
                      bool *ret) {
  return chime__mysql_key_has_row(tx, CHIME__Q_JOB_LOCK, group, name, ret);
}

typedef struct job_op {
  const chime_job *job;
  const char *group, *name;
  bool replace;
  chime_job *out;
} job_op;

static int job_add_fn(chime__mysql_tx *tx, void *arg) {
  job_op *op = arg;
  bool exists;
  int r = job_exists(tx, op->job->group, op->job->name, &exists);
  if (r < 0)
    return r;
  if (exists && !op->replace)
    return CHIME_EEXISTS;
  return chime__mysql_job_write(tx, op->job, exists);
}

int chime__mysql_job_add(chime_store *store, const chime_job *job,
                         bool replace) {
  int r = chime__job_check(job);
  if (r < 0)
    return r;
  job_op op = {.job = job, .replace = replace};
  return chime__mysql_tx_run(chime__mysql_store_of(store), job_add_fn, NULL,
                             &op, NULL, 0);
}

static int job_remove_fn(chime__mysql_tx *tx, void *arg) {
  job_op *op = arg;
  chime__mysql_arg a[3];
  uint64_t n = 0;
  bool exists;
  chime__mysql_key_args(tx, op->group, op->name, a);
  int r = job_exists(tx, op->group, op->name, &exists);
  if (r == 0 && !exists)
    r = CHIME_ENOTFOUND;
  /* A running fire outlives its trigger in its fired row: a run kept in
   * its trigger row (runs.c) moves to one first. */
  if (r == 0)
    r = chime__mysql_runs_spill(
        tx,
        &(chime__mysql_runs_of){.job_group = op->group, .job_name = op->name},
        NULL);
  if (r == 0)
    r = chime__mysql_exec(tx, CHIME__Q_TRIG_DELETE_OF_JOB, a, 3, NULL, NULL);
  if (r == 0)
    r = chime__mysql_exec(tx, CHIME__Q_JOB_DELETE, a, 3, &n, NULL);
  /* Its shards went with its triggers: its sharded fires end here. */
  if (r == 0)
    r = chime__mysql_shards_end_removed(tx, true, op->group, op->name);
  return r;
}

int chime__mysql_job_remove(chime_store *store, const char *group,
                            const char *name) {
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  job_op op = {.group = group, .name = name};
  return chime__mysql_tx_run(chime__mysql_store_of(store), job_remove_fn, NULL,
                             &op, NULL, 0);
}

static void job_op_reset(void *arg) {
  job_op *op = arg;
  chime_job_free(op->out);
  op->out = NULL;
}

static int job_get_fn(chime__mysql_tx *tx, void *arg) {
  job_op *op = arg;
  return chime__mysql_job_load(tx, op->group, op->name, false, &op->out, NULL);
}

int chime__mysql_job_get(chime_store *store, const char *group,
                         const char *name, chime_job **ret_job) {
  int r = chime__key_check(group, name);
  if (r < 0 || !ret_job)
    return r < 0 ? r : CHIME_EINVAL;
  job_op op = {.group = group, .name = name};
  r = chime__mysql_tx_run(chime__mysql_store_of(store), job_get_fn,
                          job_op_reset, &op, NULL, 0);
  if (r < 0) {
    job_op_reset(&op);
    return r;
  }
  *ret_job = op.out;
  return 0;
}

/* ------------------------------------------------------------- lists */

typedef struct list_op {
  chime__mysql_stmt_id id;
  const char *group; /* a LIKE pattern, or the job's group */
  const char *name;  /* NULL, or the job's name */
  bool need_job;     /* trigger_list_for_job: the job must exist */
  chime__mysql_rows rows;
} list_op;

static void list_reset(void *arg) {
  list_op *op = arg;
  chime__mysql_rows_free(&op->rows);
}

static int list_fn(chime__mysql_tx *tx, void *arg) {
  list_op *op = arg;
  chime__mysql_arg a[] = {chime__mysql_arg_text(tx->s->sched),
                          chime__mysql_arg_text(op->group),
                          chime__mysql_arg_text(op->name)};
  if (op->need_job) {
    bool exists;
    int r = job_exists(tx, op->group, op->name, &exists);
    if (r < 0 || !exists)
      return r < 0 ? r : CHIME_ENOTFOUND;
  }
  return chime__mysql_query(tx, op->id, a, op->name ? 3 : 2, &op->rows);
}

/* Runs a key list and hands out the sorted keys. */
static int list_run(chime__mysql_store *s, list_op *op, const char *group,
                    const char *name, chime_key **ret_keys, size_t *ret_count) {
  op->group = group;
  op->name = name;
  int r = chime__mysql_tx_run(s, list_fn, list_reset, op, NULL, 0);
  if (r < 0) {
    list_reset(op);
    return r;
  }
  size_t n = op->rows.nrows;
  chime_key *keys = calloc(n ? n : 1, sizeof *keys);
  bool ok = keys != NULL;
  assert(n == 0 || op->rows.ncols == 2);
  for (size_t i = 0; ok && i < n; i++) {
    keys[i].group =
        chime__dup_text(chime__mysql_rows_text(&op->rows, i, 0), &ok);
    keys[i].name =
        chime__dup_text(chime__mysql_rows_text(&op->rows, i, 1), &ok);
  }
  list_reset(op);
  if (!ok) {
    chime_key_free_array(keys, n);
    return CHIME_ENOMEM;
  }
  if (n > 1)
    qsort(keys, n, sizeof *keys, chime__key_compare);
  *ret_keys = keys;
  *ret_count = n;
  return 0;
}

static int list_by_group(chime_store *store, chime__mysql_stmt_id id,
                         chime_match match, const char *pattern,
                         chime_key **ret_keys, size_t *ret_count) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  char like[2 * CHIME_MAX_NAME_LEN + 8];
  int r = chime__mysql_like_pattern(match, pattern, like, sizeof like);
  if (r < 0 || !ret_keys || !ret_count)
    return r < 0 ? r : CHIME_EINVAL;
  list_op op = {.id = id};
  return list_run(s, &op, like, NULL, ret_keys, ret_count);
}

int chime__mysql_job_list(chime_store *store, chime_match match,
                          const char *pattern, chime_key **ret_keys,
                          size_t *ret_count) {
  return list_by_group(store, CHIME__Q_JOB_LIST, match, pattern, ret_keys,
                       ret_count);
}

int chime__mysql_trigger_list(chime_store *store, chime_match match,
                              const char *pattern, chime_key **ret_keys,
                              size_t *ret_count) {
  return list_by_group(store, CHIME__Q_TRIG_LIST, match, pattern, ret_keys,
                       ret_count);
}

int chime__mysql_trigger_list_for_job(chime_store *store, const char *job_group,
                                      const char *job_name,
                                      chime_key **ret_keys, size_t *ret_count) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  int r = chime__key_check(job_group, job_name);
  if (r < 0 || !ret_keys || !ret_count)
    return r < 0 ? r : CHIME_EINVAL;
  list_op op = {.id = CHIME__Q_TRIG_LIST_OF_JOB, .need_job = true};
  return list_run(s, &op, job_group, job_name, ret_keys, ret_count);
}

/* ------------------------------------------------------ get, status */

typedef struct trig_op {
  const char *group, *name;
  chime_trigger *out;
  chime_store_state state;
  bool found;
} trig_op;

static void trig_op_reset(void *arg) {
  trig_op *op = arg;
  chime_trigger_free(op->out);
  op->out = NULL;
}

static int trigger_get_fn(chime__mysql_tx *tx, void *arg) {
  trig_op *op = arg;
  int r = chime__mysql_trigger_load(tx, op->group, op->name, false, &op->out);
  return r == 0 && !op->out ? CHIME_ENOTFOUND : r;
}

int chime__mysql_trigger_get(chime_store *store, const char *group,
                             const char *name, chime_trigger **ret_trigger) {
  int r = chime__key_check(group, name);
  if (r < 0 || !ret_trigger)
    return r < 0 ? r : CHIME_EINVAL;
  trig_op op = {.group = group, .name = name};
  r = chime__mysql_tx_run(chime__mysql_store_of(store), trigger_get_fn,
                          trig_op_reset, &op, NULL, 0);
  if (r < 0) {
    trig_op_reset(&op);
    return r;
  }
  *ret_trigger = op.out;
  return 0;
}

static int status_fn(chime__mysql_tx *tx, void *arg) {
  trig_op *op = arg;
  chime__mysql_arg a[3];
  chime__mysql_rows rows;
  chime__mysql_key_args(tx, op->group, op->name, a);
  int r = chime__mysql_query(tx, CHIME__Q_TRIG_STATUS, a, 3, &rows);
  if (r < 0)
    return r;
  assert(rows.nrows <= 1); /* the primary key */
  op->found = rows.nrows > 0;
  if (op->found)
    op->state = chime__mysql_state_parse(chime__mysql_rows_text(&rows, 0, 0));
  chime__mysql_rows_free(&rows);
  return 0;
}

int chime__mysql_trigger_status(chime_store *store, const char *group,
                                const char *name,
                                chime_trigger_status *ret_status) {
  int r = chime__key_check(group, name);
  if (r < 0 || !ret_status)
    return r < 0 ? r : CHIME_EINVAL;
  trig_op op = {.group = group, .name = name};
  r = chime__mysql_tx_run(chime__mysql_store_of(store), status_fn, NULL, &op,
                          NULL, 0);
  if (r < 0)
    return r;
  *ret_status =
      op.found ? chime__store_state_status(op.state) : CHIME_TRIGGER_NONE;
  return 0;
}

static int trigger_remove_fn(chime__mysql_tx *tx, void *arg) {
  trig_op *op = arg;
  int r = chime__mysql_trigger_load(tx, op->group, op->name, true, &op->out);
  if (r < 0 || !op->out)
    return r < 0 ? r : CHIME_ENOTFOUND;
  r = chime__mysql_trigger_delete(tx, op->group, op->name, op->out->job_group,
                                  op->out->job_name, true);
  return r < 0
             ? r
             : chime__mysql_shards_end_removed(tx, false, op->group, op->name);
}

int chime__mysql_trigger_remove(chime_store *store, const char *group,
                                const char *name) {
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  trig_op op = {.group = group, .name = name};
  r = chime__mysql_tx_run(chime__mysql_store_of(store), trigger_remove_fn,
                          trig_op_reset, &op, NULL, 0);
  trig_op_reset(&op);
  return r;
}
