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
#include <stdio.h>
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

/* Starts b on statement id and fills its slots sched and type: the
 * start of most statements of this file. */
static void type_stmt(chime__mysql_sqlbuf *b, chime__mysql_tx *tx,
                      chime__mysql_stmt_id id, const char *type) {
  chime__mysql_sqlbuf_init(b, tx);
  chime__mysql_sqlbuf_stmt(b, id);
  chime__mysql_sqlbuf_at(b, "sched");
  chime__mysql_sqlbuf_text(b, tx->s->sched);
  chime__mysql_sqlbuf_at(b, "type");
  chime__mysql_sqlbuf_text(b, type);
}

/* Runs b, a query of one number: its first row's first column into *ret
 * (0 when it has no row). */
static int run_number(chime__mysql_sqlbuf *b, int64_t *ret) {
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(b, &rows, NULL);
  if (r == 0)
    *ret = rows.nrows ? chime__mysql_rows_int64(&rows, 0, 0) : 0;
  chime__mysql_rows_free(&rows);
  return r;
}

/* Counts the type's running fires (claimed or executing; a shard counts
 * as part of its sharded fire), of one partition when key is not NULL. */
static int count_running(chime__mysql_tx *tx, const char *type, const char *key,
                         int64_t *ret) {
  chime__mysql_sqlbuf b;
  type_stmt(&b, tx, CHIME__Q_LIMIT_COUNT_RUNNING, type);
  for (int k = 0; k < 2; k++) { /* fired rows, then runs kept in triggers */
    if (k == 1) {
      chime__mysql_sqlbuf_at(&b, "sched");
      chime__mysql_sqlbuf_text(&b, tx->s->sched);
      chime__mysql_sqlbuf_at(&b, "type");
      chime__mysql_sqlbuf_text(&b, type);
    }
    chime__mysql_sqlbuf_part(&b, "partition", key != NULL);
    if (key) {
      chime__mysql_sqlbuf_at(&b, "key");
      chime__mysql_sqlbuf_text(&b, key);
    }
  }
  return run_number(&b, ret);
}

/* Locks the type's limit row (passed over when another session holds it)
 * and reads it into l, with the database's clock. */
