/*
 * web_api.c: chime-web's JSON API (/api/NAME: the same rows as
 * `chimectl --json`, from the same queries), /metrics (Prometheus text of
 * chimectl metrics' cluster figures), and the actions (pause, resume,
 * fire, cancel, delete): every parameter is checked before anything is
 * written, and every action is logged with who and when.
 */
#include "web.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A whole number in [lo, hi] from text.  Returns: 0 or -1. */
static int number(const char *text, long lo, long hi, long *ret) {
  char *end;
  long v = strtol(text, &end, 10);
  if (end == text || *end || v < lo || v > hi)
    return -1;
  *ret = v;
  return 0;
}

int web_history_params(web_page *p, long *ret_page, char *msg, size_t len) {
  ctl *c = p->c;
  const char *job = web_param(p->q, "job"), *oc = web_param(p->q, "outcome");
  const char *since = web_param(p->q, "since"), *pg = web_param(p->q, "page");
  const char *lim = web_param(p->q, "limit"), *f = web_param(p->q, "failed");
  const char *trig = web_param(p->q, "trigger"),
             *node = web_param(p->q, "node");
  const char *until = web_param(p->q, "until");
  *ret_page = 1;
  c->limit = 50;
  if (lim && number(lim, 1, 1000, &c->limit)) {
    snprintf(msg, len, "limit wants a number 1-1000");
    return 400;
  }
  if (pg && number(pg, 1, 100000, ret_page)) {
    snprintf(msg, len, "page wants a number 1-100000");
    return 400;
  }
  c->offset = (*ret_page - 1) * c->limit;
  c->job = job && *job ? job : NULL;
  c->since = since && *since ? since : NULL;
  c->trigger = trig && *trig ? trig : NULL;
  c->on_node = node && *node ? node : NULL;
  c->until = until && *until ? until : NULL;
  c->failed = f && (strcmp(f, "1") == 0 || strcmp(f, "true") == 0);
  if (f && !c->failed && strcmp(f, "0") != 0 && strcmp(f, "false") != 0) {
    snprintf(msg, len, "failed wants true or false");
    return 400;
  }
  c->outcome = oc && *oc ? oc : NULL;
  for (const char *s = c->outcome; s && *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || *s == '_') || s - c->outcome >= 16) {
      snprintf(msg, len, "outcome wants a word like OK or FAILED");
      return 400;
    }
  return 0;
}

/* Writes a table as the JSON reply, or the query's error.  Returns the
 * status. */
static int table_reply(web_reply *r, int e, ctl_table *t) {
  if (e) {
    web_reply_error(r, true, web_status_of(e), "%s", ctl_last_error);
    return web_status_of(e);
  }
  if (web_reply_open(r, 200, "application/json") == 0)
    ctl_table_print_json(t, r->out);
  ctl_table_free(t);
  return r->out ? 200 : 500;
}

static int explain_reply(web_page *p, web_reply *r) {
  const char *key = web_param(p->q, "trigger");
  if (!key) {
    web_reply_error(r, true, 400, "explain wants trigger=GROUP.NAME");
    return 400;
  }
  ctl_explanation x;
  int e = ctl_explain_key(p->c, key, &x);
  if (e) {
    web_reply_error(r, true, web_status_of(e), "%s", ctl_last_error);
    return web_status_of(e);
  }
  if (web_reply_open(r, 200, "application/json"))
    return 500;
  fputs("{\"trigger\": ", r->out);
  ctl_json_string_to(r->out, key);
  fputs(", \"state\": ", r->out);
  ctl_json_string_to(r->out, x.state);
  fputs(", \"reason\": ", r->out);
  ctl_json_string_to(r->out, x.reason);
  fputs(", \"message\": ", r->out);
  ctl_json_string_to(r->out, x.msg);
  if (x.next_ms != CHIME_NO_FIRE_MS)
    fprintf(r->out, ", \"next_ms\": %" PRId64, x.next_ms);
  fputs("}\n", r->out);
  return 200;
}

