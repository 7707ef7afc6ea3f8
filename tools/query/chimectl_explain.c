/*
 * chimectl_explain.c: `chimectl explain GROUP.NAME`: says why a trigger is
 * not firing, from its row, its job, the group pauses, the fires claimed
 * and the nodes: paused (and by what), blocked by a running fire of its
 * FORBID job, claimed by a dead node awaiting recovery, claimed or running
 * on a live node, misfired and waiting for the misfire scan, complete or
 * past its end time, or due at a time.  The misfire threshold is the
 * library's default (CTL_MISFIRE_THRESHOLD_MS): the nodes' own setting is
 * not in the store.  Live and dead are the store's own rule.  Everything
 * is read through chime-admin.h's lists: this file names no table.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
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

/* The trigger explained: its cells of the trigger list (borrowed from
 * the table). */
typedef struct trig {
  const char *group, *job_group, *job_name, *job_type, *job_tags;
  const char *state, *owner, *misfire;
  int64_t next_fire_ms, end_ms, claim_fire_id; /* none: CHIME_NO_FIRE_MS,
                                                  INT64_MAX, 0 */
} trig;

/* The rows of query q (freed), or a failure said. */
static int list(explain *e, chime_admin_query *q, chime_admin_table **ret) {
  return ctl_list(e->c, q, ret);
}

#define TEXT(t, i, col) chime_admin_table_get_text(t, i, col)
#define INT(t, i, col) chime_admin_table_get_int64(t, i, col)

/* Whether node is live (by the store's rule): 1, 0 (dead or unknown), or
 * *ret_code an exit code. */
static int node_live(explain *e, const char *node, int *ret_code) {
  chime_admin_table *t = NULL;
  *ret_code = list(e, ctl_list_query(CHIME_ADMIN_NODES), &t);
  int live = 0;
  for (size_t i = 0; node && i < chime_admin_table_get_row_count(t); i++)
    if (strcmp(TEXT(t, i, "id"), node) == 0)
      live = INT(t, i, "live") != 0;
  chime_admin_table_free(t);
  return live;
}

/* Whether job (group, name) is paused: 1, 0, or *ret_code an exit code. */
static int job_paused(explain *e, const char *jg, const char *jn,
                      int *ret_code) {
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_JOBS);
  if (q && chime_admin_query_set_group(q, jg) < 0) { /* too long: none */
    chime_admin_query_free(q);
    *ret_code = 0;
    return 0;
  }
  chime_admin_table *t = NULL;
  *ret_code = list(e, q, &t);
  int paused = 0;
  for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++)
    if (strcmp(TEXT(t, i, "group"), jg) == 0 &&
        strcmp(TEXT(t, i, "name"), jn) == 0)
      paused = INT(t, i, "paused") != 0;
  chime_admin_table_free(t);
  return paused;
}

/* Why a paused trigger is paused: its job, the group pauses covering it
 * (CHIME_ADMIN_PAUSED_GROUPS), else itself. */
static int why_paused(explain *e, const trig *tr, const char *name, char *buf,
                      size_t len) {
  int r;
  bool job = job_paused(e, tr->job_group, tr->job_name, &r);
  if (r)
    return r;
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_PAUSED_GROUPS);
  if (q)
    chime_admin_query_set_trigger(q, tr->group, name);
  chime_admin_table *t = NULL;
  if ((r = list(e, q, &t)))
    return r;
  size_t k = 0;
  buf[0] = '\0';
  if (job)
    k += (size_t)snprintf(buf, len, "its job %s.%s is paused", tr->job_group,
                          tr->job_name);
  for (size_t i = 0; i < chime_admin_table_get_row_count(t) && k < len; i++)
    k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "; " : "",
                          strcmp(TEXT(t, i, "match"), "any") == 0
                              ? "all triggers are paused"
                              : "its group is paused");
  if (k == 0)
    snprintf(buf, len, "the trigger itself is paused");
  chime_admin_table_free(t);
  return 0;
}

/* The blocking fire of a FORBID job: its first executing fire. */
static int why_blocked(explain *e, const char *jg, const char *jn) {
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_FIRES);
  if (q)
    chime_admin_query_set_job(q, jg, jn);
  chime_admin_table *t = NULL;
  int r = list(e, q, &t);
  if (r)
    return r;
  size_t n = chime_admin_table_get_row_count(t), i = 0;
  while (i < n && strcmp(TEXT(t, i, "state"), "EXECUTING") != 0)
    i++;
  if (i == n) {
    say(e, "blocked",
        "blocked: its job %s.%s forbids concurrent runs; the "
        "running fire just ended (look again)",
        jg, jn);
  } else {
    bool live = INT(t, i, "node_live") != 0;
    say(e, live ? "blocked" : "blocked_dead_node",
        "blocked: its job %s.%s forbids concurrent runs and fire %s (trigger "
        "%s.%s) is running on node %s%s",
        jg, jn, TEXT(t, i, "fire_id"), TEXT(t, i, "trigger_group"),
        TEXT(t, i, "trigger_name"), TEXT(t, i, "node"),
        live ? "" : ", which is dead: awaiting recovery");
  }
  chime_admin_table_free(t);
  return 0;
}

