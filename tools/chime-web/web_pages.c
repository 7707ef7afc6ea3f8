/*
 * web_pages.c: chime-web's pages, rendered on the server from chimectl's
 * queries: the frame (head, navigation, the session's state), tables,
 * action forms, and the overview, triggers, jobs, history, events and
 * sign-in pages.  Every text from the database goes through web_html.
 * The page's <main> is what app.js refreshes in place.
 */
#include "web.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A page's start: status 200, head and navigation.  Returns the stream
 * or NULL (no memory). */
static FILE *page_open(web_page *p, web_reply *r, const char *title) {
  if (web_reply_open(r, 200, "text/html; charset=utf-8"))
    return NULL;
  web_page_begin(p, r, title);
  return r->out;
}

/* A page's end.  Returns 200. */
static int page_close(web_page *p, web_reply *r) {
  web_page_end(p, r);
  return 200;
}

/* An error box in place of a section whose query failed. */
static void failed(FILE *out, const char *what) {
  fputs("<p class=\"error\">", out);
  web_html(out, what);
  fputs(": ", out);
  web_html(out, ctl_last_error);
  fputs("</p>", out);
}

/* Opens a section's table after its query returned e: the error, "(none)",
 * or the table's head (id, and the NULL-terminated column titles).
 * Returns whether rows follow (then table_close). */
static bool table_open(FILE *o, int e, const char *what, const ctl_table *t,
                       const char *const *heads) {
  if (e) {
    failed(o, what);
    return false;
  }
  if (t->nrows == 0) {
    fprintf(o, "<p class=\"none\" id=\"%s\">(none)</p>", what);
    return false;
  }
  fprintf(o, "<div class=\"scroll\"><table id=\"%s\"><thead><tr>", what);
  for (; heads && *heads; heads++)
    fprintf(o, "<th>%s</th>", *heads);
  fputs("</tr></thead><tbody>", o);
  return true;
}

/* table_open for a table described by cols (n of them): its heads. */
static bool table_open_cols(FILE *o, int e, const char *what,
                            const ctl_table *t, const web_column *cols,
                            size_t n) {
  if (e || t->nrows == 0)
    return table_open(o, e, what, t, NULL);
  fprintf(o, "<div class=\"scroll\"><table id=\"%s\"><thead><tr>", what);
  web_heads_html(o, cols, n);
  fputs("</tr></thead><tbody>", o);
  return true;
}

static void table_close(FILE *o) {
  fputs("</tbody></table></div>", o);
}

/* Opens row i of t, a job's or a trigger's (kind), keyed GROUP.NAME from
 * its group and name (into key, len bytes). */
static void row_open(FILE *o, const ctl_table *t, size_t i, const char *kind,
                     char *key, size_t len) {
  snprintf(key, len, "%s.%s", web_col(t, i, "group"), web_col(t, i, "name"));
  fprintf(o, "<tr data-%s=\"", kind);
  web_html(o, key);
  fputs("\">", o);
}

/* A job's or trigger's (what) pause or resume and delete forms (asking
 * question), and the row's end. */
static void key_actions(web_page *p, FILE *o, const char *what, const char *key,
                        bool paused, const char *question) {
  const char *f[] = {"what", what, "target", key, NULL};
  web_edit_link(p, o, what, key);
  web_form(p, o, paused ? "resume" : "pause", f, paused ? "resume" : "pause",
           NULL);
  web_form(p, o, "delete", f, "delete", question);
  fputs("</td></tr>", o);
}

/* ------------------------------------------------------------ overview */

/* A bar chart of 60 values (one a minute, oldest first). */
static void chart(FILE *out, const char *id, const char *title,
                  const int64_t *v, const char *unit) {
  int64_t max = 1;
  for (int i = 0; i < 60; i++)
    max = v[i] > max ? v[i] : max;
  fprintf(out,
          "<figure class=\"chart\" id=\"%s\"><figcaption>%s (max %" PRId64
          "%s)</figcaption><svg viewBox=\"0 0 300 60\" "
          "preserveAspectRatio=\"none\" role=\"img\" aria-label=\"%s\">",
          id, title, max, unit, title);
  for (int i = 0; i < 60; i++) {
    int64_t h = v[i] * 58 / max;
    if (v[i] > 0 && h < 2)
      h = 2;
    fprintf(out,
            "<rect x=\"%d\" y=\"%" PRId64 "\" width=\"4\" height=\"%" PRId64
            "\"><title>%d min ago: %" PRId64 "%s</title></rect>",
            i * 5, 60 - h, h, 59 - i, v[i], unit);
  }
  fputs("<line x1=\"0\" y1=\"59.5\" x2=\"300\" y2=\"59.5\"/></svg></figure>",
        out);
}

