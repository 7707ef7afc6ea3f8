/*
 * mysql/pause.c: pausing and resuming in the MySQL store (by trigger, job,
 * group matcher and all; paused matchers are remembered in paused_groups
 * so that new triggers of a matching group start PAUSED, as in the memory
 * store).  A pause drops a trigger's claim (its fire is
 * then refused); resuming makes it WAITING, or BLOCKED while its FORBID
 * job runs; a time missed meanwhile is left to the misfire scan.
 * Calendars are in calendar.c.
 *
 * Threads: any (tx.h); each op is one transaction of its own.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct pause_op {
  chime__mysql_stmt_id id; /* the pause or resume statement */
  const char *group, *name;
  bool by_job;      /* the key is a job's */
  int job_paused;   /* -1: leave jobs.paused alone */
  const char *like; /* group matchers */
  chime_match match;
  const char *pattern;
  bool remember, forget, all;
} pause_op;

static int by_key_fn(chime__mysql_tx *tx, void *arg) {
  pause_op *op = arg;
  assert(op->group && op->name && op->job_paused <= 1);
  assert(op->by_job || op->job_paused < 0);
  bool exists;
  /* The trigger or job of op must exist (a job's row is locked). */
  int r = chime__mysql_key_has_row(
      tx, op->by_job ? CHIME__Q_JOB_LOCK : CHIME__Q_TRIG_STATUS, op->group,
      op->name, &exists);
  if (r < 0 || !exists)
    return r < 0 ? r : CHIME_ENOTFOUND;
  chime__mysql_arg a[3];
  chime__mysql_key_args(tx, op->group, op->name, a);
  if (op->job_paused >= 0) {
    chime__mysql_arg p[] = {chime__mysql_arg_int(op->job_paused), a[0], a[1],
                            a[2]};
    if ((r = chime__mysql_exec(tx, CHIME__Q_JOB_SET_PAUSED, p, 4, NULL, NULL)) <
        0)
      return r;
  }
  return chime__mysql_exec(tx, op->id, a, 3, NULL, NULL);
}

static int by_key(chime_store *store, const char *group, const char *name,
                  chime__mysql_stmt_id id, bool by_job, int job_paused) {
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  pause_op op = {.id = id,
                 .group = group,
                 .name = name,
                 .by_job = by_job,
                 .job_paused = job_paused};
  return chime__mysql_tx_run(chime__mysql_store_of(store), by_key_fn, NULL, &op,
                             NULL, 0);
}

int chime__mysql_pause_trigger(chime_store *store, const char *group,
                               const char *name) {
  return by_key(store, group, name, CHIME__Q_PAUSE_KEY, false, -1);
}

int chime__mysql_resume_trigger(chime_store *store, const char *group,
                                const char *name) {
  return by_key(store, group, name, CHIME__Q_RESUME_KEY, false, -1);
}

int chime__mysql_pause_job(chime_store *store, const char *group,
                           const char *name) {
  return by_key(store, group, name, CHIME__Q_PAUSE_JOB, true, 1);
}

int chime__mysql_resume_job(chime_store *store, const char *group,
                            const char *name) {
  return by_key(store, group, name, CHIME__Q_RESUME_JOB, true, 0);
}

/* Forgets the matchers a resume with (match, pattern) lifts: the same
 * matcher, and every EQUALS group that it matches (all for ANY). */
static int forget(chime__mysql_tx *tx, chime_match match, const char *pattern) {
  chime__mysql_arg a = chime__mysql_arg_text(tx->s->sched);
  chime__mysql_rows rows;
  int r = chime__mysql_query(tx, CHIME__Q_PG_LIST, &a, 1, &rows);
  assert(r < 0 || rows.nrows == 0 || rows.ncols == 2);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    chime_match m = (chime_match)chime__mysql_rows_int64(&rows, i, 0);
    const char *p = chime__mysql_rows_text(&rows, i, 1);
    bool same = m == match && (m == CHIME_MATCH_ANY || strcmp(p, pattern) == 0);
    bool lift =
        match == CHIME_MATCH_ANY || same ||
        (m == CHIME_MATCH_EQUALS && chime__group_matches(match, pattern, p));
    if (!lift)
      continue;
    chime__mysql_arg d[] = {a, chime__mysql_arg_int(m),
                            chime__mysql_arg_text(p)};
    r = chime__mysql_exec(tx, CHIME__Q_PG_DELETE, d, 3, NULL, NULL);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

static int by_group_fn(chime__mysql_tx *tx, void *arg) {
  pause_op *op = arg;
  assert(op->remember != op->forget && op->like);
  assert(!op->all || op->match == CHIME_MATCH_ANY);
  chime__mysql_arg s = chime__mysql_arg_text(tx->s->sched);
  int r = 0;
  if (op->remember) {
    const char *p = op->match == CHIME_MATCH_ANY ? "" : op->pattern;
    chime__mysql_arg a[] = {s, chime__mysql_arg_int(op->match),
                            chime__mysql_arg_text(p)};
    r = chime__mysql_exec(tx, CHIME__Q_PG_INSERT, a, 3, NULL, NULL);
  }
  if (r == 0 && op->forget && op->all) {
    r = chime__mysql_exec(tx, CHIME__Q_PG_CLEAR, &s, 1, NULL, NULL);
    if (r == 0)
      r = chime__mysql_exec(tx, CHIME__Q_JOBS_UNPAUSE, &s, 1, NULL, NULL);
  } else if (r == 0 && op->forget) {
    r = forget(tx, op->match, op->pattern);
  }
  chime__mysql_arg a[] = {s, chime__mysql_arg_text(op->like)};
  return r < 0 ? r : chime__mysql_exec(tx, op->id, a, 2, NULL, NULL);
}

static int by_group(chime_store *store, chime_match match, const char *pattern,
                    bool pause, bool all) {
  char like[2 * CHIME_MAX_NAME_LEN + 8];
  int r = chime__mysql_like_pattern(match, pattern, like, sizeof like);
  if (r < 0)
    return r;
  pause_op op = {.id = pause ? CHIME__Q_PAUSE_LIKE : CHIME__Q_RESUME_LIKE,
                 .like = like,
                 .match = match,
                 .pattern = pattern,
                 .remember = pause,
                 .forget = !pause,
                 .all = all};
  return chime__mysql_tx_run(chime__mysql_store_of(store), by_group_fn, NULL,
                             &op, NULL, 0);
}

int chime__mysql_pause_group(chime_store *store, chime_match match,
                             const char *pattern) {
  return by_group(store, match, pattern, true, false);
}

int chime__mysql_resume_group(chime_store *store, chime_match match,
                              const char *pattern) {
  return by_group(store, match, pattern, false, false);
}

int chime__mysql_pause_all(chime_store *store) {
  return by_group(store, CHIME_MATCH_ANY, NULL, true, true);
}

int chime__mysql_resume_all(chime_store *store) {
  return by_group(store, CHIME_MATCH_ANY, NULL, false, true);
}