/* Why a claimed or executing trigger does not fire: its node. */
static int why_claimed(explain *e, const trig *t, const char *when) {
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
static int why_state(explain *e, const trig *t, const char *name,
                     const char *when, bool *ret_done) {
  const char *st = t->state;
  *ret_done = true;
  if (strcmp(st, "PAUSED") == 0 || strcmp(st, "PAUSED_BLOCKED") == 0) {
    char why[512];
    int code = why_paused(e, t, name, why, sizeof why);
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

/* Whether the comma-separated list tags holds tag. */
static bool has_tag(const char *tags, const char *tag) {
  size_t n = strlen(tag);
  while (tags && *tags) {
    size_t k = strcspn(tags, ",");
    if (k == n && strncmp(tags, tag, n) == 0)
      return true;
    tags += k + (tags[k] == ',');
  }
  return false;
}

/* The first tag the trigger's job requires that no live node has, in
 * buf (empty when every tag has a node).  Returns: 0 or an exit code. */
static int missing_tag(explain *e, const trig *t, char *buf, size_t len) {
  buf[0] = '\0';
  if (!t->job_tags)
    return 0;
  chime_admin_table *nodes = NULL;
  int r = list(e, ctl_list_query(CHIME_ADMIN_NODES), &nodes);
  if (r)
    return r;
  char tags[1200];
  snprintf(tags, sizeof tags, "%s", t->job_tags);
  for (char *p = tags, *next; *p && !buf[0]; p = next) {
    next = p + strcspn(p, ",");
    if (*next)
      *next++ = '\0';
    bool found = false;
    for (size_t i = 0; i < chime_admin_table_get_row_count(nodes) && !found;
         i++)
      found = INT(nodes, i, "live") && has_tag(TEXT(nodes, i, "tags"), p);
    if (!found) { /* a tag fits: chime_job_add_required_tag checks it */
      size_t k = strlen(p) < len ? strlen(p) : len - 1;
      memcpy(buf, p, k);
      buf[k] = '\0';
    }
  }
  chime_admin_table_free(nodes);
  return 0;
}

static int analyse(explain *e, const trig *t, const char *name, int64_t now) {
  char when[48], late[32], tag[CHIME_MAX_TAG_LEN + 1];
  int64_t next = t->next_fire_ms;
  ctl_format_time(next, e->c->zone, when, sizeof when);
  bool done;
  int code = why_state(e, t, name, when, &done);
  if (code || done)
    return code;
  if (t->end_ms != INT64_MAX && t->end_ms <= now &&
      (next == CHIME_NO_FIRE_MS || next > t->end_ms)) {
    char end[48];
    ctl_format_time(t->end_ms, e->c->zone, end, sizeof end);
    say(e, "ended", "its end time %s has passed: it will not fire again", end);
  } else if (next == CHIME_NO_FIRE_MS) {
    say(e, "complete", "complete: no further fire time");
  } else if (next <= now - CTL_MISFIRE_THRESHOLD_MS &&
             strcmp(t->misfire, "ignore") != 0) {
    ctl_format_age(now - next, late, sizeof late);
    say(e, "misfired",
        "misfired: due at %s, %s late; waiting for a node's "
        "misfire scan (policy %s)",
        when, late, t->misfire);
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

/* Trigger (group, name)'s row of the trigger list into *ret (its strings
 * borrowed from *table, the caller's).  Returns: 0 or an exit code. */
static int read_trigger(ctl *c, const char *group, const char *name,
                        const char *key, chime_admin_table **table, trig *ret) {
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_TRIGGERS);
  if (q)
    chime_admin_query_set_trigger(q, group, name);
  int r = ctl_list(c, q, table);
  if (r)
    return r;
  const chime_admin_table *t = *table;
  if (chime_admin_table_get_row_count(t) == 0)
    return ctl_fail(CHIME_ENOTFOUND, "no trigger %s", key);
  *ret = (trig){.group = TEXT(t, 0, "group"),
                .job_group = TEXT(t, 0, "job_group"),
                .job_name = TEXT(t, 0, "job_name"),
                .job_type = TEXT(t, 0, "job_type"),
                .job_tags = TEXT(t, 0, "job_tags"),
                .state = TEXT(t, 0, "state"),
                .owner = TEXT(t, 0, "owner"),
                .misfire = TEXT(t, 0, "misfire"),
                .next_fire_ms = chime_admin_table_is_null(t, 0, "next_fire_ms")
                                    ? CHIME_NO_FIRE_MS
                                    : INT(t, 0, "next_fire_ms"),
                .end_ms = chime_admin_table_is_null(t, 0, "end_ms")
                              ? INT64_MAX
                              : INT(t, 0, "end_ms"),
                .claim_fire_id = INT(t, 0, "claim_fire_id")};
  return 0;
}

#undef INT
#undef TEXT

int ctl_explain_key(ctl *c, const char *key, ctl_explanation *ret) {
  memset(ret, 0, sizeof *ret);
  ret->next_ms = CHIME_NO_FIRE_MS;
  char group[256], name[256];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r)
    return r;
  chime_admin_table *table = NULL;
  trig t = {0};
  if ((r = read_trigger(c, group, name, key, &table, &t))) {
    chime_admin_table_free(table);
    return r;
  }
  explain e = {.c = c};
  r = analyse(&e, &t, name, ctl_now(c));
  snprintf(ret->state, sizeof ret->state, "%s", t.state);
  snprintf(ret->reason, sizeof ret->reason, "%s", e.reason);
  snprintf(ret->msg, sizeof ret->msg, "%s", e.msg);
  ret->hint_at = e.hint_at <= strlen(ret->msg) ? e.hint_at : strlen(ret->msg);
  ret->next_ms = t.next_fire_ms;
  chime_admin_table_free(table);
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
