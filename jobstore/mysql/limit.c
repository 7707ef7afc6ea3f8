/*
 * mysql/limit.c: cluster-wide limits of job types in the MySQL store
 * (docs/queue.md, "Limits"; sql/013_limits.sql): the limits table's
 * operations (limit_set, limit_get, limit_stats) and the claim's side of
 * them (limit.h), used by acquire.c and the misfire scan.
 *
 * Why a claim pays nothing for an unlimited type: which types have a limit
 * is read once a second (limits_refresh, one small SELECT on the loop
 * thread) and only a fire of one of them takes its type's limit row
 * (SELECT ... FOR UPDATE SKIP LOCKED) and counts the type's fired rows
 * (the fired_limit index).  Counting the fired rows rather than keeping a
 * counter means a run that ended, was released or was recovered from a
 * dead node frees its slot by its row going away: nothing to leak.
 *
 * Lock order (docs/cluster.md, "Locks"): a claim locks its trigger rows,
 * then job rows (FORBID), then limit rows, each with SKIP LOCKED, so it
 * never waits for another node's claim and no cycle can form; setting a
 * limit locks only its limit row.  The rate's state (tat_ms) is written
 * in the claim's transaction, under that lock, by the database's NOW(3),
 * read with the row: every node judges a rate by that one clock (each
 * node's own reading of it is off by a few ms, which a rate of one start
 * every few tens of ms would feel).
 */
#include "jobstore/mysql/limit.h"

#include "core/clock.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* How long the list of limited types is trusted (monotonic ms). */
#define LIMITED_TTL_MS 1000

/* ------------------------------------------------------- the type list */

static void limited_free(chime__mysql_store *s) {
  for (size_t i = 0; i < s->nlimited; i++)
    free(s->limited[i]);
  free(s->limited);
  s->limited = NULL;
  s->nlimited = 0;
}

void chime__mysql_limits_free(chime__mysql_store *s) {
  limited_free(s);
}

int chime__mysql_limits_refresh(chime__mysql_tx *tx) {
  chime__mysql_store *s = tx->s;
  int64_t now = chime__mono_ms();
  int64_t read = atomic_load(&s->limited_read_ms);
  if (read != 0 && now - read < LIMITED_TTL_MS)
    return 0;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMITS_TYPES);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, s->sched);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  char **v = rows.nrows ? calloc(rows.nrows, sizeof *v) : NULL;
  if (rows.nrows && !v)
    r = CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++)
    if (!(v[i] = strdup(chime__mysql_rows_text(&rows, i, 0))))
      r = CHIME_ENOMEM;
  if (r == 0) {
    limited_free(s);
    s->limited = v;
    s->nlimited = rows.nrows;
    atomic_store(&s->limited_read_ms, now);
  } else {
    for (size_t i = 0; v && i < rows.nrows; i++)
      free(v[i]);
    free(v);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

bool chime__mysql_type_limited(const chime__mysql_store *s, const char *type) {
  for (size_t i = 0; i < s->nlimited; i++)
    if (strcmp(s->limited[i], type) == 0)
      return true;
  return false;
}

void chime__mysql_sqlbuf_limited(chime__mysql_sqlbuf *b) {
  const chime__mysql_store *s = b->tx->s;
  assert(s->nlimited > 0);
  for (size_t i = 0; i < s->nlimited; i++) {
    chime__mysql_sqlbuf_row(b, "limited");
    chime__mysql_sqlbuf_at(b, "type");
    chime__mysql_sqlbuf_text(b, s->limited[i]);
  }
}

/* ------------------------------------------------------------ the claim */

/* Counts the type's running fires (claimed or executing; a shard counts
 * as part of its sharded fire), of one partition when key is not NULL. */
static int count_running(chime__mysql_tx *tx, const char *type, const char *key,
                         int64_t *ret) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_COUNT_RUNNING);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "type");
  chime__mysql_sqlbuf_text(&b, type);
  chime__mysql_sqlbuf_part(&b, "partition", key != NULL);
  if (key) {
    chime__mysql_sqlbuf_at(&b, "key");
    chime__mysql_sqlbuf_text(&b, key);
  }
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r == 0)
    *ret = rows.nrows ? chime__mysql_rows_int64(&rows, 0, 0) : 0;
  chime__mysql_rows_free(&rows);
  return r;
}

