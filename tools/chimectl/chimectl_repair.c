/*
 * chimectl_repair.c: `chimectl repair [--apply]`: finds the stuck states
 * a cluster can be left in (chime-admin.h's CHIME_ADMIN_STUCK list) and,
 * with --apply, fixes each through the store's own step, recorded in the
 * audit table (chime_admin_repair; docs/operations.md, "Repairing stuck
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
 * database's clock: held_at_ms, the list's column).  A fire that
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
  /* For the fix (the list's cells). */
  char group[200], name[200], node[200];
  int64_t fire_id;
  int64_t held_at_ms, every_ms, now_ms; /* lost: its node's report */
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
#define TEXT(col) chime_admin_table_get_text(l, i, col)
#define INT(col) chime_admin_table_get_int64(l, i, col)

/* Copies text (NULL: "") into buf. */
#define COPY(buf, text) snprintf(buf, sizeof buf, "%s", (text) ? (text) : "")

/* The finding of row i of l, its kind's text filled in. */
static void describe(const chime_admin_table *l, size_t i, finding *x) {
  const char *kind = TEXT("kind");
  COPY(x->group, TEXT("group"));
  COPY(x->name, TEXT("name"));
  COPY(x->node, TEXT("node"));
  x->fire_id = INT("fire_id");
  if (strcmp(kind, "blocked") == 0) {
    x->kind = "blocked";
    snprintf(x->target, sizeof x->target, "job %s.%s", x->group, x->name);
    snprintf(x->detail, sizeof x->detail,
             "%" PRId64 " trigger(s) BLOCKED, no fire of the job executing",
             INT("count"));
    x->fix = "unblock its triggers";
  } else if (strcmp(kind, "lost") == 0) {
    x->kind = "lost";
    snprintf(x->target, sizeof x->target, "fire %" PRId64, x->fire_id);
    snprintf(x->detail, sizeof x->detail,
             "EXECUTING on live node %s (trigger %s.%s), which has no run of "
             "it",
             TEXT("node"), TEXT("group"), TEXT("name"));
    x->fix = "end it as a lost fire (run again if its job requests "
             "recovery, else FAILED)";
    x->held_at_ms = INT("held_at_ms");
    x->every_ms = INT("checkin_interval_ms");
    x->now_ms = INT("now_ms");
  } else if (strcmp(kind, "error") == 0) {
    x->kind = "error";
    snprintf(x->target, sizeof x->target, "trigger %s.%s", x->group, x->name);
    snprintf(x->detail, sizeof x->detail, "in ERROR (job %s.%s)",
             TEXT("job_group"), TEXT("job_name"));
    x->fix = "reset to the state it would be added in (WAITING, PAUSED, ...)";
  } else if (strcmp(kind, "orphan") == 0) {
    x->kind = "orphan";
    snprintf(x->target, sizeof x->target, "trigger %s.%s", x->group, x->name);
    snprintf(x->detail, sizeof x->detail, "%s",
             strcmp(TEXT("reason"), "job_gone") == 0
                 ? "its job is gone"
                 : "its sharded fire is gone");
    x->fix = "delete the trigger";
  } else {
    x->kind = "lease";
    snprintf(x->target, sizeof x->target, "lease %s", TEXT("name"));
    snprintf(x->detail, sizeof x->detail,
             "held by node %s (host %s, pid %s), %s", TEXT("node"),
             TEXT("host"), TEXT("pid"),
             strcmp(TEXT("reason"), "node_gone") == 0
                 ? "which has left the cluster"
                 : "whose id another process holds now");
    x->fix = "release the lease";
  }
}
#undef COPY
#undef INT
#undef TEXT

/* The stuck states the store lists now into *out (lost ones suspects). */
static int look(ctl *c, findings *out) {
  chime_admin_table *l = NULL;
  int r = ctl_list(c, ctl_list_query(CHIME_ADMIN_STUCK), &l);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++) {
    finding *x = add(out);
    if (!x)
      r = NOMEM();
    else
      describe(l, i, x);
  }
  chime_admin_table_free(l);
  return r;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static bool is_lost(const finding *x) {
  return strcmp(x->kind, "lost") == 0;
}

/* Lost suspect x as listed again in f: NULL when it is not there. */
static const finding *again_in(const findings *f, const finding *x) {
  for (size_t k = 0; k < f->n; k++)
    if (is_lost(&f->v[k]) && f->v[k].fire_id == x->fire_id)
      return &f->v[k];
  return NULL;
}

/* Whether every lost suspect of first is settled in now: gone from the
 * list, or its node has reported after seen_ms. */
static bool settled(const findings *first, const findings *now,
                    int64_t seen_ms) {
  for (size_t i = 0; i < first->n; i++) {
    const finding *y =
        is_lost(&first->v[i]) ? again_in(now, &first->v[i]) : NULL;
    if (y && y->held_at_ms <= seen_ms)
      return false;
  }
  return true;
}

/* Looks once; when a lost suspect is found, waits for its node's next
 * check-in (or 3 of its intervals and 2 s more) and looks again: a lost
 * fire is one in both looks whose node reported after the first (see the
 * top).  The other kinds are the last look's. */
static int find(ctl *c, findings *ret) {
  findings first = {0};
  int r = look(c, &first);
  int64_t seen = 0, wait_ms = 0;
  for (size_t i = 0; r == 0 && i < first.n; i++)
    if (is_lost(&first.v[i])) {
      seen = first.v[i].now_ms;
      if (3 * first.v[i].every_ms > wait_ms)
        wait_ms = 3 * first.v[i].every_ms;
    }
  if (r || seen == 0) {
    *ret = first;
    return r;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  findings now = {0};
  for (;;) {
    free(now.v);
    now = (findings){0};
    if ((r = look(c, &now)))
      break;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long elapsed = (long)(t.tv_sec - t0.tv_sec) * 1000 +
                   (t.tv_nsec - t0.tv_nsec) / 1000000;
    if (settled(&first, &now, seen) || elapsed > wait_ms + 2000)
      break;
    sleep_ms(100);
  }
  /* Of the last look: the lost fires confirmed, everything else. */
  size_t k = 0;
  for (size_t i = 0; r == 0 && i < now.n; i++) {
    const finding *x = &now.v[i];
    if (!is_lost(x) || (again_in(&first, x) && x->held_at_ms > seen))
      now.v[k++] = *x;
  }
  now.n = k;
  free(first.v);
  *ret = now;
  return r;
}

/* Fixes x; *ret_result what happened. */
static int fix(ctl *c, const finding *x, const char **ret_result) {
  chime_admin *a = NULL;
  bool fixed = false;
  int r = ctl_admin(c, &a);
  if (r)
    return r;
  bool lease = strcmp(x->kind, "lease") == 0;
  r = chime_admin_repair(a, x->kind, lease ? NULL : x->group, x->name,
                         x->fire_id, x->node[0] ? x->node : NULL, c->who,
                         c->origin, &fixed);
  if (r < 0)
    return ctl_fail(r, "repairing %s: %s", x->target,
                    chime_admin_errmsg(a)[0] ? chime_admin_errmsg(a)
                                             : chime_strerror(r));
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
  r = find(c, &f);
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
  r = ctl_table_end(c, &t, r);
  if (r == 0 && found > 0 && !c->apply && !c->json)
    printf("dry run: nothing was changed; chimectl repair --apply fixes "
           "these\n");
  return r;
}
