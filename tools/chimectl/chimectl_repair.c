/*
 * chimectl_repair.c: `chimectl repair [--apply]`: finds the stuck states
 * a cluster can be left in and, with --apply, fixes each through the
 * store's own step, recorded in the audit table (admin.h's
 * chime__mysql_admin_repair; docs/operations.md, "Repairing stuck
 * states").  Without --apply it changes nothing (a dry run).
 *
 *   blocked  a FORBID job's triggers BLOCKED with no fire of it executing
 *   lost     a fire EXECUTING on a live node that has no run of it
 *   error    a trigger in ERROR
 *   orphan   a shard, retry or recovery trigger whose job, or whose
 *            sharded fire, is gone
 *   lease    a lease held by a node that is gone (no nodes row, or one
 *            naming another process)
 *
 * How "no run of it" is known: each node reports the fires it holds with
 * its check-in (nodes.held_ids, read after the check-in read the
 * database's clock: held_at_ms; jobstore/mysql/held.c).  A fire that
 * committed EXECUTING before that instant is listed unless the node is
 * done with it.  So a fire seen EXECUTING at instant O, and missing from
 * the list of a check-in whose held_at_ms is later than O, is one its
 * node has forgotten: repair looks once, and when it finds suspects it
 * waits for their nodes' next check-in and looks again (a fire committed
 * a moment before a check-in is never called lost).  A node of an older
 * version reports nothing (held_ids NULL): its fires are never called
 * lost.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A finding: what, which, why and how it is fixed. */
typedef struct finding {
  const char *kind;
  char target[420];
  char detail[300];
  const char *fix;
  /* For the fix. */
  chime__mysql_repair_kind repair;
  char group[200], name[200], node[200];
  int64_t fire_id;
} finding;

typedef struct findings {
  finding *v;
  size_t n, cap;
} findings;

static finding *add(findings *f) {
  if (f->n == f->cap) {
    size_t cap = f->cap ? 2 * f->cap : 16;
    finding *v = realloc(f->v, cap * sizeof *v);
    if (!v)
      return NULL;
    f->v = v;
    f->cap = cap;
  }
  finding *x = &f->v[f->n++];
  memset(x, 0, sizeof *x);
  return x;
}

#define NOMEM() ctl_fail(CHIME_ENOMEM, "out of memory")
/* The database's clock in SQL. */
#define NOW_SQL "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"

/* A finding of kind about the key in columns 0 and 1 of row i ("job" or
 * "trigger" what), fixed by repair; NULL: out of memory (said). */
static finding *keyed(findings *out, const chime__mysql_rows *rows, size_t i,
                      const char *kind, chime__mysql_repair_kind repair,
                      const char *what, const char *fix_text) {
  finding *x = add(out);
  if (!x) {
    NOMEM();
    return NULL;
  }
  x->kind = kind;
  x->repair = repair;
  x->fix = fix_text;
  snprintf(x->group, sizeof x->group, "%s", chime__mysql_rows_text(rows, i, 0));
  snprintf(x->name, sizeof x->name, "%s", chime__mysql_rows_text(rows, i, 1));
  snprintf(x->target, sizeof x->target, "%s %s.%s", what, x->group, x->name);
  return x;
}

static int find_blocked(ctl *c, findings *out) {
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(
      c,
      "SELECT t.job_group, t.job_name, COUNT(*) FROM {P}triggers t WHERE "
      "t.sched_name = ? AND t.state IN ('BLOCKED', 'PAUSED_BLOCKED') AND "
      "NOT EXISTS (SELECT 1 FROM {P}fired f WHERE f.sched_name = "
      "t.sched_name AND f.job_group = t.job_group AND f.job_name = "
      "t.job_name AND f.state = 'EXECUTING' AND f.forbid = 1) GROUP BY "
      "t.job_group, t.job_name ORDER BY t.job_group, t.job_name",
      args, 1, &rows);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    finding *x = keyed(out, &rows, i, "blocked", CHIME__REPAIR_BLOCKED, "job",
                       "unblock its triggers");
    if (!x) {
      r = CTL_FAILED;
      break;
    }
    snprintf(x->detail, sizeof x->detail,
             "%s trigger(s) BLOCKED, no fire of the job executing",
             chime__mysql_rows_text(&rows, i, 2));
  }
  chime__mysql_rows_free(&rows);
  return r;
}

/* The EXECUTING fires of live nodes missing from their nodes' lists;
 * *ret_now the database's clock when read. */