/* Locks the type's limit row (passed over when another session holds it)
 * and reads it into l, with the database's clock. */
static int lock_limit(chime__mysql_tx *tx, chime__mysql_limit *l) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_LOCK);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "type");
  chime__mysql_sqlbuf_text(&b, l->type);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  if (rows.nrows == 0) {
    /* Held by another session, or cleared since the list was read. */
    bool exists = false;
    chime__mysql_rows_free(&rows);
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_EXISTS);
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    chime__mysql_sqlbuf_at(&b, "type");
    chime__mysql_sqlbuf_text(&b, l->type);
    if ((r = chime__mysql_sqlbuf_run(&b, &rows, NULL)) == 0)
      exists = rows.nrows > 0;
    l->skip = exists;
    chime__mysql_rows_free(&rows);
    return r;
  }
#define COL(c) chime__mysql_rows_int64(&rows, 0, c)
  l->limited = true;
  l->def.max_running = (int)COL(0);
  l->def.max_per_partition = (int)COL(1);
  l->def.rate_count = (int)COL(2);
  l->def.rate_period_ms = COL(3);
  l->tat_ms = COL(4);
  l->now_ms = COL(5);
#undef COL
  chime__mysql_rows_free(&rows);
  return l->def.max_running > 0 ? count_running(tx, l->type, NULL, &l->running)
                                : 0;
}

/* The batch's entry for type, its row locked and read on first use. */
static int limit_for(chime__mysql_tx *tx, chime__mysql_limits *ls,
                     const char *type, chime__mysql_limit **ret) {
  for (size_t i = 0; i < ls->n; i++)
    if (strcmp(ls->v[i].type, type) == 0) {
      *ret = &ls->v[i];
      return 0;
    }
  if (ls->n == ls->cap) {
    size_t cap = ls->cap ? 2 * ls->cap : 4;
    chime__mysql_limit *v = realloc(ls->v, cap * sizeof *v);
    if (!v)
      return CHIME_ENOMEM;
    ls->v = v;
    ls->cap = cap;
  }
  chime__mysql_limit *l = &ls->v[ls->n];
  memset(l, 0, sizeof *l);
  if (!(l->type = strdup(type)))
    return CHIME_ENOMEM;
  ls->n++;
  *ret = l;
  return lock_limit(tx, l);
}

/* The partition's running count in l (counted on first use). */
static int partition_for(chime__mysql_tx *tx, chime__mysql_limit *l,
                         const char *key, chime__mysql_part **ret) {
  for (size_t i = 0; i < l->nparts; i++)
    if (strcmp(l->parts[i].key, key) == 0) {
      *ret = &l->parts[i];
      return 0;
    }
  chime__mysql_part *v = realloc(l->parts, (l->nparts + 1) * sizeof *v);
  if (!v)
    return CHIME_ENOMEM;
  l->parts = v;
  chime__mysql_part *p = &l->parts[l->nparts];
  if (!(p->key = strdup(key)))
    return CHIME_ENOMEM;
  l->nparts++;
  *ret = p;
  return count_running(tx, l->type, key, &p->running);
}

static void wait_at_most(chime__mysql_limits *ls, int64_t ms) {
  if (ls->wait_ms < 0 || ms < ls->wait_ms)
    ls->wait_ms = ms;
}

int chime__mysql_limit_admit(chime__mysql_tx *tx, chime__mysql_limits *ls,
                             const chime_job *job, const chime_trigger *t,
                             bool *ret_ok) {
  *ret_ok = true;
  if (t->shard_parent > 0 || !chime__mysql_type_limited(tx->s, job->type))
    return 0;
  chime__mysql_limit *l = NULL;
  int r = limit_for(tx, ls, job->type, &l);
  if (r < 0 || !l->limited) {
    *ret_ok = !l || !l->skip;
    if (r == 0 && !*ret_ok)
      wait_at_most(ls, CHIME__LIMIT_POLL_MS);
    return r;
  }
  chime__mysql_part *p = NULL;
  if (l->def.max_running > 0 && l->running >= l->def.max_running)
    *ret_ok = false;
  if (*ret_ok && l->def.max_per_partition > 0 && t->partition_key) {
    if ((r = partition_for(tx, l, t->partition_key, &p)) < 0)
      return r;
    *ret_ok = p->running < l->def.max_per_partition;
  }
  if (!*ret_ok) {
    l->full = l->def.max_per_partition == 0 || !t->partition_key ||
              (l->def.max_running > 0 && l->running >= l->def.max_running);
    wait_at_most(ls, CHIME__LIMIT_POLL_MS);
    return 0;
  }
  int64_t wait = 0;
  if (!chime__limit_rate_take(&l->def, &l->tat_ms, l->now_ms, &wait)) {
    *ret_ok = false;
    l->full = true;
    wait_at_most(ls, wait);
    return 0;
  }
  l->tat_changed = l->def.rate_count > 0;
  l->running++;
  if (p)
    p->running++;
  return 0;
}

