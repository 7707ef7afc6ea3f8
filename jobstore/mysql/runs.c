/*
 * mysql/runs.c: runs kept in their trigger rows (runs.h, migration 018).
 *
 * Why: a fire's fired row is a row inserted at its claim and deleted at
 * its completion, each with its indexes' entries, its undo and its purge:
 * about a third of what the database does for a fire
 * (docs/performance.md, "Rows per fire").  A one-shot trigger's row is
 * written at the claim (its state) and at the completion (its removal)
 * anyway, and a one-shot trigger runs once: the run can ride in it.  Its
 * state is then EXECUTING (the triggers_due index finds every such run in
 * one range, as many entries as runs are kept), owner the node and
 * claim_fire_id the fire id, the columns a claim-ahead's ACQUIRED trigger
 * uses; run_acquired_ms is when it was claimed.
 *
 * The hot path reads such runs where they are: the claim writes them
 * (acquire.c, batch.c), the completion and a job's transactional
 * completion lock them by their trigger's key (complete.c, fire_tx.c),
 * fencing reads them there (maint.c), and the readers that count runs
 * (limits, FORBID's claim, node leave, the operators' lists) count them
 * too.  Everything else that reads or ends runs through fired rows
 * (recovery, a node's hand-over, the local queue's release, cancel,
 * checkpoints, repair, the removal of a trigger or job) first moves the
 * runs it needs to fired rows of their own (chime__mysql_runs_spill; for
 * one fire, chime__mysql_fired_get does it): a run can always become what
 * a fire of the claim-ahead path is, so those paths stay as they are.
 *
 * Fire ids are fired's AUTO_INCREMENT, which hands out an id only with a
 * row: a claim reserves its runs' ids in that same counter
 * (chime__mysql_runs_reserve), so that they stay unique, in the order of
 * their claims, and never met by a node of an earlier release inserting
 * fired rows meanwhile.
 *
 * A node of an earlier release reads only fired rows: a node keeps runs
 * in trigger rows only while every other live node says it reads them
 * (nodes.runs_in_triggers, read at the node's claim of its id and at
 * each check-in: s->runs_in_triggers).
 */
#include "jobstore/mysql/runs.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tables.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* auto_increment_increment's largest value: a reservation's step. */
#define MAX_STEP 65535

/* The groups of the triggers the library makes itself whose runs other
 * statements find by their fired rows: retries (retry_links.sql), shards
 * (shard_list.sql), recoveries (their fired rows carry recovering). */
static bool internal_group(const char *group) {
  return strcmp(group, CHIME__RETRY_GROUP) == 0 ||
         strcmp(group, CHIME__SHARD_GROUP) == 0 ||
         strcmp(group, "CHIME_RECOVERING") == 0;
}

bool chime__mysql_run_keepable(const chime__mysql_tx *tx, const chime_fire *f) {
  const chime_trigger *t = f->trigger;
  /* id_step 0: ids may interleave (innodb_autoinc_lock_mode 2, which
   * Galera needs; its members' share of the ids also moves with their
   * number): no reservation. */
  return tx->s->id_step > 0 && atomic_load(&tx->s->runs_in_triggers) &&
         t->store_state == CHIME_STATE_COMPLETE && !f->recovering &&
         t->shard_parent == 0 && t->retry_attempt == 0 &&
         f->job->shard_count == 0 &&
         !chime__concurrency_exclusive(f->job->concurrency) &&
         !internal_group(t->group);
}

/* One reservation of n ids (n * step <= MAX_STEP) for fires[0 .. n). */
static int reserve(chime__mysql_tx *tx, chime_fire **fires, size_t n,
                   int64_t step) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RUNS_RESERVE);
  chime__mysql_sqlbuf_at(&b, "step");
  chime__mysql_sqlbuf_int(&b, (int64_t)n * step);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  int r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
  if (r < 0)
    return r;
  int64_t first = (int64_t)mysql_insert_id(tx->c->db);
  int64_t last = first + (int64_t)(n - 1) * step;
  assert(first > 0);
  if (n > 1) {
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RUNS_RESERVE_END);
    chime__mysql_sqlbuf_at(&b, "id");
    chime__mysql_sqlbuf_int(&b, last);
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    if ((r = chime__mysql_sqlbuf_run(&b, NULL, NULL)) < 0)
      return r;
  }
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RUNS_RESERVE_DROP);
  chime__mysql_sqlbuf_at(&b, "first");
  chime__mysql_sqlbuf_int(&b, first);
  chime__mysql_sqlbuf_at(&b, "last");
  chime__mysql_sqlbuf_int(&b, last);
  if ((r = chime__mysql_sqlbuf_run(&b, NULL, NULL)) < 0)
    return r;
  for (size_t i = 0; i < n; i++)
    fires[i]->fire_id = first + (int64_t)i * step;
  return 0;
}

