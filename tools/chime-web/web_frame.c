/*
 * web_frame.c: what every page of chime-web is drawn with: the frame
 * (head, navigation, the session's state, the footer), tables and their
 * cells picked by column name, action forms, links to a job, trigger,
 * fire or node page and to the editor, the log line and the random hex of
 * a session.  The lowest of the pages' files: it calls no page.
 */
#include "web.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Cell (row, col) of t ("" for none): only web_col picks by number. */
static const char *web_cell(const ctl_table *t, size_t row, size_t col) {
  const char *v =
      row < t->nrows && col < t->ncols ? t->cells[row * t->ncols + col] : NULL;
  return v ? v : "";
}

int web_col_index(const ctl_table *t, const char *name) {
  for (size_t k = 0; k < t->ncols; k++)
    if (strcmp(t->heads[k], name) == 0)
      return (int)k;
  assert(!"a column the query does not have");
  return -1;
}

const char *web_col(const ctl_table *t, size_t row, const char *name) {
  int k = web_col_index(t, name);
  return k < 0 ? "" : web_cell(t, row, (size_t)k);
}

void web_heads_html(FILE *out, const web_column *cols, size_t n) {
  for (size_t k = 0; k < n; k++)
    fprintf(out, "<th>%s</th>", cols[k].head);
}

void web_cells_html(FILE *out, const ctl_table *t, size_t row,
                    const web_column *cols, size_t from, size_t to) {
  for (size_t k = from; k < to; k++) {
    const web_column *c = &cols[k];
    const char *v = web_col(t, row, c->col);
    if (c->cls)
      fprintf(out, "<td class=\"%s\">", c->cls);
    else
      fputs("<td>", out);
    if (c->link)
      web_link(out, c->link, v);
    else
      web_html(out, v);
    if (c->note_col && strcmp(web_col(t, row, c->note_col), c->note_if) == 0)
      fputs(c->note, out);
    fputs("</td>", out);
  }
}

void web_page_begin(web_page *p, web_reply *r, const char *title) {
  FILE *o = r->out;
  fputs("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, "
        "initial-scale=1\"><title>",
        o);
  web_html(o, title);
  fputs(" · chime</title><link rel=\"icon\" href=\"data:,\">"
        "<link rel=\"stylesheet\" href=\"/static/app.css\">"
        "<script src=\"/static/app.js\" defer></script></head>\n<body>"
        "<header><a class=\"brand\" href=\"/\">chime</a> <span "
        "class=\"sched\">",
        o);
  web_html(o, p->c->sched);
  fputs("</span><nav>", o);
  static const char *const nav[][2] = {
      {"/", "Overview"},       {"/triggers", "Triggers"}, {"/jobs", "Jobs"},
      {"/history", "History"}, {"/nodes", "Nodes"},       {"/events", "Events"},
      {"/audit", "Audit"}};
  for (size_t i = 0; i < sizeof nav / sizeof nav[0]; i++)
    fprintf(o, "<a href=\"%s\"%s>%s</a>", nav[i][0],
            strcmp(p->path, nav[i][0]) == 0 ? " class=\"here\"" : "",
            nav[i][1]);
  fputs("</nav>", o);
  web_zone_form(p, o);
  fputs("<span class=\"who\">", o);
  if (p->ses) {
    fputs("<span id=\"user\">", o);
    web_html(o, p->user);
    fprintf(o,
            "</span> (%s) <form method=\"post\" action=\"/logout\" "
            "class=\"inline\"><input type=\"hidden\" name=\"csrf\" "
            "value=\"%s\"><button>sign out</button></form>",
            p->may_act ? "operator" : "read-only", p->ses->csrf);
  } else if (p->w->token) {
    fputs("read-only · <a href=\"/login\">sign in</a>", o);
  } else {
    fputs("read-only", o);
  }
  fputs("</span></header>\n<main id=\"main\">", o);
  fputs("<h1>", o);
  web_html(o, title);
  fputs("</h1>", o);
  if (p->msg && *p->msg) {
    fputs("<p class=\"msg\" id=\"msg\">", o);
    web_html(o, p->msg);
    fputs("</p>", o);
  }
}