static int lost_suspects(ctl *c, findings *out, int64_t *ret_now,
                         int64_t *ret_wait_ms) {
  char sql[1400];
  snprintf(sql, sizeof sql,
           "SELECT f.fire_id, f.node, f.trigger_group, f.trigger_name, "
           "n.held_at_ms, n.checkin_interval_ms, " NOW_SQL
           " FROM {P}fired f JOIN {P}nodes n ON n.sched_name = f.sched_name "
           "AND n.instance_id = f.node WHERE f.sched_name = ? AND f.state = "
           "'EXECUTING' AND n.held_ids IS NOT NULL AND n.held_at_ms IS NOT "
           "NULL AND %s AND FIND_IN_SET(CAST(f.fire_id AS CHAR), "
           "n.held_ids) = 0 ORDER BY f.fire_id",
           chime__mysql_admin_node_live_sql());
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c, sql, args, 1, &rows);
  *ret_now = ctl_now(c);
  *ret_wait_ms = 0;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    finding *x = add(out);
    if (!x) {
      r = NOMEM();
      break;
    }
    x->kind = "lost";
    x->repair = CHIME__REPAIR_LOST;
    x->fire_id = chime__mysql_rows_int64(&rows, i, 0);
    snprintf(x->node, sizeof x->node, "%s",
             chime__mysql_rows_text(&rows, i, 1));
    snprintf(x->target, sizeof x->target, "fire %" PRId64, x->fire_id);
    snprintf(x->detail, sizeof x->detail,
             "EXECUTING on live node %s (trigger %s.%s), which has no run of "
             "it",
             x->node, chime__mysql_rows_text(&rows, i, 2),
             chime__mysql_rows_text(&rows, i, 3));
    x->fix = "end it as a lost fire (run again if its job requests "
             "recovery, else FAILED)";
    int64_t every = chime__mysql_rows_int64(&rows, i, 5);
    if (3 * every > *ret_wait_ms)
      *ret_wait_ms = 3 * every;
    /* The row's own clock, nearer the read than ctl_now. */
    *ret_now = chime__mysql_rows_int64(&rows, i, 6);
  }
  chime__mysql_rows_free(&rows);
  return r;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Whether node has checked in (held_at_ms) after seen_ms, or is gone. */
static int checked_in_after(ctl *c, const char *node, int64_t seen_ms,
                            bool *ret) {
  char since[32];
  snprintf(since, sizeof since, "%" PRId64, seen_ms);
  const char *args[] = {c->sched, node, since};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c,
                    "SELECT COUNT(*) FROM {P}nodes WHERE sched_name = ? AND "
                    "instance_id = ? AND held_at_ms <= ?",
                    args, 3, &rows);
  if (r == 0)
    *ret = chime__mysql_rows_int64(&rows, 0, 0) == 0;
  chime__mysql_rows_free(&rows);
  return r;
}

/* Suspects, confirmed by a check-in of their node that began after they
 * were seen (see the top). */
static int find_lost(ctl *c, findings *out) {
  findings first = {0};
  int64_t seen = 0, wait_ms = 0;
  int r = lost_suspects(c, &first, &seen, &wait_ms);
  if (r || first.n == 0) {
    free(first.v);
    return r;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; r == 0 && i < first.n;) {
    bool after = false;
    if ((r = checked_in_after(c, first.v[i].node, seen, &after)))
      break;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long elapsed = (long)(t.tv_sec - t0.tv_sec) * 1000 +
                   (t.tv_nsec - t0.tv_nsec) / 1000000;
    if (after || elapsed > wait_ms + 2000)
      i++;
    else
      sleep_ms(100);
  }
  findings again = {0};
  int64_t now2, wait2;
  if (r == 0)
    r = lost_suspects(c, &again, &now2, &wait2);
  for (size_t i = 0; r == 0 && i < again.n; i++) {
    bool was = false, after = false;
    for (size_t k = 0; k < first.n && !was; k++)
      was = first.v[k].fire_id == again.v[i].fire_id;
    if (was && (r = checked_in_after(c, again.v[i].node, seen, &after)) == 0 &&
        after) {
      finding *x = add(out);
      if (!x)
        r = NOMEM();
      else
        *x = again.v[i];
    }
  }
  free(first.v);
  free(again.v);
  return r;
}

static int find_errors(ctl *c, findings *out) {
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c,
                    "SELECT trigger_group, trigger_name, job_group, job_name "
                    "FROM {P}triggers WHERE sched_name = ? AND state = "
                    "'ERROR' ORDER BY trigger_group, trigger_name",
                    args, 1, &rows);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    finding *x =
        keyed(out, &rows, i, "error", CHIME__REPAIR_ERROR, "trigger",
              "reset to the state it would be added in (WAITING, PAUSED, ...)");
    if (!x) {
      r = CTL_FAILED;
      break;
    }
    snprintf(x->detail, sizeof x->detail, "in ERROR (job %s.%s)",
             chime__mysql_rows_text(&rows, i, 2),
             chime__mysql_rows_text(&rows, i, 3));
  }
  chime__mysql_rows_free(&rows);
  return r;
}

