/*
 * chimectl_explain.c: `chimectl explain GROUP.NAME`: says why a trigger is
 * not firing, from its row, its job, the paused groups, the fired table
 * and the nodes: paused (and by what), blocked by a running fire of its
 * FORBID job, claimed by a dead node awaiting recovery, claimed or running
 * on a live node, misfired and waiting for the misfire scan, complete or
 * past its end time, or due at a time.  The misfire threshold is the
 * store's default (admin.h): the nodes' own setting is not in the
 * database.  Live and dead are the store's own rule.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct explain {
  ctl *c;
  char reason[24];
  char msg[1024];
  size_t hint_at; /* where chimectl's advice begins in msg */
} explain;

static void say(explain *e, const char *reason, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void say(explain *e, const char *reason, const char *fmt, ...) {
  snprintf(e->reason, sizeof e->reason, "%s", reason);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  e->hint_at = strlen(e->msg);
}

/* Appends advice in chimectl's terms to the sentence (chime-web leaves it
 * out and says it in its own). */
static void hint(explain *e, const char *advice) {
  size_t n = strlen(e->msg);
  snprintf(e->msg + n, sizeof e->msg - n, " (%s)", advice);
  e->hint_at = n;
}

/* Whether node is live: 1, 0 (dead or unknown), or an exit code < 0. */
static int node_live(explain *e, const char *node, int *ret_code) {
  chime__mysql_rows rows = {0};
  const char *args[] = {e->c->sched, node ? node : ""};
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT %s FROM {P}nodes n WHERE n.sched_name = ? AND "
           "n.instance_id = ?",
           chime__mysql_admin_node_live_sql());
  *ret_code = ctl_query(e->c, sql, args, 2, &rows);
  int live =
      *ret_code == 0 && rows.nrows > 0 && chime__mysql_rows_int64(&rows, 0, 0);
  chime__mysql_rows_free(&rows);
  return live;
}

/* Why a paused trigger is paused. */
static int why_paused(explain *e, const char *group, const char *jg,
                      const char *jn, char *buf, size_t len) {
  chime__mysql_rows rows = {0};
  const char *a1[] = {e->c->sched, jg, jn};
  int r = ctl_query(e->c,
                    "SELECT paused FROM {P}jobs WHERE sched_name = ? AND "
                    "job_group = ? AND job_name = ?",
                    a1, 3, &rows);
  if (r)
    return r;
  bool job = rows.nrows > 0 && chime__mysql_rows_int64(&rows, 0, 0);
  chime__mysql_rows_free(&rows);
  r = ctl_query(e->c,
                "SELECT match_kind, pattern FROM {P}paused_groups WHERE "
                "sched_name = ?",
                a1, 1, &rows);
  if (r)
    return r;
  size_t k = 0;
  buf[0] = '\0';
  if (job)
    k += (size_t)snprintf(buf, len, "its job %s.%s is paused", jg, jn);
  for (size_t i = 0; i < rows.nrows && k < len; i++) {
    chime_match m = (chime_match)chime__mysql_rows_int64(&rows, i, 0);
    const char *p = chime__mysql_rows_text(&rows, i, 1);
    if (!chime__mysql_admin_group_matches(m, p, group))
      continue;
    k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "; " : "",
                          m == CHIME_MATCH_ANY ? "all triggers are paused"
                                               : "its group is paused");
  }
  if (k == 0)
    snprintf(buf, len, "the trigger itself is paused");
  chime__mysql_rows_free(&rows);
  return 0;
}