int web_api_get(web_page *p, const char *name, web_reply *r) {
  ctl_table t;
  if (strchr(name, '/')) { /* one job, trigger, fire or node */
    if (p->q->n) {
      web_reply_error(r, true, 400, "unknown parameter '%s' for /api/%.100s",
                      p->q->key[0], name);
      return 400;
    }
    return web_api_detail(p, name, r);
  }
  /* Parameters a listing does not take are refused, not ignored. */
  bool history = strcmp(name, "history") == 0;
  bool explain = strcmp(name, "explain") == 0;
  for (size_t i = 0; i < p->q->n; i++)
    if ((!history && !explain) ||
        (explain && strcmp(p->q->key[i], "trigger") != 0)) {
      web_reply_error(r, true, 400, "unknown parameter '%s' for /api/%s",
                      p->q->key[i], name);
      return 400;
    }
  if (strcmp(name, "nodes") == 0)
    return table_reply(r, ctl_nodes_table(p->c, &t), &t);
  if (strcmp(name, "jobs") == 0)
    return table_reply(r, ctl_jobs_table(p->c, NULL, &t), &t);
  if (strcmp(name, "triggers") == 0)
    return table_reply(r, ctl_triggers_table(p->c, NULL, &t), &t);
  if (strcmp(name, "running") == 0)
    return table_reply(r, ctl_running_table(p->c, &t), &t);
  if (strcmp(name, "activity") == 0)
    return table_reply(r, ctl_activity_table(p->c, &t), &t);
  if (strcmp(name, "events") == 0)
    return table_reply(r, ctl_events_table(p->c, &t), &t);
  if (strcmp(name, "audit") == 0)
    return table_reply(r, ctl_audit_table(p->c, &t), &t);
  if (explain)
    return explain_reply(p, r);
  if (history) {
    char msg[200];
    long page;
    int st = web_history_params(p, &page, msg, sizeof msg);
    if (st) {
      web_reply_error(r, true, st, "%s", msg);
      return st;
    }
    return table_reply(r, ctl_history_table(p->c, &t), &t);
  }
  web_reply_error(r, true, 404, "no API /api/%.60s", name);
  return 404;
}

int web_metrics(web_page *p, web_reply *r) {
  /* chimectl metrics' figures, gathered whole first so that a store
   * failure half-way serves chime_store_up 0 rather than a torn set. */
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m)
    return 500;
  bool up = ctl_metrics_write(p->c, m) == 0;
  fclose(m);
  if (web_reply_open(r, 200, "text/plain; version=0.0.4")) {
    free(text);
    return 500;
  }
  fputs("# HELP chime_store_up Whether chime-web reaches the store.\n"
        "# TYPE chime_store_up gauge\n",
        r->out);
  fprintf(r->out, "chime_store_up %d\n", up);
  if (up)
    fwrite(text, 1, len, r->out);
  free(text);
  return 200;
}

/* Each action's parameters (besides csrf and back). */
static const char *const target_params[] = {"what", "target", "csrf", "back",
                                            NULL};
static const char *const fire_params[] = {"job",  "data", "key",
                                          "csrf", "back", NULL};
static const char *const cancel_params[] = {"fire", "csrf", "back", NULL};
static const char *const drain_params[] = {"node", "timeout", "csrf", "back",
                                           NULL};