static int find_orphans(ctl *c, findings *out) {
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(
      c,
      "SELECT t.trigger_group, t.trigger_name, j.job_name IS NULL FROM "
      "{P}triggers t LEFT JOIN {P}jobs j ON j.sched_name = t.sched_name AND "
      "j.job_group = t.job_group AND j.job_name = t.job_name WHERE "
      "t.sched_name = ? AND t.trigger_group IN ('CHIME_SHARD', "
      "'CHIME_RETRY', 'CHIME_RECOVERING') AND t.state NOT IN ('ACQUIRED', "
      "'EXECUTING') AND (j.job_name IS NULL OR (t.shard_parent > 0 AND NOT "
      "EXISTS (SELECT 1 FROM {P}fired p WHERE p.sched_name = t.sched_name "
      "AND p.fire_id = t.shard_parent))) ORDER BY t.trigger_group, "
      "t.trigger_name",
      args, 1, &rows);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    finding *x = keyed(out, &rows, i, "orphan", CHIME__REPAIR_ORPHAN, "trigger",
                       "delete the trigger");
    if (!x) {
      r = CTL_FAILED;
      break;
    }
    snprintf(x->detail, sizeof x->detail, "%s",
             chime__mysql_rows_int64(&rows, i, 2) ? "its job is gone"
                                                  : "its sharded fire is gone");
  }
  chime__mysql_rows_free(&rows);
  return r;
}

static int find_leases(ctl *c, findings *out) {
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(
      c,
      "SELECT l.lease_name, l.holder_node, l.holder_host, l.holder_pid, "
      "n.instance_id IS NULL FROM {P}leases l LEFT JOIN {P}nodes n ON "
      "n.sched_name = l.sched_name AND n.instance_id = l.holder_node WHERE "
      "l.sched_name = ? AND l.released = 0 AND l.expires_ms > " NOW_SQL
      " AND (n.instance_id IS NULL OR n.host <> l.holder_host OR n.pid <> "
      "l.holder_pid) ORDER BY l.lease_name",
      args, 1, &rows);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    finding *x = add(out);
    if (!x) {
      r = NOMEM();
      break;
    }
    x->kind = "lease";
    snprintf(x->name, sizeof x->name, "%s",
             chime__mysql_rows_text(&rows, i, 0));
    snprintf(x->target, sizeof x->target, "lease %s", x->name);
    snprintf(x->detail, sizeof x->detail,
             "held by node %s (host %s, pid %s), %s",
             chime__mysql_rows_text(&rows, i, 1),
             chime__mysql_rows_text(&rows, i, 2),
             chime__mysql_rows_text(&rows, i, 3),
             chime__mysql_rows_int64(&rows, i, 4)
                 ? "which has left the cluster"
                 : "whose id another process holds now");
    x->fix = "release the lease";
  }
  chime__mysql_rows_free(&rows);
  return r;
}

/* Fixes x; *ret_result what happened. */
static int fix(ctl *c, const finding *x, const char **ret_result) {
  char err[512] = "";
  bool fixed = false;
  int r;
  if (strcmp(x->kind, "lease") == 0) {
    r = chime__mysql_admin_lease_release(c->admin, x->name);
    fixed = r == 0;
    if (r == CHIME_ENOTFOUND)
      r = 0; /* released or run out meanwhile */
    if (fixed)
      ctl_audit(c, "repair", x->target, x->detail);
  } else {
    r = chime__mysql_admin_repair(c->admin, x->repair, x->group, x->name,
                                  x->fire_id, x->node, c->who, c->origin,
                                  &fixed, err, sizeof err);
  }
  if (r < 0)
    return ctl_fail(r, "repairing %s: %s", x->target,
                    err[0] ? err : chime_strerror(r));
  *ret_result = fixed ? "fixed" : "no longer stuck";
  return 0;
}

int ctl_cmd_repair(ctl *c) {
  if (c->argc != 0)
    return ctl_usage("usage: chimectl repair [--apply]");
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  findings f = {0};
  r = find_blocked(c, &f);
  if (r == 0)
    r = find_lost(c, &f);
  if (r == 0)
    r = find_errors(c, &f);
  if (r == 0)
    r = find_orphans(c, &f);
  if (r == 0)
    r = find_leases(c, &f);
  static const char *const heads[] = {"kind", "target", "detail", "fix",
                                      "result"};
  ctl_table t;
  ctl_table_init(&t, heads, NULL, 5);
  t.shown = c->apply ? 5 : 4;
  for (size_t i = 0; r == 0 && i < f.n; i++) {
    const char *result = "not applied (dry run: --apply fixes it)";
    if (c->apply && (r = fix(c, &f.v[i], &result)))
      break;
    const char *cells[] = {f.v[i].kind, f.v[i].target, f.v[i].detail,
                           f.v[i].fix, result};
    if (ctl_table_add(&t, cells) < 0)
      r = NOMEM();
  }
  size_t found = f.n;
  free(f.v);
  chime__mysql_rows none = {0};
  r = ctl_table_done(c, &t, &none, r);
  if (r == 0 && found > 0 && !c->apply && !c->json)
    printf("dry run: nothing was changed; chimectl repair --apply fixes "
           "these\n");
  return r;
}
