/*
 * web_ops.c: chime-web's operations pieces of issue 35: the nodes table
 * with each node's drain state and its drain/undrain buttons (the
 * overview), the /audit page (the audit table of every operator action,
 * filtered by time, who and action), and the latest actions on /events.
 * The actions themselves run in web_api.c through chimectl's functions,
 * which record them in the audit table.
 */
#include "web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The drain timeout the console's button gives a node: its runs have
 * this long to finish before they are handed over. */
#define WEB_DRAIN_TIMEOUT_S "300"

void web_nodes_html(web_page *p, FILE *o, const ctl_table *nodes) {
  if (nodes->nrows == 0) {
    fputs("<p class=\"none\" id=\"nodes\">(none)</p>", o);
    return;
  }
  static const web_column cols[] = {
      {"id", "id", "nodes", NULL, NULL, NULL, NULL},
      {"host", "host", NULL, NULL, NULL, NULL, NULL},
      {"pid", "pid", NULL, NULL, NULL, NULL, NULL},
      {"version", "version", NULL, NULL, NULL, NULL, NULL},
      {"checkin_age", "check-in", NULL, NULL, NULL, NULL, NULL},
      {"state", "state", NULL, NULL, NULL, NULL, NULL},
      {"drain", "drain", NULL, "drain", NULL, NULL, NULL},
      {"running", "running", NULL, NULL, NULL, NULL, NULL},
      {NULL, "", NULL, NULL, NULL, NULL, NULL}};
  fputs("<div class=\"scroll\"><table id=\"nodes\"><thead><tr>", o);
  web_heads_html(o, cols, 9);
  fputs("</tr></thead><tbody>", o);
  for (size_t i = 0; i < nodes->nrows; i++) {
    const char *id = web_col(nodes, i, "id");
    const char *drain = web_col(nodes, i, "drain");
    fputs("<tr data-node=\"", o);
    web_html(o, id);
    fputs("\">", o);
    web_cells_html(o, nodes, i, cols, 0, 8);
    fputs("<td>", o);
    char q[300];
    if (strcmp(drain, "active") == 0) {
      snprintf(q, sizeof q,
               "Drain node %.200s? It stops claiming; its runs get %s s to "
               "finish.",
               id, WEB_DRAIN_TIMEOUT_S);
      const char *f[] = {"node", id, "timeout", WEB_DRAIN_TIMEOUT_S, NULL};
      web_form(p, o, "drain", f, "drain", q);
    } else {
      const char *f[] = {"node", id, NULL};
      web_form(p, o, "undrain", f, "undrain", NULL);
    }
    fputs("</td></tr>", o);
  }
  fputs("</tbody></table></div>", o);
}

/* The audit rows of t as a table (id "audit"). */
static void audit_html(FILE *o, const ctl_table *t) {
  if (t->nrows == 0) {
    fputs("<p class=\"none\" id=\"audit\">(none)</p>", o);
    return;
  }
  fputs("<div class=\"scroll\"><table id=\"audit\"><thead><tr><th>time</th>"
        "<th>who</th><th>from</th><th>action</th><th>target</th>"
        "<th>details</th></tr></thead><tbody>",
        o);
  for (size_t i = 0; i < t->nrows; i++) {
    fputs("<tr>", o);
    static const char *const cols[] = {"time",   "who",    "origin",
                                       "action", "target", "details"};
    for (size_t k = 0; k < 6; k++) {
      fputs("<td>", o);
      web_html(o, web_col(t, i, cols[k]));
      fputs("</td>", o);
    }
    fputs("</tr>", o);
  }
  fputs("</tbody></table></div>", o);
}

void web_recent_actions_html(web_page *p, FILE *o) {
  ctl_table t;
  ctl c = *p->c;
  c.since = NULL;
  c.who_filter = c.action_filter = NULL;
  c.limit = 20;
  c.offset = 0;
  fputs("<h2>Operator actions (<a href=\"/audit\">all</a>)</h2>", o);
  int e = ctl_audit_table(&c, &t);
  p->c->admin = c.admin;
  if (e) {
    fputs("<p class=\"error\">", o);
    web_html(o, ctl_last_error);
    fputs("</p>", o);
    return;
  }
  audit_html(o, &t);
  ctl_table_free(&t);
}

int web_page_audit(web_page *p, web_reply *r) {
  if (web_reply_open(r, 200, "text/html; charset=utf-8"))
    return 500;
  web_page_begin(p, r, "Audit");
  FILE *o = r->out;
  const char *since = web_param(p->q, "since");
  const char *who = web_param(p->q, "who");
  const char *action = web_param(p->q, "action");
  const char *page = web_param(p->q, "page");
  long n = page ? strtol(page, NULL, 10) : 1;
  if (n < 1 || n > 100000)
    n = 1;
  fputs("<form method=\"get\" action=\"/audit\" class=\"filter\">"
        "<label>since <input name=\"since\" placeholder=\"-1d\" value=\"",
        o);
  web_html(o, since ? since : "");
  fputs("\"></label> <label>who <input name=\"who\" value=\"", o);
  web_html(o, who ? who : "");
  fputs("\"></label> <label>action <input name=\"action\" value=\"", o);
  web_html(o, action ? action : "");
  fputs("\"></label> <button>filter</button></form>", o);
  ctl_table t;
  p->c->since = since && *since ? since : NULL;
  p->c->who_filter = who && *who ? who : NULL;
  p->c->action_filter = action && *action ? action : NULL;
  p->c->limit = 100;
  p->c->offset = (n - 1) * 100;
  if (ctl_audit_table(p->c, &t)) {
    fputs("<p class=\"error\">", o);
    web_html(o, ctl_last_error);
    fputs("</p>", o);
  } else {
    audit_html(o, &t);
    fprintf(o, "<p class=\"pages\">page %ld", n);
    if (t.nrows == 100) {
      fprintf(o, " · <a href=\"/audit?page=%ld", n + 1);
      const char *const keys[] = {"since", "who", "action"};
      const char *const vals[] = {since, who, action};
      for (size_t k = 0; k < 3; k++)
        if (vals[k] && *vals[k]) {
          fprintf(o, "&amp;%s=", keys[k]);
          web_url(o, vals[k]);
        }
      fputs("\">next</a>", o);
    }
    fputs("</p>", o);
    ctl_table_free(&t);
  }
  web_page_end(p, r);
  return 200;
}