/* drain (timeout in seconds, may be absent: none) or undrain a node. */
static int drain_action(web_page *p, bool drain, const char *who, char *msg,
                        size_t msg_len) {
  const char *node = web_param(p->q, "node");
  const char *timeout = web_param(p->q, "timeout");
  if (!node || !*node) {
    snprintf(msg, msg_len, "missing parameter 'node'");
    return 400;
  }
  long long ms = 0;
  if (drain && timeout && *timeout) {
    char *end;
    double secs = strtod(timeout, &end);
    if (*end || !(secs >= 0) || secs > 7 * 86400) {
      snprintf(msg, msg_len, "timeout wants seconds 0-604800");
      return 400;
    }
    ms = (long long)(secs * 1000);
  } else if (!drain && timeout) {
    snprintf(msg, msg_len, "undrain takes no timeout");
    return 400;
  }
  int e = ctl_drain_node(p->c, node, drain, ms);
  if (e) {
    snprintf(msg, msg_len, "%s", ctl_last_error);
    return web_status_of(e);
  }
  snprintf(msg, msg_len,
           drain ? "draining node %s: it claims nothing from its next check-in"
                 : "undrained node %s: it claims again from its next check-in",
           node);
  web_log(p->w, "%s %s node %s", who, drain ? "drained" : "undrained", node);
  return 200;
}

/* A parameter that must be there. */
static const char *need(web_page *p, const char *key, char *msg, size_t len) {
  const char *v = web_param(p->q, key);
  if (!v || !*v)
    snprintf(msg, len, "missing parameter '%s'", key);
  return v && *v ? v : NULL;
}

int web_api_action(web_page *p, const char *action, const char *who, char *msg,
                   size_t msg_len) {
  bool fire = strcmp(action, "fire") == 0;
  bool cancel = strcmp(action, "cancel") == 0;
  bool del = strcmp(action, "delete") == 0;
  bool drain = strcmp(action, "drain") == 0;
  bool undrain = strcmp(action, "undrain") == 0;
  const char *const *allowed = fire               ? fire_params
                               : cancel           ? cancel_params
                               : drain || undrain ? drain_params
                                                  : target_params;
  if (!web_params_known(p->q, allowed, msg, msg_len))
    return 400;
  if (drain || undrain)
    return drain_action(p, drain, who, msg, msg_len);
  int e;
  if (fire) {
    const char *job = need(p, "job", msg, msg_len);
    if (!job)
      return 400;
    char trigger[2 * CHIME_MAX_NAME_LEN + 2];
    int64_t due = 0;
    bool existed = false;
    if ((e = ctl_fire_key(p->c, job, web_param(p->q, "data"),
                          web_param(p->q, "key"), trigger, sizeof trigger, &due,
                          &existed)) == 0 &&
        existed) {
      snprintf(msg, msg_len, "job %s: this request's run %s was stored already",
               job, trigger);
    } else if (e == 0) {
      snprintf(msg, msg_len, "fired job %s: trigger %s", job, trigger);
      web_log(p->w, "%s fired job %s (trigger %s)", who, job, trigger);
    }
  } else if (cancel) {
    const char *id = need(p, "fire", msg, msg_len);
    if (!id)
      return 400;
    if ((e = ctl_cancel_fire(p->c, id)) == 0) {
      snprintf(msg, msg_len,
               "cancelled fire %s: its node stops it at its next check-in", id);
      web_log(p->w, "%s cancelled fire %s", who, id);
    }
  } else {
    const char *what = need(p, "what", msg, msg_len);
    const char *target = web_param(p->q, "target");
    if (!what)
      return 400;
    if (del && strcmp(what, "job") != 0 && strcmp(what, "trigger") != 0) {
      snprintf(msg, msg_len, "delete wants what=job or what=trigger");
      return 400;
    }
    bool pause = strcmp(action, "pause") == 0;
    e = del ? ctl_delete_key(p->c, strcmp(what, "job") == 0,
                             target ? target : "")
            : ctl_pause_target(p->c, pause, what, target ? target : "");
    if (e == 0) {
      const char *done = del ? "deleted" : pause ? "paused" : "resumed";
      const char *sp = target && *target ? " " : "";
      snprintf(msg, msg_len, "%s %s%s%s", done, what, sp, sp[0] ? target : "");
      web_log(p->w, "%s %s %s%s%s", who, done, what, sp, sp[0] ? target : "");
    }
  }
  if (e)
    snprintf(msg, msg_len, "%s", ctl_last_error);
  return web_status_of(e);
}