/* The blocking fire of a FORBID job. */
static int why_blocked(explain *e, const char *jg, const char *jn) {
  chime__mysql_rows rows = {0};
  const char *args[] = {e->c->sched, jg, jn};
  int r = ctl_query(e->c,
                    "SELECT fire_id, node, trigger_group, trigger_name, "
                    "acquired_ms FROM {P}fired WHERE sched_name = ? AND "
                    "job_group = ? AND job_name = ? AND state = 'EXECUTING' "
                    "ORDER BY fire_id LIMIT 1",
                    args, 3, &rows);
  if (r)
    return r;
  if (rows.nrows == 0) {
    say(e, "blocked",
        "blocked: its job %s.%s forbids concurrent runs; the "
        "running fire just ended (look again)",
        jg, jn);
  } else {
    int code;
    const char *node = chime__mysql_rows_text(&rows, 0, 1);
    int live = node_live(e, node, &code);
    if (code) {
      chime__mysql_rows_free(&rows);
      return code;
    }
    say(e, live ? "blocked" : "blocked_dead_node",
        "blocked: its job %s.%s forbids concurrent runs and fire %s (trigger "
        "%s.%s) is running on node %s%s",
        jg, jn, chime__mysql_rows_text(&rows, 0, 0),
        chime__mysql_rows_text(&rows, 0, 2),
        chime__mysql_rows_text(&rows, 0, 3), node,
        live ? "" : ", which is dead: awaiting recovery");
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

/* Why a claimed or executing trigger does not fire: its node. */
static int why_claimed(explain *e, const chime__mysql_admin_trigger *t,
                       const char *when) {
  int code = 0;
  const char *owner = t->owner;
  int live = node_live(e, owner, &code);
  if (code)
    return code;
  char fire[32] = "-";
  if (t->claim_fire_id)
    snprintf(fire, sizeof fire, "%" PRId64, t->claim_fire_id);
  if (!live)
    say(e, "dead_node",
        "claimed by node %s, which is dead: awaiting recovery by a live node",
        owner ? owner : "?");
  else
    say(e, "claimed", "%s by live node %s (fire %s); next fire %s",
        strcmp(t->state, "ACQUIRED") == 0 ? "claimed" : "firing",
        owner ? owner : "?", fire, when);
  return 0;
}

/* Why a trigger in a state other than WAITING does not fire (an unknown
 * state reads as ERROR); *ret_done is cleared for WAITING. */
static int why_state(explain *e, const chime__mysql_admin_trigger *t,
                     const char *when, bool *ret_done) {
  const char *st = t->state;
  *ret_done = true;
  if (strcmp(st, "PAUSED") == 0 || strcmp(st, "PAUSED_BLOCKED") == 0) {
    char why[512];
    int code =
        why_paused(e, t->group, t->job_group, t->job_name, why, sizeof why);
    if (code == 0) {
      say(e, "paused", "paused: %s", why);
      hint(e, "resume with 'chimectl resume ...'");
    }
    return code;
  }
  if (strcmp(st, "BLOCKED") == 0)
    return why_blocked(e, t->job_group, t->job_name);
  if (strcmp(st, "ACQUIRED") == 0 || strcmp(st, "EXECUTING") == 0)
    return why_claimed(e, t, when);
  if (strcmp(st, "COMPLETE") == 0) {
    say(e, "complete", "complete: it will not fire again");
  } else if (strcmp(st, "WAITING") == 0) {
    *ret_done = false;
  } else {
    say(e, "error", "error: its schedule could not be computed");
  }
  return 0;
}

/* The first tag the trigger's job requires that no live node has, in
 * buf (empty when every tag has a node).  Returns: 0 or an exit code. */
static int missing_tag(explain *e, const chime__mysql_admin_trigger *t,
                       char *buf, size_t len) {
  chime__mysql_rows rows = {0};
  const char *key[] = {e->c->sched, t->group, t->name};
  buf[0] = '\0';
  int r = ctl_query(e->c,
                    "SELECT job_tags FROM {P}triggers WHERE sched_name = ? "
                    "AND trigger_group = ? AND trigger_name = ?",
                    key, 3, &rows);
  char tags[1200] = "";
  if (r == 0 && rows.nrows > 0)
    snprintf(tags, sizeof tags, "%s", chime__mysql_rows_text(&rows, 0, 0));
  chime__mysql_rows_free(&rows);
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT COUNT(*) FROM {P}nodes n WHERE n.sched_name = ? AND %s "
           "AND LOCATE(CONCAT(',', ?, ','), CONCAT(',', n.tags, ',')) > 0",
           chime__mysql_admin_node_live_sql());
  for (char *p = tags, *next; r == 0 && *p && !buf[0]; p = next) {
    next = p + strcspn(p, ",");
    if (*next)
      *next++ = '\0';
    const char *args[] = {e->c->sched, p};
    if ((r = ctl_query(e->c, sql, args, 2, &rows)) == 0 && rows.nrows > 0 &&
        chime__mysql_rows_int64(&rows, 0, 0) == 0)
      snprintf(buf, len, "%s", p);
    chime__mysql_rows_free(&rows);
  }
  return r;
}

static int analyse(explain *e, const chime__mysql_admin_trigger *t,
                   int64_t now) {
  char when[48], late[32], tag[CHIME_MAX_TAG_LEN + 1];
  int64_t next = t->next_fire_ms;
  ctl_format_time(next, e->c->zone, when, sizeof when);
  bool done;
  int code = why_state(e, t, when, &done);
  if (code || done)
    return code;
  if (t->end_ms != INT64_MAX && t->end_ms <= now &&
      (next == CHIME_NO_FIRE_MS || next > t->end_ms)) {
    char end[48];
    ctl_format_time(t->end_ms, e->c->zone, end, sizeof end);
    say(e, "ended", "its end time %s has passed: it will not fire again", end);
  } else if (next == CHIME_NO_FIRE_MS) {
    say(e, "complete", "complete: no further fire time");
  } else if (next <= now - chime__mysql_admin_misfire_threshold_ms() &&
             t->misfire != CHIME_MISFIRE_IGNORE) {
    ctl_format_age(now - next, late, sizeof late);
    say(e, "misfired",
        "misfired: due at %s, %s late; waiting for a node's "
        "misfire scan (policy %s)",
        when, late, ctl_misfire_name(t->misfire));
  } else if (next <= now && (code = missing_tag(e, t, tag, sizeof tag))) {
    return code;
  } else if (next <= now && tag[0]) {
    ctl_format_age(now - next, late, sizeof late);
    say(e, "no_tag",
        "due at %s (%s ago): no live node with tag %s (its job requires it)",
        when, late, tag);
  } else if (next <= now) {
    ctl_format_age(now - next, late, sizeof late);
    say(e, "overdue",
        "due at %s (%s ago): waiting for a live node that runs "
        "job type %s",
        when, late, t->job_type);
  } else {
    ctl_format_age(next - now, late, sizeof late);
    say(e, "due", "due at %s (in %s)", when, late);
  }
  return 0;
}

int ctl_explain_key(ctl *c, const char *key, ctl_explanation *ret) {
  memset(ret, 0, sizeof *ret);
  ret->next_ms = CHIME_NO_FIRE_MS;
  char group[256], name[256];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r)
    return r;
  chime__mysql_rows rows;
  chime__mysql_admin_trigger t;
  if ((r = ctl_trigger_by_key(c, group, name, key, &rows, &t)))
    return r;
  explain e = {.c = c};
  r = analyse(&e, &t, ctl_now(c));
  snprintf(ret->state, sizeof ret->state, "%s", t.state);
  snprintf(ret->reason, sizeof ret->reason, "%s", e.reason);
  snprintf(ret->msg, sizeof ret->msg, "%s", e.msg);
  ret->hint_at = e.hint_at <= strlen(ret->msg) ? e.hint_at : strlen(ret->msg);
  ret->next_ms = t.next_fire_ms;
  chime__mysql_admin_trigger_clear(&t);
  chime__mysql_rows_free(&rows);
  return r;
}

int ctl_cmd_explain(ctl *c) {
  if (c->argc != 1)
    return ctl_usage("usage: chimectl explain GROUP.NAME");
  ctl_explanation x;
  int r = ctl_explain_key(c, c->argv[0], &x);
  if (r == 0 && c->json) {
    fputs("{\"trigger\": ", stdout);
    ctl_json_string(c->argv[0]);
    fputs(", \"state\": ", stdout);
    ctl_json_string(x.state);
    fputs(", \"reason\": ", stdout);
    ctl_json_string(x.reason);
    fputs(", \"message\": ", stdout);
    ctl_json_string(x.msg);
    if (x.next_ms != CHIME_NO_FIRE_MS)
      printf(", \"next_ms\": %" PRId64, x.next_ms);
    fputs("}\n", stdout);
  } else if (r == 0) {
    printf("%s: %s\n", c->argv[0], x.msg);
  }
  return r;
}