/* The last hour's activity as three charts and two numbers. */
static void activity(web_page *p, FILE *out, int64_t now) {
  ctl_table t;
  if (ctl_activity_table(p->c, &t)) {
    failed(out, "activity");
    return;
  }
  int64_t fires[60] = {0}, fails[60] = {0}, late[60] = {0};
  int64_t total = 0, total_failed = 0, last_minute = 0;
  int64_t this_minute = now / 60000 * 60000;
  for (size_t i = 0; i < t.nrows; i++) {
    int64_t m = strtoll(web_col(&t, i, "minute_ms"), NULL, 10);
    int64_t k = 59 - (this_minute - m) / 60000;
    if (k < 0 || k > 59)
      continue;
    fires[k] = strtoll(web_col(&t, i, "fires"), NULL, 10);
    fails[k] = strtoll(web_col(&t, i, "failures"), NULL, 10);
    late[k] = strtoll(web_col(&t, i, "late_max_ms"), NULL, 10);
    total += fires[k];
    total_failed += fails[k];
  }
  last_minute = fires[58];
  ctl_table_free(&t);
  fprintf(out,
          "<ul class=\"stats\"><li><b id=\"fires-per-minute\">%" PRId64
          "</b> fires in the last full minute</li><li><b>%" PRId64
          "</b> fires in the last hour</li><li><b id=\"failures-hour\">%" PRId64
          "</b> failures in the last hour</li></ul><div class=\"charts\">",
          last_minute, total, total_failed);
  chart(out, "chart-fires", "fires per minute", fires, "");
  chart(out, "chart-failures", "failures per minute", fails, "");
  chart(out, "chart-lateness", "worst lateness per minute", late, " ms");
  fputs("</div>", out);
}

/* The limits of job types (docs/queue.md, "Limits"), when some are set:
 * per type and partition the limits, what waits and what runs. */
static void limits_section(web_page *p, FILE *o) {
  ctl_table t;
  if (ctl_limits_table(p->c, &t)) {
    fputs("<h2>Limits</h2>", o);
    failed(o, "limits");
    return;
  }
  if (t.nrows > 0) {
    fputs("<h2>Limits</h2>", o);
    web_table_html(o, &t, 7);
  }
  ctl_table_free(&t);
}

int web_page_overview(web_page *p, web_reply *r) {
  FILE *o = page_open(p, r, "Overview");
  if (!o)
    return 500;
  ctl_table nodes, running;
  if (ctl_nodes_table(p->c, &nodes)) {
    fputs("<p class=\"store down\" id=\"store\">store unreachable: ", o);
    web_html(o, ctl_last_error);
    fputs("</p>", o);
    return page_close(p, r);
  }
  size_t live = 0;
  for (size_t i = 0; i < nodes.nrows; i++)
    live += strcmp(web_col(&nodes, i, "state"), "live") == 0;
  int nrun = ctl_running_table(p->c, &running) ? -1 : (int)running.nrows;
  if (nrun >= 0)
    ctl_table_free(&running);
  fprintf(o,
          "<p class=\"store up\" id=\"store\">store reachable</p>"
          "<ul class=\"stats\"><li><b id=\"live-nodes\">%zu</b> live "
          "node(s)</li><li><b>%zu</b> dead, awaiting recovery</li>"
          "<li><b id=\"running-count\">%d</b> fire(s) running</li></ul>",
          live, nodes.nrows - live, nrun);
  activity(p, o, ctl_now(p->c));
  fputs("<h2>Nodes</h2>", o);
  web_nodes_html(p, o, &nodes);
  ctl_table_free(&nodes);
  limits_section(p, o);
  return page_close(p, r);
}

/* ------------------------------------------------------------ triggers */