int chime__mysql_limits_write(chime__mysql_tx *tx, chime__mysql_limits *ls) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < ls->n; i++) {
    chime__mysql_limit *l = &ls->v[i];
    if (!l->tat_changed)
      continue;
    chime__mysql_sqlbuf b;
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_WRITE_TAT);
    chime__mysql_sqlbuf_at(&b, "tat_ms");
    chime__mysql_sqlbuf_int(&b, l->tat_ms);
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    chime__mysql_sqlbuf_at(&b, "type");
    chime__mysql_sqlbuf_text(&b, l->type);
    r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
  }
  return r;
}

bool chime__mysql_limits_full(const chime__mysql_limits *ls) {
  for (size_t i = 0; i < ls->n; i++)
    if (ls->v[i].full || ls->v[i].skip)
      return true;
  return false;
}

void chime__mysql_sqlbuf_full(chime__mysql_sqlbuf *b,
                              const chime__mysql_limits *ls) {
  chime__mysql_sqlbuf_part(b, "full", chime__mysql_limits_full(ls));
  for (size_t i = 0; i < ls->n; i++) {
    if (!ls->v[i].full && !ls->v[i].skip)
      continue;
    chime__mysql_sqlbuf_row(b, "full");
    chime__mysql_sqlbuf_at(b, "type");
    chime__mysql_sqlbuf_text(b, ls->v[i].type);
  }
}

void chime__mysql_limits_clear(chime__mysql_limits *ls) {
  for (size_t i = 0; i < ls->n; i++) {
    chime__mysql_limit *l = &ls->v[i];
    for (size_t k = 0; k < l->nparts; k++)
      free(l->parts[k].key);
    free(l->parts);
    free(l->type);
  }
  free(ls->v);
  memset(ls, 0, sizeof *ls);
  ls->wait_ms = -1;
}

/* ------------------------------------------------------- the operations */

typedef struct set_op {
  const char *type;
  const chime_limit_def *def; /* NULL: clear */
  bool found;
  chime_limit_def got;
} set_op;

static int set_fn(chime__mysql_tx *tx, void *arg) {
  set_op *op = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  if (op->def) {
    /* A changed rate starts afresh (tat_ms 0). */
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_SET);
    chime__mysql_sqlbuf_at(&b, "sched_name");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    chime__mysql_sqlbuf_at(&b, "job_type");
    chime__mysql_sqlbuf_text(&b, op->type);
    const struct {
      const char *slot;
      int64_t v;
    } v[] = {{"max_running", op->def->max_running},
             {"max_per_key", op->def->max_per_partition},
             {"rate_count", op->def->rate_count},
             {"rate_period_ms", op->def->rate_period_ms}};
    for (size_t i = 0; i < 4; i++) {
      chime__mysql_sqlbuf_at(&b, v[i].slot);
      chime__mysql_sqlbuf_int(&b, v[i].v);
    }
    return chime__mysql_sqlbuf_run(&b, NULL, NULL);
  }
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_CLEAR);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "type");
  chime__mysql_sqlbuf_text(&b, op->type);
  uint64_t n = 0;
  int r = chime__mysql_sqlbuf_run(&b, NULL, &n);
  op->found = n > 0;
  return r;
}

int chime__mysql_limit_set(chime_store *store, const char *job_type,
                           const chime_limit_def *def) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  set_op op = {.type = job_type, .def = def};
  int r = chime__mysql_tx_run(s, set_fn, NULL, &op, NULL, 0);
  /* This node applies it at its next claim; the others within a second. */
  atomic_store(&s->limited_read_ms, 0);
  if (r == 0 && !def && !op.found)
    return CHIME_ENOTFOUND;
  return r;
}