static int lock_limit(chime__mysql_tx *tx, chime__mysql_limit *l) {
  chime__mysql_sqlbuf b;
  type_stmt(&b, tx, CHIME__Q_LIMIT_LOCK, l->type);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  if (rows.nrows == 0) {
    /* Held by another session, or cleared since the list was read. */
    bool exists = false;
    chime__mysql_rows_free(&rows);
    type_stmt(&b, tx, CHIME__Q_LIMIT_EXISTS, l->type);
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
  l->def.key_rate_count = (int)COL(6);
  l->def.key_rate_period_ms = COL(7);
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

/* The partition's rate state, as the last claim wrote it (0: none).  Its
 * type's limit row is locked: no other claim writes it meanwhile. */
static int read_tat(chime__mysql_tx *tx, const char *type, const char *key,
                    int64_t *ret) {
  chime__mysql_sqlbuf b;
  type_stmt(&b, tx, CHIME__Q_LIMIT_KEY_TAT, type);
  chime__mysql_sqlbuf_at(&b, "key");
  chime__mysql_sqlbuf_text(&b, key);
  return run_number(&b, ret);
}

/* The partition's entry in l, with what the limit needs of it (its
 * running count, its rate's state) read on first use. */
static int partition_for(chime__mysql_tx *tx, chime__mysql_limit *l,
                         const char *key, chime__mysql_part **ret) {
  chime__mysql_part *p = NULL;
  for (size_t i = 0; i < l->nparts && !p; i++)
    if (strcmp(l->parts[i].key, key) == 0)
      p = &l->parts[i];
  if (!p) {
    chime__mysql_part *v = realloc(l->parts, (l->nparts + 1) * sizeof *v);
    if (!v)
      return CHIME_ENOMEM;
    l->parts = v;
    p = &l->parts[l->nparts];
    memset(p, 0, sizeof *p);
    if (!(p->key = strdup(key)))
      return CHIME_ENOMEM;
    l->nparts++;
  }
  *ret = p;
  int r = 0;
  if (l->def.max_per_partition > 0 && !p->counted) {
    r = count_running(tx, l->type, key, &p->running);
    p->counted = r == 0;
  }
  if (r == 0 && l->def.key_rate_count > 0 && !p->tat_read) {
    r = read_tat(tx, l->type, key, &p->tat_ms);
    p->tat_read = r == 0;
  }
  return r;
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
  if (*ret_ok && t->partition_key &&
      (l->def.max_per_partition > 0 || l->def.key_rate_count > 0)) {
    if ((r = partition_for(tx, l, t->partition_key, &p)) < 0)
      return r;
    *ret_ok =
        l->def.max_per_partition == 0 || p->running < l->def.max_per_partition;
    p->full = p->full || !*ret_ok;
  }
  if (!*ret_ok) {
    l->full = l->def.max_per_partition == 0 || !t->partition_key ||
              (l->def.max_running > 0 && l->running >= l->def.max_running);
    wait_at_most(ls, CHIME__LIMIT_POLL_MS);
    return 0;
  }
  /* Both rates must have a start left: judged on copies, then kept.  A
   * partition out of starts holds up its own fires only. */
  int64_t wait = 0, tat = l->tat_ms, key_tat = p ? p->tat_ms : 0;
  bool keyed = p && l->def.key_rate_count > 0;
  if (!chime__limit_rate_take(&l->def, &tat, l->now_ms, &wait)) {
    *ret_ok = false;
    l->full = true;
    wait_at_most(ls, wait);
    return 0;
  }
  if (keyed &&
      !chime__limit_key_rate_take(&l->def, &key_tat, l->now_ms, &wait)) {
    *ret_ok = false;
    p->full = true;
    wait_at_most(ls, wait);
    return 0;
  }
  l->tat_ms = tat;
  l->tat_changed = l->tat_changed || l->def.rate_count > 0;
  if (keyed) {
    p->tat_ms = key_tat;
    p->tat_changed = true;
  }
  l->running++;
  if (p)
    p->running++;
  return 0;
}

/* Writes the partitions' rate state of l (one INSERT) and drops the rows
 * whose time has passed (they mean what no row means). */
static int write_key_tats(chime__mysql_tx *tx, const chime__mysql_limit *l) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_KEYS_WRITE);
  bool any = false;
  for (size_t k = 0; k < l->nparts; k++) {
    if (!l->parts[k].tat_changed)
      continue;
    chime__mysql_sqlbuf_row(&b, "row");
    chime__mysql_sqlbuf_at(&b, "sched_name");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    chime__mysql_sqlbuf_at(&b, "job_type");
    chime__mysql_sqlbuf_text(&b, l->type);
    chime__mysql_sqlbuf_at(&b, "partition_key");
    chime__mysql_sqlbuf_text(&b, l->parts[k].key);
    chime__mysql_sqlbuf_at(&b, "tat_ms");
    chime__mysql_sqlbuf_int(&b, l->parts[k].tat_ms);
    any = true;
  }
  if (!any) {
    chime__mysql_sqlbuf_free(&b);
    return 0;
  }
  int r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
  if (r < 0)
    return r;
  type_stmt(&b, tx, CHIME__Q_LIMIT_KEYS_EXPIRE, l->type);
  chime__mysql_sqlbuf_at(&b, "before");
  chime__mysql_sqlbuf_int(&b, l->now_ms);
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

int chime__mysql_limit_partition(chime__mysql_tx *tx, chime_trigger *const *ts,
                                 size_t n, const chime_job *job) {
  /* Nothing to read when no run lacks a key and has data to take it from
   * (a run without data reads its job's). */
  bool keyless = false;
  for (size_t i = 0; i < n && !keyless; i++)
    keyless =
        !ts[i]->partition_key && ((ts[i]->data && ts[i]->data_len > 0) ||
                                  (job && job->data && job->data_len > 0));
  if (!keyless || !job)
    return 0;
  chime__mysql_sqlbuf b;
  type_stmt(&b, tx, CHIME__Q_LIMIT_PARTITION_FIELD, job->type);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  for (size_t i = 0; r == 0 && rows.nrows > 0 && i < n; i++)
    r = chime__limit_partition_from_data(ts[i], job,
                                         chime__mysql_rows_text(&rows, 0, 0));
  chime__mysql_rows_free(&rows);
  return r;
}

int chime__mysql_limits_write(chime__mysql_tx *tx, chime__mysql_limits *ls) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < ls->n; i++) {
    chime__mysql_limit *l = &ls->v[i];
    if (l->limited && l->def.key_rate_count > 0)
      r = write_key_tats(tx, l);
    if (r < 0 || !l->tat_changed)
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
  for (size_t i = 0; i < ls->n; i++) {
    if (ls->v[i].full || ls->v[i].skip)
      return true;
    for (size_t k = 0; k < ls->v[i].nparts; k++)
      if (ls->v[i].parts[k].full)
        return true;
  }
  return false;
}

/* Whether some type was found full (or passed over) as a whole. */
static bool some_type_full(const chime__mysql_limits *ls) {
  for (size_t i = 0; i < ls->n; i++)
    if (ls->v[i].full || ls->v[i].skip)
      return true;
  return false;
}

/* Whether some partition of a type not full as a whole was found full. */
static bool some_partition_full(const chime__mysql_limits *ls) {
  for (size_t i = 0; i < ls->n; i++)
    for (size_t k = 0; !ls->v[i].full && !ls->v[i].skip && k < ls->v[i].nparts;
         k++)
      if (ls->v[i].parts[k].full)
        return true;
  return false;
}