int web_page_triggers(web_page *p, web_reply *r) {
  FILE *o = page_open(p, r, "Triggers");
  if (!o)
    return 500;
  web_edit_new_link(p, o, "trigger");
  ctl_table t;
  static const char *const heads[] = {
      "trigger", "state",      "job",      "schedule", "zone", "calendar",
      "misfire", "next fires", "previous", "why",      "",     NULL};
  bool rows =
      table_open(o, ctl_triggers_table(p->c, NULL, &t), "triggers", &t, heads);
  for (size_t i = 0; rows && i < t.nrows; i++) {
    char key[520];
    row_open(o, &t, i, "trigger", key, sizeof key);
    const char *state = web_col(&t, i, "state");
    fputs("<td>", o);
    web_link(o, "triggers", key);
    if (*web_col(&t, i, "description")) {
      fputs("<br><small>", o);
      web_html(o, web_col(&t, i, "description"));
      fputs("</small>", o);
    }
    fputs("</td><td class=\"state ", o);
    web_html(o, state);
    fputs("\">", o);
    web_html(o, state);
    fputs("</td><td>", o);
    web_link(o, "jobs", web_col(&t, i, "job"));
    fputs("</td><td>", o);
    if (*web_col(&t, i, "cron")) {
      fputs("<code>", o);
      web_html(o, web_col(&t, i, "cron"));
      fputs("</code><br>", o);
    }
    web_html(o, web_col(&t, i, "schedule"));
    fputs("</td><td>", o);
    web_html(o, *web_col(&t, i, "zone") ? web_col(&t, i, "zone") : "UTC");
    fputs("</td><td>", o);
    web_html(o, *web_col(&t, i, "calendar") ? web_col(&t, i, "calendar") : "-");
    fputs("</td><td>", o);
    web_html(o, web_col(&t, i, "misfire"));
    fputs("</td><td class=\"next\">", o);
    web_html(o, *web_col(&t, i, "next_times") ? web_col(&t, i, "next_times")
                                              : "-");
    fputs("</td><td>", o);
    web_html(o, *web_col(&t, i, "prev") ? web_col(&t, i, "prev") : "-");
    fputs("</td><td class=\"why\">", o);
    if (strcmp(state, "waiting") != 0 ||
        !*web_col(&t, i, "next_ms")) { /* not firing: explain's answer */
      ctl_explanation x;
      if (ctl_explain_key(p->c, key, &x) == 0) {
        /* explain's sentence without its chimectl advice, said here in
         * the console's terms: the button beside it. */
        x.msg[x.hint_at] = '\0';
        web_html(o, x.msg);
        if (strcmp(x.reason, "paused") == 0)
          fputs(p->may_act    ? " (the resume button beside resumes it)"
                : p->w->token ? " (an operator resumes it after signing in)"
                              : " (read-only: this console cannot resume it)",
                o);
      } else
        web_html(o, ctl_last_error);
    }
    fputs("</td><td class=\"acts\">", o);
    char q[600];
    snprintf(q, sizeof q, "Delete trigger %s?", key);
    key_actions(p, o, "trigger", key, strncmp(state, "paused", 6) == 0, q);
  }
  if (rows)
    table_close(o);
  ctl_table_free(&t);
  return page_close(p, r);
}

/* ------------------------------------------------------------ jobs */