static int get_fn(chime__mysql_tx *tx, void *arg) {
  set_op *op = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_GET);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "type");
  chime__mysql_sqlbuf_text(&b, op->type);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r == 0 && rows.nrows > 0) {
    op->found = true;
    op->got.max_running = (int)chime__mysql_rows_int64(&rows, 0, 0);
    op->got.max_per_partition = (int)chime__mysql_rows_int64(&rows, 0, 1);
    op->got.rate_count = (int)chime__mysql_rows_int64(&rows, 0, 2);
    op->got.rate_period_ms = chime__mysql_rows_int64(&rows, 0, 3);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_limit_get(chime_store *store, const char *job_type,
                           chime_limit_def *ret) {
  set_op op = {.type = job_type};
  int r = chime__mysql_tx_run(chime__mysql_store_of(store), get_fn, NULL, &op,
                              NULL, 0);
  if (r < 0)
    return r;
  if (!op.found)
    return CHIME_ENOTFOUND;
  *ret = op.got;
  return 0;
}

int64_t chime__mysql_limit_wait_ms(chime_store *store) {
  return atomic_load(&chime__mysql_store_of(store)->limit_wait);
}

typedef struct stats_op {
  int64_t now;
  chime_limit_stat *v;
  size_t n;
} stats_op;

static void stats_reset(void *arg) {
  stats_op *op = arg;
  chime__limit_stats_free(op->v, op->n);
  op->v = NULL;
  op->n = 0;
}

static int stats_fn(chime__mysql_tx *tx, void *arg) {
  stats_op *op = arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_STATS);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "due_by");
  chime__mysql_sqlbuf_int(&b, op->now);
  for (int k = 0; k < 2; k++) {
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
  }
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  op->v = rows.nrows ? calloc(rows.nrows, sizeof *op->v) : NULL;
  if (rows.nrows && !op->v)
    r = CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    /* ROLLUP: a NULL type is the grand total (dropped); a NULL partition
     * after a type's partitions is the type's total.  A type's own row
     * with a NULL partition key (runs without one) is folded in it. */
    if (chime__mysql_rows_is_null(&rows, i, 0))
      continue;
    bool total = i + 1 == rows.nrows ||
                 chime__mysql_rows_is_null(&rows, i + 1, 0) ||
                 strcmp(chime__mysql_rows_text(&rows, i + 1, 0),
                        chime__mysql_rows_text(&rows, i, 0)) != 0;
    if (!total && chime__mysql_rows_is_null(&rows, i, 1))
      continue;
    chime_limit_stat *st = &op->v[op->n];
    st->job_type = strdup(chime__mysql_rows_text(&rows, i, 0));
    st->partition = total ? NULL : strdup(chime__mysql_rows_text(&rows, i, 1));
    st->def.max_running = (int)chime__mysql_rows_int64(&rows, i, 2);
    st->def.max_per_partition = (int)chime__mysql_rows_int64(&rows, i, 3);
    st->def.rate_count = (int)chime__mysql_rows_int64(&rows, i, 4);
    st->def.rate_period_ms = chime__mysql_rows_int64(&rows, i, 5);
    st->waiting = chime__mysql_rows_int64(&rows, i, 6);
    st->running = chime__mysql_rows_int64(&rows, i, 7);
    op->n++;
    if (!st->job_type || (!total && !st->partition))
      r = CHIME_ENOMEM;
  }
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_limit_stats(chime_store *store, int64_t now_ms,
                             chime_limit_stat **ret_stats, size_t *ret_count) {
  stats_op op = {.now = now_ms};
  int r = chime__mysql_tx_run(chime__mysql_store_of(store), stats_fn,
                              stats_reset, &op, NULL, 0);
  if (r < 0) {
    stats_reset(&op);
    return r;
  }
  /* Partitions first, then their type's total: put the total first. */
  for (size_t i = 0, start = 0; i < op.n; i++) {
    if (op.v[i].partition)
      continue;
    chime_limit_stat total = op.v[i];
    memmove(&op.v[start + 1], &op.v[start], (i - start) * sizeof *op.v);
    op.v[start] = total;
    start = i + 1;
  }
  *ret_stats = op.v;
  *ret_count = op.n;
  return 0;
}