int chime__mysql_runs_reserve(chime__mysql_tx *tx, chime_fire **fires,
                              size_t n) {
  assert(fires && n > 0 && tx->s->id_step > 0);
  /* auto_increment_increment apart, as a multi-row INSERT's ids (a server
   * sharing the ids with others by offset keeps to its own). */
  int64_t step = tx->s->id_step;
  size_t per = (size_t)(MAX_STEP / step);
  int r = 0;
  for (size_t done = 0; r == 0 && done < n; done += per)
    r = reserve(tx, fires + done, n - done < per ? n - done : per, step);
  return r;
}

/* Fills _runs_filter.sql's parts. */
static void filter(chime__mysql_sqlbuf *b, const chime__mysql_runs_of *of) {
  chime__mysql_sqlbuf_part(b, "of_node", of->node != NULL);
  if (of->node) {
    chime__mysql_sqlbuf_at(b, "node");
    chime__mysql_sqlbuf_text(b, of->node);
  }
  chime__mysql_sqlbuf_part(b, "of_key", of->group != NULL);
  if (of->group) {
    chime__mysql_sqlbuf_at(b, "group");
    chime__mysql_sqlbuf_text(b, of->group);
    chime__mysql_sqlbuf_at(b, "name");
    chime__mysql_sqlbuf_text(b, of->name);
  }
  chime__mysql_sqlbuf_part(b, "of_job", of->job_group != NULL);
  if (of->job_group) {
    chime__mysql_sqlbuf_at(b, "job_group");
    chime__mysql_sqlbuf_text(b, of->job_group);
    chime__mysql_sqlbuf_at(b, "job_name");
    chime__mysql_sqlbuf_text(b, of->job_name);
  }
  chime__mysql_sqlbuf_part(b, "of_fire", of->fire_id > 0);
  if (of->fire_id > 0) {
    chime__mysql_sqlbuf_at(b, "fire_id");
    chime__mysql_sqlbuf_int(b, of->fire_id);
  }
}

/* The keys (group, name: columns 0 and 1 of rows) as two arrays borrowing
 * from rows.  Returns: 0; CHIME_ENOMEM. */
static int keys_of(const chime__mysql_rows *rows, const char ***ret_groups,
                   const char ***ret_names) {
  const char **gs = calloc(rows->nrows, sizeof *gs);
  const char **ns = calloc(rows->nrows, sizeof *ns);
  if (!gs || !ns) {
    free(gs);
    free(ns);
    return CHIME_ENOMEM;
  }
  for (size_t i = 0; i < rows->nrows; i++) {
    gs[i] = chime__mysql_rows_text(rows, i, 0);
    ns[i] = chime__mysql_rows_text(rows, i, 1);
  }
  *ret_groups = gs;
  *ret_names = ns;
  return 0;
}

/* Runs statement id over the keys of rows (its rows keys, then sched,
 * then, with of, _runs_filter.sql's slots). */
static int by_keys(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                   const chime__mysql_rows *keys,
                   const chime__mysql_runs_of *of, chime__mysql_rows *ret) {
  const char **gs, **ns;
  int r = keys_of(keys, &gs, &ns);
  if (r < 0)
    return r;
  chime__mysql_sqlbuf b;
  chime__mysql_keys_stmt(&b, tx, id, gs, ns, keys->nrows);
  if (of)
    filter(&b, of);
  r = chime__mysql_sqlbuf_run(&b, ret, NULL);
  free(gs);
  free(ns);
  return r;
}

int chime__mysql_runs_spill(chime__mysql_tx *tx, const chime__mysql_runs_of *of,
                            size_t *ret_moved) {
  assert(of && (of->node || of->group || of->job_group || of->fire_id > 0));
  assert(!of->group == !of->name && !of->job_group == !of->job_name);
  if (ret_moved)
    *ret_moved = 0;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_RUNS_FIND);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  filter(&b, of);
  chime__mysql_rows found, locked = {0};
  int r = chime__mysql_sqlbuf_run(&b, &found, NULL);
  if (r < 0 || found.nrows == 0) {
    chime__mysql_rows_free(&found);
    return r;
  }
  r = by_keys(tx, CHIME__Q_RUNS_SPILL_LOCK, &found, of, &locked);
  if (r == 0 && locked.nrows > 0)
    r = by_keys(tx, CHIME__Q_RUNS_SPILL_INSERT, &locked, NULL, NULL);
  if (r == 0 && locked.nrows > 0)
    r = by_keys(tx, CHIME__Q_RUNS_SPILL_CLEAR, &locked, NULL, NULL);
  if (r == 0 && ret_moved)
    *ret_moved = locked.nrows;
  chime__mysql_rows_free(&found);
  chime__mysql_rows_free(&locked);
  return r;
}