int web_page_jobs(web_page *p, web_reply *r) {
  FILE *o = page_open(p, r, "Jobs");
  if (!o)
    return 500;
  ctl_table t;
  fputs("<h2>Running fires</h2>", o);
  static const web_column run_cols[] = {
      {"fire_id", "fire", "fires", NULL, "recovering", "1", " (recovering)"},
      {"job", "job", "jobs", NULL, NULL, NULL, NULL},
      {"trigger", "trigger", "triggers", NULL, NULL, NULL, NULL},
      {"node", "node", "nodes", NULL, "node_live", "0", " (dead)"},
      {"state", "state", NULL, NULL, NULL, NULL, NULL},
      {"since", "since", NULL, NULL, NULL, NULL, NULL},
      {NULL, "for", NULL, NULL, NULL, NULL, NULL},
      {NULL, "", NULL, NULL, NULL, NULL, NULL}};
  if (table_open_cols(o, ctl_running_table(p->c, &t), "running", &t, run_cols,
                      8)) {
    for (size_t i = 0; i < t.nrows; i++) {
      char age[32];
      ctl_format_age(strtoll(web_col(&t, i, "running_ms"), NULL, 10), age,
                     sizeof age);
      fputs("<tr data-fire=\"", o);
      web_html(o, web_col(&t, i, "fire_id"));
      fputs("\">", o);
      web_cells_html(o, &t, i, run_cols, 0, 6);
      fputs("<td>", o);
      web_html(o, age);
      fputs("</td><td class=\"acts\">", o);
      if (strcmp(web_col(&t, i, "state"), "executing") == 0) {
        char q[200];
        snprintf(q, sizeof q, "Cancel fire %s of %s?",
                 web_col(&t, i, "fire_id"), web_col(&t, i, "job"));
        const char *f[] = {"fire", web_col(&t, i, "fire_id"), NULL};
        web_form(p, o, "cancel", f, "cancel", q);
      }
      fputs("</td></tr>", o);
    }
    table_close(o);
  }
  ctl_table_free(&t); /* empty after an error */
  fputs("<h2>Jobs</h2>", o);
  web_edit_new_link(p, o, "job");
  static const web_column cols[] = {
      {NULL, "job", NULL, NULL, NULL, NULL, NULL},
      {"type", "type", NULL, NULL, NULL, NULL, NULL},
      {"concurrency", "concurrency", NULL, NULL, NULL, NULL, NULL},
      {"recovery", "recovery", NULL, NULL, NULL, NULL, NULL},
      {"paused", "paused", NULL, NULL, NULL, NULL, NULL},
      {"triggers", "triggers", NULL, NULL, NULL, NULL, NULL},
      {"description", "description", NULL, NULL, NULL, NULL, NULL},
      {NULL, "", NULL, NULL, NULL, NULL, NULL}};
  bool rows =
      table_open_cols(o, ctl_jobs_table(p->c, NULL, &t), "jobs", &t, cols, 8);
  for (size_t i = 0; rows && i < t.nrows; i++) {
    char key[520];
    row_open(o, &t, i, "job", key, sizeof key);
    fputs("<td>", o);
    web_link(o, "jobs", key);
    fputs("</td>", o);
    web_cells_html(o, &t, i, cols, 1, 7);
    fputs("<td class=\"acts\">", o);
    /* A request key made now: a retried POST of this form (its reply
     * lost) finds the run it stored and stores no other. */
    char rk[40] = "web-";
    if (web_random_hex(rk + 4) < 0)
      rk[0] = '\0';
    const char *f[] = {"job", key, rk[0] ? "key" : NULL, rk, NULL};
    web_form(p, o, "fire", f, "fire now", NULL);
    char q[600];
    snprintf(q, sizeof q, "Delete job %s and its %s trigger(s)?", key,
             web_col(&t, i, "triggers"));
    key_actions(p, o, "job", key, strcmp(web_col(&t, i, "paused"), "true") == 0,
                q);
  }
  if (rows)
    table_close(o);
  ctl_table_free(&t);
  return page_close(p, r);
}

/* ------------------------------------------------------------ history */

/* A text input of the history filter, its value kept. */
static void filter_input(web_page *p, FILE *o, const char *key,
                         const char *placeholder) {
  const char *v = web_param(p->q, key);
  fprintf(o, "<label>%s <input name=\"%s\" id=\"q-%s\" placeholder=\"", key,
          key, key);
  web_html(o, placeholder);
  fputs("\" value=\"", o);
  web_html(o, v ? v : "");
  fputs("\"></label>", o);
}

/* The history filter's parameters kept in the page links. */
static const char *const history_keys[] = {"job",     "trigger", "node",
                                           "outcome", "since",   "until"};