void web_page_end(web_page *p, web_reply *r) {
  char now[48];
  ctl_format_time(ctl_now(p->c), p->c->zone, now, sizeof now);
  fputs("<p class=\"stamp\">updated <span id=\"updated\">", r->out);
  web_html(r->out, now);
  fprintf(r->out,
          "</span></p></main>\n<footer>chime-web %s</footer></body></html>\n",
          CHIME_VERSION);
}

void web_table_html(FILE *out, const ctl_table *t, size_t ncols) {
  if (t->nrows == 0) {
    fputs("<p class=\"none\">(none)</p>", out);
    return;
  }
  fputs("<div class=\"scroll\"><table><thead><tr>", out);
  for (size_t i = 0; i < ncols && i < t->ncols; i++) {
    fputs("<th>", out);
    web_html(out, t->heads[i]);
    fputs("</th>", out);
  }
  fputs("</tr></thead><tbody>", out);
  for (size_t row = 0; row < t->nrows; row++) {
    fputs("<tr>", out);
    for (size_t i = 0; i < ncols && i < t->ncols; i++) {
      fputs("<td>", out);
      web_html(out, t->cells[row * t->ncols + i]);
      fputs("</td>", out);
    }
    fputs("</tr>", out);
  }
  fputs("</tbody></table></div>", out);
}

void web_form(web_page *p, FILE *out, const char *action,
              const char *const *fields, const char *label,
              const char *confirm) {
  if (!p->ses || !p->may_act)
    return; /* read-only: no buttons (and the server refuses the write) */
  fprintf(out, "<form method=\"post\" action=\"/api/%s\" class=\"act\"",
          action);
  if (confirm) {
    fputs(" data-confirm=\"", out);
    web_html(out, confirm);
    fputs("\"", out);
  }
  fprintf(out, "><input type=\"hidden\" name=\"csrf\" value=\"%s\">",
          p->ses->csrf);
  fputs("<input type=\"hidden\" name=\"back\" value=\"", out);
  web_html(out, p->path);
  fputs("\">", out);
  for (size_t i = 0; fields && fields[i]; i += 2) {
    fprintf(out, "<input type=\"hidden\" name=\"%s\" value=\"", fields[i]);
    web_html(out, fields[i + 1]);
    fputs("\">", out);
  }
  fprintf(out, "<button data-action=\"%s\">", action);
  web_html(out, label);
  fputs("</button></form>", out);
}

/* Whether a trigger's group is one of chime's own one-shots (a retry, a
 * fire-now, a shard, a recovery, a backfill), gone once it ran: no link. */
static bool internal_group(const char *key) {
  static const char *const groups[] = {
      "CHIME_RETRY.",      "MANUAL_TRIGGER.",        "CHIME_SHARD.",
      "CHIME_RECOVERING.", CHIME_BACKFILL_GROUP ".", NULL};
  for (const char *const *g = groups; *g; g++)
    if (strncmp(key, *g, strlen(*g)) == 0)
      return true;
  return false;
}

void web_link(FILE *out, const char *kind, const char *key) {
  if (strcmp(kind, "triggers") == 0 && internal_group(key)) {
    web_html(out, key);
    return;
  }
  fprintf(out, "<a href=\"/%s/", kind);
  web_url(out, key);
  fputs("\">", out);
  web_html(out, key);
  fputs("</a>", out);
}

void web_edit_new_link(web_page *p, FILE *o, const char *what) {
  if (p->ses)
    fprintf(o, "<p><a href=\"/edit/%s\" id=\"new-%s\">new %s</a></p>", what,
            what, what);
}

void web_edit_link(web_page *p, FILE *o, const char *what, const char *key) {
  fprintf(o, "<a class=\"edit\" data-edit=\"%s\" href=\"/edit/%s?key=", what,
          what);
  web_url(o, key);
  fprintf(o, "\">%s</a> ", p->ses ? "edit" : "view");
}

void web_log(web *w, const char *fmt, ...) {
  (void)w;
  char line[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  char when[48];
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ctl_format_time((int64_t)ts.tv_sec * 1000, NULL, when, sizeof when);
  fprintf(stderr, "chime-web: %s %s\n", when, line);
}

int web_random_hex(char out[33]) {
  unsigned char b[16];
  if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
    return -1;
  for (int i = 0; i < 16; i++)
    snprintf(out + 2 * i, 3, "%02x", b[i]);
  return 0;
}