void chime__mysql_sqlbuf_full(chime__mysql_sqlbuf *b,
                              const chime__mysql_limits *ls) {
  chime__mysql_sqlbuf_part(b, "full", some_type_full(ls));
  for (size_t i = 0; i < ls->n; i++) {
    if (!ls->v[i].full && !ls->v[i].skip)
      continue;
    chime__mysql_sqlbuf_row(b, "full");
    chime__mysql_sqlbuf_at(b, "type");
    chime__mysql_sqlbuf_text(b, ls->v[i].type);
  }
  /* The full partitions of the other types: one tenant's queue does not
   * hold up the others'. */
  chime__mysql_sqlbuf_part(b, "full_keys", some_partition_full(ls));
  for (size_t i = 0; i < ls->n; i++) {
    const chime__mysql_limit *l = &ls->v[i];
    for (size_t k = 0; !l->full && !l->skip && k < l->nparts; k++) {
      if (!l->parts[k].full)
        continue;
      chime__mysql_sqlbuf_row(b, "full_key");
      chime__mysql_sqlbuf_at(b, "type");
      chime__mysql_sqlbuf_text(b, l->type);
      chime__mysql_sqlbuf_at(b, "key");
      chime__mysql_sqlbuf_text(b, l->parts[k].key);
    }
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

/* Deletes the per-partition rate state of type. */
static int delete_keys(chime__mysql_tx *tx, const char *type) {
  chime__mysql_sqlbuf b;
  type_stmt(&b, tx, CHIME__Q_LIMIT_KEYS_DELETE, type);
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

static int set_fn(chime__mysql_tx *tx, void *arg) {
  set_op *op = arg;
  chime__mysql_sqlbuf b;
  if (op->def) {
    const chime_limit_def *d = op->def;
    bool type = !d->sets || (d->sets & CHIME__LIMIT_SET_TYPE),
         part = !d->sets || (d->sets & CHIME__LIMIT_SET_PARTITION);
    /* A changed rate starts afresh (tat_ms 0; a partition's: its rows
     * deleted below).  Only the figures d sets are updated. */
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_LIMIT_SET);
    chime__mysql_sqlbuf_at(&b, "sched_name");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    chime__mysql_sqlbuf_at(&b, "job_type");
    chime__mysql_sqlbuf_text(&b, op->type);
    const struct {
      const char *slot;
      int64_t v;
    } v[] = {{"max_running", d->max_running},
             {"max_per_key", d->max_per_partition},
             {"rate_count", d->rate_count},
             {"rate_period_ms", d->rate_period_ms},
             {"key_rate_count", d->key_rate_count},
             {"key_rate_period_ms", d->key_rate_period_ms}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
      chime__mysql_sqlbuf_at(&b, v[i].slot);
      chime__mysql_sqlbuf_int(&b, v[i].v);
    }
    chime__mysql_sqlbuf_at(&b, "partition_field");
    chime__mysql_sqlbuf_text(&b,
                             d->partition_field[0] ? d->partition_field : NULL);
    chime__mysql_sqlbuf_part(&b, "type", type);
    chime__mysql_sqlbuf_part(&b, "partition", part);
    int r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
    if (r < 0 || !part)
      return r;
    /* The partitions' rate starts afresh (a row left by an earlier rate
     * would otherwise hold a key back by that rate's interval). */
    return delete_keys(tx, op->type);
  }
  type_stmt(&b, tx, CHIME__Q_LIMIT_CLEAR, op->type);
  uint64_t n = 0;
  int r = chime__mysql_sqlbuf_run(&b, NULL, &n);
  op->found = n > 0;
  return r < 0 ? r : delete_keys(tx, op->type);
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
  type_stmt(&b, tx, CHIME__Q_LIMIT_GET, op->type);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r == 0 && rows.nrows > 0) {
    op->found = true;
    op->got.max_running = (int)chime__mysql_rows_int64(&rows, 0, 0);
    op->got.max_per_partition = (int)chime__mysql_rows_int64(&rows, 0, 1);
    op->got.rate_count = (int)chime__mysql_rows_int64(&rows, 0, 2);
    op->got.rate_period_ms = chime__mysql_rows_int64(&rows, 0, 3);
    op->got.key_rate_count = (int)chime__mysql_rows_int64(&rows, 0, 4);
    op->got.key_rate_period_ms = chime__mysql_rows_int64(&rows, 0, 5);
    if (!chime__mysql_rows_is_null(&rows, 0, 6))
      snprintf(op->got.partition_field, sizeof op->got.partition_field, "%s",
               chime__mysql_rows_text(&rows, 0, 6));
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
  for (int k = 0; k < 3; k++) {
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
    st->def.key_rate_count = (int)chime__mysql_rows_int64(&rows, i, 8);
    st->def.key_rate_period_ms = chime__mysql_rows_int64(&rows, i, 9);
    if (!chime__mysql_rows_is_null(&rows, i, 10))
      snprintf(st->def.partition_field, sizeof st->def.partition_field, "%s",
               chime__mysql_rows_text(&rows, i, 10));
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
