/*
 * mysql/enqueue.c: enqueued runs in the MySQL store (store.h's
 * trigger_add_many and fire_tx_enqueue; docs/queue.md).
 *
 * One batch is one transaction of three statements whatever its size: the
 * job's facts (locked, as trigger_add locks them), the batch's keys that
 * are stored already (SELECT ... FOR UPDATE: a key another session has
 * inserted and not committed makes it wait for that session's end; not
 * sent for a batch of runs without keys, whose random names no other run
 * has), and one multi-row INSERT of the rest.  The trigger table's primary key
 * is the unique key's guard: a session that inserted the same key between our
 * SELECT and our INSERT makes the INSERT fail with a duplicate key, which rolls
 * back that statement only (InnoDB); the SELECT then finds its row and the
 * INSERT goes again without it.  So nodes racing with the same key store it
 * once, with no check-then-insert window, inside the store's own transaction or
 * inside a job's (fire_tx_enqueue).  A key's row kept COMPLETE for its unique
 * period (held_until_ms, migration 016) counts as stored until the period
 * ended; then the batch deletes it first (drop_held_over) and stores its run
 * anew.
 *
 * Threads: any (tx.h).
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/limit.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* How often the INSERT goes again after a racing session's duplicate. */
enum { RACE_ROUNDS = 5 };

/* Whether t's name may be stored already: every name but a run's random
 * one (model/enqueue_def.c, run_name: "Q_" and 64 random bits and a
 * count), which no other run has; looking it up would only cost the batch
 * a thousand index lookups and their gap locks. */
static bool may_exist(const chime_trigger *t) {
  return strcmp(t->group, CHIME_QUEUE_GROUP) != 0 ||
         strncmp(t->name, "Q_", 2) != 0;
}

/* Starts b on statement id of _triggers_by_keys.sql for the triggers ts[i]
 * (i < n) for which pick(ts[i]) holds, one at least (tables.h,
 * chime__mysql_keys_stmt).  Returns 0 or CHIME_ENOMEM (b not started). */
static int keys_stmt(chime__mysql_sqlbuf *b, chime__mysql_tx *tx,
                     chime__mysql_stmt_id id, chime_trigger *const *ts,
                     size_t n, bool (*pick)(const chime_trigger *)) {
  const char **gs = malloc(n * sizeof *gs);
  const char **ns = malloc(n * sizeof *ns);
  size_t k = 0;
  for (size_t i = 0; gs && ns && i < n; i++) {
    if (pick(ts[i])) {
      gs[k] = ts[i]->group;
      ns[k++] = ts[i]->name;
    }
  }
  int r = gs && ns ? 0 : CHIME_ENOMEM;
  if (r == 0)
    chime__mysql_keys_stmt(b, tx, id, gs, ns, k);
  free(gs);
  free(ns);
  return r;
}

/* Marks existed[i] for each trigger whose key is stored (locking it) or
 * came earlier in ts. */