int web_page_history(web_page *p, web_reply *r) {
  char msg[300];
  long page = 1;
  int st = web_history_params(p, &page, msg, sizeof msg);
  if (st) {
    web_reply_error(r, false, st, "%s", msg);
    return st;
  }
  ctl_table t;
  int e = ctl_history_table(p->c, &t);
  if (e == CTL_USAGE || e == CTL_NOTFOUND) {
    web_reply_error(r, false, web_status_of(e), "%s", ctl_last_error);
    return web_status_of(e);
  }
  ctl_retry_links links = {0};
  if (!e && (e = web_runs_links(p, &t, &links)))
    ctl_table_free(&t);
  FILE *o = page_open(p, r, "History");
  if (!o) {
    if (!e)
      ctl_table_free(&t);
    ctl_retry_links_free(&links);
    return 500;
  }
  const char *oc = web_param(p->q, "outcome");
  fputs("<form method=\"get\" action=\"/history\" class=\"filter\" "
        "id=\"search\">",
        o);
  filter_input(p, o, "job", "GROUP.NAME");
  filter_input(p, o, "trigger", "GROUP.NAME");
  filter_input(p, o, "node", "node id");
  fputs("<label>outcome <select name=\"outcome\" id=\"q-outcome\"><option "
        "value=\"\">any</option>",
        o);
  static const char *const outcomes[] = {"OK",        "FAILED",    "REQUEUED",
                                         "CANCELLED", "TIMED_OUT", "SKIPPED",
                                         "MISSED",    "RECOVERED", "RETRIED"};
  for (size_t i = 0; i < sizeof outcomes / sizeof outcomes[0]; i++)
    fprintf(o, "<option%s>%s</option>",
            oc && strcmp(oc, outcomes[i]) == 0 ? " selected" : "", outcomes[i]);
  fputs("</select></label>", o);
  filter_input(p, o, "since", "-1h");
  filter_input(p, o, "until", "2026-03-08T01:30Z");
  fputs("<button id=\"q-go\">search</button></form>", o);
  if (e) {
    failed(o, "history");
  } else {
    web_runs_html(o, &t, &links);
    /* Pages: the filter kept in the links. */
    fputs("<p class=\"pages\">", o);
    for (int k = -1; k <= 1; k += 2) {
      long to = page + k;
      if (to < 1 || (k > 0 && t.nrows < (size_t)p->c->limit)) {
        continue;
      }
      fprintf(o, "<a id=\"%s\" href=\"/history?page=%ld",
              k < 0 ? "prev" : "next", to);
      for (size_t j = 0; j < sizeof history_keys / sizeof history_keys[0];
           j++) {
        const char *v = web_param(p->q, history_keys[j]);
        if (v && *v) {
          fprintf(o, "&amp;%s=", history_keys[j]);
          web_url(o, v);
        }
      }
      fprintf(o, "\">%s</a> ", k < 0 ? "newer" : "older");
    }
    fprintf(o, "page %ld</p>", page);
    ctl_table_free(&t);
  }
  ctl_retry_links_free(&links);
  return page_close(p, r);
}

/* ------------------------------------------------------------ events */

int web_page_events(web_page *p, web_reply *r) {
  FILE *o = page_open(p, r, "Events");
  if (!o)
    return 500;
  ctl_table t;
  fputs("<h2>Node events</h2>", o);
  static const web_column cols[] = {
      {NULL, "time", NULL, NULL, NULL, NULL, NULL},
      {"node", "node", "nodes", NULL, NULL, NULL, NULL},
      {"event", "event", NULL, NULL, NULL, NULL, NULL},
      {"detail", "detail", NULL, NULL, NULL, NULL, NULL}};
  if (table_open_cols(o, ctl_events_table(p->c, &t), "events", &t, cols, 4)) {
    for (size_t i = 0; i < t.nrows; i++) {
      char when[48];
      ctl_format_time(strtoll(web_col(&t, i, "time_ms"), NULL, 10), p->c->zone,
                      when, sizeof when);
      fputs("<tr><td>", o);
      web_html(o, when);
      fputs("</td>", o);
      web_cells_html(o, &t, i, cols, 1, 4);
      fputs("</tr>", o);
    }
    table_close(o);
  }
  ctl_table_free(&t);
  web_recent_actions_html(p, o);
  return page_close(p, r);
}

/* ------------------------------------------------------------ sign-in */

int web_page_login(web_page *p, web_reply *r) {
  FILE *o = page_open(p, r, "Sign in");
  if (!o)
    return 500;
  if (!p->w->token)
    fputs("<p>This chime-web is read-only: it was started without "
          "<code>--token-file</code> or <code>--users-file</code>.</p>",
          o);
  else
    fputs("<form method=\"post\" action=\"/login\" class=\"login\"><label>"
          "your token <input type=\"password\" name=\"token\" "
          "id=\"token\" autocomplete=\"current-password\"></label>"
          "<button id=\"signin\">sign in</button></form>",
          o);
  return page_close(p, r);
}