static int mark_existing(chime__mysql_tx *tx, chime_trigger *const *ts,
                         size_t n, bool *existed) {
  size_t looked = 0;
  for (size_t i = 0; i < n; i++) {
    existed[i] = false;
    looked += may_exist(ts[i]);
  }
  if (looked == 0)
    return 0;
  chime__mysql_sqlbuf b;
  int r = keys_stmt(&b, tx, CHIME__Q_ENQUEUE_EXISTING, ts, n, may_exist);
  if (r < 0)
    return r;
  chime__mysql_rows rows;
  r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  for (size_t i = 0; i < n; i++) {
    if (!may_exist(ts[i]))
      continue;
    for (size_t k = 0; k < rows.nrows && !existed[i]; k++)
      existed[i] =
          strcmp(chime__mysql_rows_text(&rows, k, 0), ts[i]->name) == 0;
    for (size_t k = 0; k < i && !existed[i]; k++)
      existed[i] = strcmp(ts[k]->name, ts[i]->name) == 0;
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

/* Deletes the rows of the batch's keys whose unique period ended
 * (held_until_ms passed, by the database's clock): an enqueue takes such
 * a key over.  A racing session waits for our lock and then finds our new
 * row, whose period has not started. */
static int drop_held_over(chime__mysql_tx *tx, chime_trigger *const *ts,
                          size_t n) {
  size_t keyed = 0;
  for (size_t i = 0; i < n; i++)
    keyed += chime__trigger_keyed(ts[i]);
  if (keyed == 0)
    return 0;
  chime__mysql_sqlbuf b;
  int r = keys_stmt(&b, tx, CHIME__Q_ENQUEUE_HELD_OVER, ts, n,
                    chime__trigger_keyed);
  if (r < 0)
    return r;
  chime__mysql_sqlbuf_at(&b, "now");
  chime__mysql_sqlbuf_int(&b, chime__mysql_now(&tx->s->base));
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

/* One INSERT of the triggers not marked existed (prepared copies in
 * ps), of job; nothing when all existed.  Sent as text: a statement of a
 * thousand rows has some 40,000 parameters, which costs more to prepare
 * for one execution than the literals cost to escape. */
static int insert_rest(chime__mysql_tx *tx, chime_trigger *const *ps, size_t n,
                       const bool *existed, const chime_job *job) {
  /* The slots of a row, in the order of the arguments. */
  static const char *const columns[CHIME__MYSQL_TRIGGER_INSERT_ARGS] = {
      "sched_name", CHIME__MYSQL_TRIGGER_SLOT_NAMES};
  chime__mysql_arg a[CHIME__MYSQL_TRIGGER_INSERT_ARGS];
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_ENQUEUE_INSERT);
  size_t rows = 0;
  for (size_t i = 0; i < n; i++) {
    if (existed[i])
      continue;
    chime__mysql_trigger_to_args(tx->s->sched, ps[i], job, a);
    rows++;
    chime__mysql_sqlbuf_row(&b, "row");
    for (size_t k = 0; k < CHIME__MYSQL_TRIGGER_INSERT_ARGS; k++) {
      chime__mysql_sqlbuf_at(&b, columns[k]);
      chime__mysql_sqlbuf_arg(&b, &a[k]);
    }
  }
  if (rows == 0) {
    chime__mysql_sqlbuf_free(&b);
    return 0;
  }
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

int chime__mysql_add_many_in(chime__mysql_tx *tx, chime_trigger *const *ts,
                             size_t n, bool *existed) {
  assert(n >= 1 && n <= CHIME__ENQUEUE_BATCH);
  chime_trigger **ps = calloc(n, sizeof *ps);
  if (!ps)
    return CHIME_ENOMEM;
  int64_t now = chime__mysql_now(&tx->s->base);
  int r = 0;
  for (size_t i = 0; r == 0 && i < n; i++) {
    if (ts[i]->calendar_name || strcmp(ts[i]->group, ts[0]->group) != 0 ||
        strcmp(ts[i]->job_group, ts[0]->job_group) != 0 ||
        strcmp(ts[i]->job_name, ts[0]->job_name) != 0)
      r = chime__record_err(tx->errbuf, tx->errbuf_len, CHIME_EINVAL,
                            "runs of one batch share their job and group "
                            "and name no calendar");
    else if (!(ps[i] = chime__trigger_copy(ts[i])))
      r = CHIME_ENOMEM;
    else
      r = chime__trigger_prepare(ps[i], NULL, now, tx->errbuf, tx->errbuf_len);
  }
  chime_job *job = NULL;
  chime_store_state state = CHIME_STATE_WAITING;
  if (r == 0)
    r = chime__mysql_trigger_add_facts(tx, ps[0], &job, &state);
  if (r == 0 && !job)
    r = chime__record_err(tx->errbuf, tx->errbuf_len, CHIME_ENOTFOUND,
                          "no job %s.%s", ts[0]->job_group, ts[0]->job_name);
  if (r == 0) /* the run's partition key from its data (limit.c) */
    r = chime__mysql_limit_partition(tx, ps, n, job);
  for (size_t i = 0; r == 0 && i < n; i++)
    ps[i]->store_state = state;
  if (r == 0)
    r = drop_held_over(tx, ts, n);
  for (int round = 0; r == 0 && round < RACE_ROUNDS; round++) {
    r = mark_existing(tx, ts, n, existed);
    if (r == 0)
      r = insert_rest(tx, ps, n, existed, job);
    if (r != CHIME_EEXISTS)
      break;
    if (round + 1 < RACE_ROUNDS)
      r = 0; /* a racing session's key: look again */
  }
  chime_job_free(job);
  for (size_t i = 0; i < n; i++)
    chime_trigger_free(ps[i]);
  free(ps);
  return r;
}

typedef struct many_op {
  chime_trigger *const *ts;
  size_t n;
  bool *existed;
} many_op;

static int many_fn(chime__mysql_tx *tx, void *arg) {
  many_op *op = arg;
  return chime__mysql_add_many_in(tx, op->ts, op->n, op->existed);
}

int chime__mysql_trigger_add_many(chime_store *store, chime_trigger *const *ts,
                                  size_t count, bool *ret_existed, char *errbuf,
                                  size_t errbuf_len) {
  if (!ts || !ret_existed || count == 0 || count > CHIME__ENQUEUE_BATCH)
    return CHIME_EINVAL;
  many_op op = {.ts = ts, .n = count, .existed = ret_existed};
  return chime__mysql_tx_run(chime__mysql_store_of(store), many_fn, NULL, &op,
                             errbuf, errbuf_len);
}
