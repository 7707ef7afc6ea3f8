/*
 * web_detail.c: chime-web's pages of one thing, and their JSON twins:
 * a job (/jobs/G.N), a trigger (/triggers/G.N), a fire (/fires/ID) and a
 * node (/nodes/ID), with the nodes' list (/nodes).  Each gathers a
 * *detail*: named fields (some linking to another detail page) and
 * sections (tables of runs, triggers, running fires, shards, events),
 * then writes it as a page or as one JSON object (/api/jobs/G.N, ...).
 * Everything comes from chimectl's queries: a trigger's state and why are
 * explain's, its next fires ctl_next_times's in the trigger's own zone.
 *
 * Terms: a *run* is a history row (one fire's execution); its *attempt*
 * is its place in its retry chain (chimectl_detail.c).
 */
#include "web.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Runs shown on a detail page (the history page has them all). */
#define DETAIL_RUNS 20
/* Next fires listed of a trigger. */
#define NEXT_FIRES 5

/* What a section's table holds, so its cells link where they should. */
typedef enum { S_RUNS, S_TRIGGERS, S_RUNNING, S_SHARDS, S_EVENTS } section_kind;

typedef struct field {
  const char *name;
  char *value;      /* malloc'd, NULL: none */
  const char *link; /* the detail kind value names ("jobs"), NULL: none */
} field;

typedef struct section {
  const char *name; /* the JSON key and the table's id */
  const char *title;
  section_kind kind;
  ctl_table t;
} section;

typedef struct detail {
  char title[600];
  field f[32];
  size_t nf;
  section s[4];
  size_t ns;
  char *next[NEXT_FIRES]; /* a trigger's next fires, in its zone */
  size_t nnext;
  ctl_retry_links links;
  bool found;
  bool gone;  /* a job no longer stored, known by its runs */
  int status; /* an error's, 0 when found */
} detail;

/* ------------------------------------------------------------ paths */

static const char *const kinds[] = {"jobs", "triggers", "fires", "nodes", NULL};

/* The kind of a detail path ("jobs"...) and its key into *ret_key, or
 * NULL. */
static const char *kind_of(const char *path, const char **ret_key) {
  for (const char *const *k = kinds; *k; k++) {
    size_t n = strlen(*k);
    if (path[0] == '/' && strncmp(path + 1, *k, n) == 0 && path[1 + n] == '/' &&
        path[2 + n]) {
      *ret_key = path + 2 + n;
      return *k;
    }
  }
  return NULL;
}

bool web_detail_path(const char *path) {
  const char *key;
  return kind_of(path, &key) != NULL;
}

/* ------------------------------------------------------------ gathering */

static void add(detail *d, const char *name, const char *value,
                const char *link) {
  if (d->nf == sizeof d->f / sizeof d->f[0])
    return;
  d->f[d->nf++] = (field){name, value ? strdup(value) : NULL, link};
}

static void add_time(detail *d, web_page *p, const char *name, int64_t ms) {
  char t[48];
  ctl_format_time(ms, p->c->zone, t, sizeof t);
  add(d, name, ms == CHIME_NO_FIRE_MS ? NULL : t, NULL);
}

static section *add_section(detail *d, const char *name, const char *title,
                            section_kind kind) {
  section *s = &d->s[d->ns++];
  *s = (section){.name = name, .title = title, .kind = kind};
  return s;
}

static void detail_free(detail *d) {
  for (size_t i = 0; i < d->nf; i++)
    free(d->f[i].value);
  for (size_t i = 0; i < d->ns; i++)
    ctl_table_free(&d->s[i].t);
  for (size_t i = 0; i < d->nnext; i++)
    free(d->next[i]);
  ctl_retry_links_free(&d->links);
}

int web_runs_links(web_page *p, const ctl_table *t, ctl_retry_links *ret) {
  *ret = (ctl_retry_links){0};
  /* Only a retry's run has an attempt past 1: without one shown, the
   * chains are not read. */
  for (size_t i = 0; i < t->nrows; i++)
    if (strncmp(web_col(t, i, "trigger"), "CHIME_RETRY.", 12) == 0)
      return ctl_retry_links_load(p->c, ret);
  return 0;
}

/* The runs of the history filter set in p->c, newest first. */
static int add_runs(detail *d, web_page *p) {
  p->c->limit = DETAIL_RUNS;
  p->c->offset = 0;
  section *s = add_section(d, "runs", "Runs", S_RUNS);
  int e = ctl_history_table(p->c, &s->t);
  return e ? e : web_runs_links(p, &s->t, &d->links);
}

/* Keeps the rows of t whose column col is value. */
static void keep_rows(ctl_table *t, const char *name, const char *value) {
  int col = web_col_index(t, name);
  size_t kept = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    char **row = t->cells + i * t->ncols;
    if (col >= 0 && row[col] && strcmp(row[col], value) == 0) {
      memmove(t->cells + kept * t->ncols, row, t->ncols * sizeof *row);
      kept++;
    } else {
      for (size_t k = 0; k < t->ncols; k++)
        free(row[k]);
    }
  }
  t->nrows = kept;
}

/* Sets d's error from exit code e (the query's message in
 * ctl_last_error).  Returns e. */
static int failed(detail *d, int e) {
  if (e)
    d->status = web_status_of(e);
  return e;
}

static int gather_trigger(detail *d, web_page *p, const char *key) {
  char group[256], name[256];
  if (failed(d, ctl_split_key(key, group, name, sizeof group)))
    return d->status;
  ctl_trigger t;
  if (failed(d, ctl_trigger_by_key(p->c, group, name, key, &t)))
    return d->status;
  d->found = true;
  snprintf(d->title, sizeof d->title, "Trigger %s", key);
  char state[24], job[400], prio[16], times[1024];
  ctl_lower(t.state, state, sizeof state);
  snprintf(job, sizeof job, "%s.%s", t.job_group, t.job_name);
  snprintf(prio, sizeof prio, "%d", t.priority);
  add(d, "trigger", key, NULL);
  add(d, "state", state, NULL);
  ctl_explanation x;
  if (ctl_explain_key(p->c, key, &x) == 0) {
    x.msg[x.hint_at] = '\0'; /* chimectl's advice: the buttons here */
    add(d, "why", x.msg, NULL);
  }
  add(d, "job", job, "jobs");
  add(d, "kind", ctl_kind_name(t.kind), NULL);
  char *words = ctl_describe_trigger(&t);
  add(d, "schedule", words, NULL);
  free(words);
  add(d, "expression", t.cron_text, NULL);
  const char *own = t.zone_name && *t.zone_name ? t.zone_name : "UTC";
  add(d, "zone", own, NULL);
  add(d, "calendar", t.calendar_name, NULL);
  add(d, "misfire", ctl_misfire_name(t.misfire), NULL);
  add(d, "priority", prio, NULL);
  add(d, "description", t.description, NULL);
  add_time(d, p, "previous", t.prev_fire_ms);
  /* The next fires as the trigger's own zone says, whatever the page's. */
  ctl_next_times(&t, own, NEXT_FIRES, times, sizeof times);
  for (char *q = times; *q && d->nnext < NEXT_FIRES;) {
    char *sep = strstr(q, ", ");
    if (sep)
      *sep = '\0';
    if (strcmp(q, "-") != 0)
      d->next[d->nnext++] = strdup(q);
    if (!sep)
      break;
    q = sep + 2;
  }
  ctl_trigger_clear(&t);
  p->c->trigger = key;
  return failed(d, add_runs(d, p)) ? d->status : 0;
}

static int gather_job(detail *d, web_page *p, const char *key) {
  char group[256], name[256];
  if (failed(d, ctl_split_key(key, group, name, sizeof group)))
    return d->status;
  ctl_table jobs;
  if (failed(d, ctl_jobs_table(p->c, group, &jobs)))
    return d->status;
  size_t row = jobs.nrows;
  for (size_t i = 0; i < jobs.nrows; i++)
    if (strcmp(web_col(&jobs, i, "name"), name) == 0)
      row = i;
  snprintf(d->title, sizeof d->title, "Job %s", key);
  add(d, "job", key, NULL);
  p->c->job = key;
  if (row == jobs.nrows) {
    /* Gone (deleted, or not durable and its last trigger done): its
     * recorded runs are still worth a page. */
    ctl_table_free(&jobs);
    if (failed(d, add_runs(d, p)))
      return d->status;
    if (d->s[0].t.nrows == 0) {
      snprintf(ctl_last_error, sizeof ctl_last_error, "no job %s", key);
      return d->status = 404;
    }
    add(d, "state",
        "no longer stored (deleted, or not durable and its "
        "last trigger done): its recorded runs",
        NULL);
    d->found = d->gone = true;
    return 0;
  }
  d->found = true;
  /* The fields in this order: actions_html finds "paused" at 6. */
  static const char *const fields[] = {"type",     "concurrency", "durable",
                                       "recovery", "persist",     "paused",
                                       "triggers", "description"};
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
    add(d, fields[k], web_col(&jobs, row, fields[k]), NULL);
  ctl_table_free(&jobs);
  section *s = add_section(d, "triggers", "Triggers", S_TRIGGERS);
  if (failed(d, ctl_triggers_table(p->c, group, &s->t)))
    return d->status;
  keep_rows(&s->t, "job", key);
  s = add_section(d, "running", "Running fires", S_RUNNING);
  if (failed(d, ctl_running_table(p->c, &s->t)))
    return d->status;
  keep_rows(&s->t, "job", key);
  return failed(d, add_runs(d, p)) ? d->status : 0;
}

static int gather_fire(detail *d, web_page *p, const char *id) {
  char *end;
  long long fire = strtoll(id, &end, 10);
  if (*end || end == id || fire <= 0) {
    snprintf(ctl_last_error, sizeof ctl_last_error, "'%.40s' is not a fire id",
             id);
    d->status = 400;
    return 400;
  }
  section *run = add_section(d, "runs", "Runs", S_RUNS);
  p->c->fire_id = id;
  p->c->limit = DETAIL_RUNS;
  if (failed(d, ctl_history_table(p->c, &run->t)))
    return d->status;
  section *running = add_section(d, "running", "Running", S_RUNNING);
  if (failed(d, ctl_running_table(p->c, &running->t)))
    return d->status;
  keep_rows(&running->t, "fire_id", id);
  if (run->t.nrows == 0 && running->t.nrows == 0) {
    snprintf(ctl_last_error, sizeof ctl_last_error,
             "no fire %s running or recorded (the history keeps a bounded "
             "number of runs)",
             id);
    d->status = 404;
    return 404;
  }
  d->found = true;
  snprintf(d->title, sizeof d->title, "Fire %s", id);
  if (failed(d, ctl_retry_chain_load(p->c, fire, &d->links)))
    return d->status;
  const ctl_table *t = run->t.nrows ? &run->t : &running->t;
  add(d, "fire", id, NULL);
  add(d, "job", web_col(t, 0, "job"), "jobs");
  add(d, "trigger", web_col(t, 0, "trigger"), "triggers");
  if (run->t.nrows) { /* its newest run's (a lost run's retaker's) */
    static const char *const names[] = {"node",    "outcome",  "scheduled",
                                        "started", "duration", "error"};
    for (size_t k = 0; k < 6; k++)
      add(d, names[k], web_col(t, 0, names[k]), k == 0 ? "nodes" : NULL);
    /* The data it ran with when that was its own (its trigger's), text or
     * hex (ctl_history_table's last columns); none: its job's. */
    static const char *const data[] = {"data", "data_encoding", "data_bytes"};
    for (size_t k = 0; k < 3; k++)
      add(d, data[k], t->cells[web_col_index(t, data[k])], NULL);
  } else {
    add(d, "node", web_col(t, 0, "node"), "nodes");
    add(d, "state", web_col(t, 0, "state"), NULL);
    add(d, "since", web_col(t, 0, "since"), NULL);
  }
  char n[32];
  snprintf(n, sizeof n, "%d", ctl_retry_attempt(&d->links, fire));
  add(d, "attempt", n, NULL);
  /* The whole chain, first attempt first. */
  int64_t first = fire;
  for (int k = 0; k < 1000 && ctl_retry_prev(&d->links, first) > 0; k++)
    first = ctl_retry_prev(&d->links, first);
  char chain[600] = "";
  size_t len = 0;
  for (int64_t f = first; f > 0 && len + 24 < sizeof chain;
       f = ctl_retry_next(&d->links, f))
    len += (size_t)snprintf(chain + len, sizeof chain - len, "%s%" PRId64,
                            len ? " " : "", f);
  add(d, "retry_chain", strchr(chain, ' ') ? chain : NULL, "fires");
  /* The retry chain: the attempts before and after this one. */
  int64_t prev = ctl_retry_prev(&d->links, fire);
  int64_t next = ctl_retry_next(&d->links, fire);
  snprintf(n, sizeof n, "%" PRId64, prev);
  add(d, "retry_of", prev ? n : NULL, "fires");
  snprintf(n, sizeof n, "%" PRId64, next);
  add(d, "retried_by", next ? n : NULL, "fires");
  int64_t pending = CHIME_NO_FIRE_MS;
  if (failed(d, ctl_retry_pending(p->c, fire, &pending)))
    return d->status;
  add_time(d, p, "retry_due", pending);
  int64_t parent;
  int index;
  if (failed(d, ctl_fire_shard(p->c, id, &parent, &index)))
    return d->status;
  if (parent) {
    snprintf(n, sizeof n, "%" PRId64, parent);
    add(d, "shard_of", n, "fires");
    snprintf(n, sizeof n, "%d", index);
    add(d, "shard", n, NULL);
  }
  section *shards = add_section(d, "shards", "Shards", S_SHARDS);
  return failed(d, ctl_shards_table(p->c, id, &shards->t)) ? d->status : 0;
}

static int gather_node(detail *d, web_page *p, const char *id) {
  ctl_table nodes;
  if (failed(d, ctl_nodes_table(p->c, &nodes)))
    return d->status;
  size_t row = nodes.nrows;
  for (size_t i = 0; i < nodes.nrows; i++)
    if (strcmp(web_col(&nodes, i, "id"), id) == 0)
      row = i;
  if (row == nodes.nrows) {
    ctl_table_free(&nodes);
    snprintf(ctl_last_error, sizeof ctl_last_error, "no node %.200s", id);
    d->status = 404;
    return 404;
  }
  d->found = true;
  snprintf(d->title, sizeof d->title, "Node %s", id);
  add(d, "node", id, NULL);
  static const char *const fields[] = {"host",        "pid",   "version",
                                       "checkin_age", "state", "drain"};
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
    add(d, fields[k], web_col(&nodes, row, fields[k]), NULL);
  ctl_table_free(&nodes);
  section *s = add_section(d, "running", "Running fires", S_RUNNING);
  if (failed(d, ctl_running_table(p->c, &s->t)))
    return d->status;
  keep_rows(&s->t, "node", id);
  s = add_section(d, "events", "Events", S_EVENTS);
  if (failed(d, ctl_events_table(p->c, &s->t)))
    return d->status;
  keep_rows(&s->t, "node", id);
  p->c->on_node = id;
  return failed(d, add_runs(d, p)) ? d->status : 0;
}

/* Gathers the detail of path into d.  Returns: 0 or an HTTP status (the
 * message in ctl_last_error). */
static int gather(web_page *p, const char *path, detail *d) {
  const char *key;
  const char *kind = kind_of(path, &key);
  if (!kind || strlen(key) > 2 * CHIME_MAX_NAME_LEN + 1) {
    snprintf(ctl_last_error, sizeof ctl_last_error, "no page %.100s", path);
    return d->status = 404;
  }
  if (strcmp(kind, "triggers") == 0)
    return gather_trigger(d, p, key);
  if (strcmp(kind, "jobs") == 0)
    return gather_job(d, p, key);
  if (strcmp(kind, "fires") == 0)
    return gather_fire(d, p, key);
  return gather_node(d, p, key);
}

/* ------------------------------------------------------------ the page */

/* A cell that may link: a key of kind, or text. */
static void cell(FILE *o, const char *kind, const char *v) {
  fputs("<td>", o);
  if (kind && *v)
    web_link(o, kind, v);
  else
    web_html(o, *v ? v : "-");
  fputs("</td>", o);
}

void web_runs_html(FILE *o, const ctl_table *t, const ctl_retry_links *l) {
  if (t->nrows == 0) {
    fputs("<p class=\"none\" id=\"runs\">(none)</p>", o);
    return;
  }
  fputs("<div class=\"scroll\"><table id=\"runs\"><thead><tr><th>fire</th>"
        "<th>job</th><th>trigger</th><th>attempt</th><th>scheduled</th>"
        "<th>started</th><th>duration</th><th>node</th><th>outcome</th>"
        "<th>error</th><th></th></tr></thead><tbody>",
        o);
  for (size_t i = 0; i < t->nrows; i++) {
    fputs("<tr data-fire=\"", o);
    const char *fire = web_col(t, i, "fire_id");
    const char *outcome = web_col(t, i, "outcome");
    web_html(o, fire);
    fputs("\">", o);
    cell(o, "fires", fire);
    cell(o, "jobs", web_col(t, i, "job"));
    cell(o, "triggers", web_col(t, i, "trigger"));
    fprintf(o, "<td class=\"attempt\">%d</td>",
            ctl_retry_attempt(l, strtoll(fire, NULL, 10)));
    cell(o, NULL, web_col(t, i, "scheduled"));
    cell(o, NULL, web_col(t, i, "started"));
    cell(o, NULL, web_col(t, i, "duration"));
    cell(o, "nodes", web_col(t, i, "node"));
    fputs("<td class=\"outcome ", o);
    web_html(o, outcome);
    fputs("\">", o);
    web_html(o, outcome);
    fputs("</td>", o);
    cell(o, NULL, web_col(t, i, "error"));
    /* A run that did not succeed can be retried with its data (the
     * retry page asks an operator to confirm). */
    fputs("<td>", o);
    if (strcasecmp(outcome, "ok") != 0 &&
        strcasecmp(outcome, "requeued") != 0) {
      fputs("<a class=\"retry\" href=\"/retry?fire=", o);
      web_url(o, fire);
      fputs("\">retry</a>", o);
    }
    fputs("</td></tr>", o);
  }
  fputs("</tbody></table></div>", o);
}

/* A section's table, its keys linked. */
static void section_html(FILE *o, const section *s, const detail *d,
                         const char *zone) {
  fprintf(o, "<h2>%s</h2>", s->title);
  if (s->kind == S_RUNS) {
    web_runs_html(o, &s->t, &d->links);
    return;
  }
  if (s->t.nrows == 0) {
    fprintf(o, "<p class=\"none\" id=\"%s\">(none)</p>", s->name);
    return;
  }
  /* Columns shown, and what each links to; a trigger's key is made of
   * its group and name, an event's time is put in the zone. */
  static const web_column trig_cols[] = {
      {"group", "trigger", "triggers", NULL, NULL, NULL, NULL},
      {"state", "state", NULL, NULL, NULL, NULL, NULL},
      {"schedule", "schedule", NULL, NULL, NULL, NULL, NULL},
      {"zone", "zone", NULL, NULL, NULL, NULL, NULL},
      {"next", "next", NULL, NULL, NULL, NULL, NULL}};
  static const web_column run_cols[] = {
      {"fire_id", "fire_id", "fires", NULL, NULL, NULL, NULL},
      {"job", "job", "jobs", NULL, NULL, NULL, NULL},
      {"trigger", "trigger", "triggers", NULL, NULL, NULL, NULL},
      {"node", "node", "nodes", NULL, NULL, NULL, NULL},
      {"state", "state", NULL, NULL, NULL, NULL, NULL},
      {"since", "since", NULL, NULL, NULL, NULL, NULL}};
  static const web_column shard_cols[] = {
      {"shard", "shard", NULL, NULL, NULL, NULL, NULL},
      {"state", "state", NULL, NULL, NULL, NULL, NULL},
      {"node", "node", "nodes", NULL, NULL, NULL, NULL},
      {"fire_id", "fire_id", "fires", NULL, NULL, NULL, NULL},
      {"progress", "progress", NULL, NULL, NULL, NULL, NULL},
      {"outcome", "outcome", NULL, NULL, NULL, NULL, NULL}};
  static const web_column event_cols[] = {
      {"time_ms", "time_ms", NULL, NULL, NULL, NULL, NULL},
      {"node", "node", NULL, NULL, NULL, NULL, NULL},
      {"event", "event", NULL, NULL, NULL, NULL, NULL},
      {"detail", "detail", NULL, NULL, NULL, NULL, NULL}};
  const web_column *cols = s->kind == S_TRIGGERS  ? trig_cols
                           : s->kind == S_RUNNING ? run_cols
                           : s->kind == S_SHARDS  ? shard_cols
                                                  : event_cols;
  size_t ncols = s->kind == S_TRIGGERS ? 5 : s->kind == S_EVENTS ? 4 : 6;
  fprintf(o, "<div class=\"scroll\"><table id=\"%s\"><thead><tr>", s->name);
  for (size_t k = 0; k < ncols; k++) {
    fputs("<th>", o);
    web_html(o, cols[k].head);
    fputs("</th>", o);
  }
  fputs("</tr></thead><tbody>", o);
  for (size_t i = 0; i < s->t.nrows; i++) {
    fputs("<tr>", o);
    for (size_t k = 0; k < ncols; k++) {
      const char *v = web_col(&s->t, i, cols[k].col);
      char key[520], when[48];
      if (s->kind == S_TRIGGERS && k == 0) {
        snprintf(key, sizeof key, "%s.%s", v, web_col(&s->t, i, "name"));
        v = key;
      } else if (s->kind == S_EVENTS && k == 0) {
        ctl_format_time(strtoll(v, NULL, 10), zone, when, sizeof when);
        v = when;
      }
      cell(o, cols[k].link, v);
    }
    fputs("</tr>", o);
  }
  fputs("</tbody></table></div>", o);
}

/* The forms acting on what the page shows (an operator's only). */
static void actions_html(web_page *p, FILE *o, const char *kind,
                         const char *key, const detail *d) {
  if (!p->may_act || d->gone)
    return;
  fputs("<p class=\"acts\" id=\"actions\">", o);
  if (strcmp(kind, "triggers") == 0 || strcmp(kind, "jobs") == 0) {
    bool job = kind[0] == 'j';
    const char *state = d->nf > 1 ? d->f[job ? 6 : 1].value : NULL;
    bool paused = state && (strncmp(state, "paused", 6) == 0 ||
                            strcmp(state, "true") == 0);
    const char *f[] = {"what", job ? "job" : "trigger", "target", key, NULL};
    if (job) {
      const char *ff[] = {"job", key, NULL};
      web_form(p, o, "fire", ff, "fire now", NULL);
    }
    web_form(p, o, paused ? "resume" : "pause", f, paused ? "resume" : "pause",
             NULL);
  } else if (strcmp(kind, "fires") == 0 && d->s[1].t.nrows &&
             strcmp(web_col(&d->s[1].t, 0, "state"), "executing") == 0) {
    const char *f[] = {"fire", key, NULL};
    web_form(p, o, "cancel", f, "cancel", "Cancel this fire?");
  }
  fputs("</p>", o);
}

int web_page_detail(web_page *p, web_reply *r) {
  detail d = {0};
  const char *key;
  const char *kind = kind_of(p->path, &key);
  int st = gather(p, p->path, &d);
  if (st) {
    web_reply_error(r, false, st, "%s", ctl_last_error);
    detail_free(&d);
    return st;
  }
  if (web_reply_open(r, 200, "text/html; charset=utf-8")) {
    detail_free(&d);
    return 500;
  }
  FILE *o = r->out;
  web_page_begin(p, r, d.title);
  actions_html(p, o, kind, key, &d);
  fputs("<dl class=\"detail\" id=\"fields\">", o);
  for (size_t i = 0; i < d.nf; i++) {
    fprintf(o, "<dt>%s</dt><dd id=\"f-%s\">", d.f[i].name, d.f[i].name);
    if (d.f[i].value && d.f[i].link && strchr(d.f[i].value, ' ')) {
      /* A list of keys (the retry chain): each its own link. */
      char *list = strdup(d.f[i].value), *save = NULL;
      for (char *k = list ? strtok_r(list, " ", &save) : NULL; k;
           k = strtok_r(NULL, " ", &save)) {
        web_link(o, d.f[i].link, k);
        fputs(" ", o);
      }
      free(list);
    } else if (d.f[i].value && d.f[i].link)
      web_link(o, d.f[i].link, d.f[i].value);
    else
      web_html(o, d.f[i].value && *d.f[i].value ? d.f[i].value : "-");
    fputs("</dd>", o);
    if (strcmp(d.f[i].name, "previous") == 0) {
      fputs("<dt>next fires</dt><dd id=\"f-next\">", o);
      for (size_t k = 0; k < d.nnext; k++) {
        fputs(k ? "<br>" : "", o);
        web_html(o, d.next[k]);
      }
      if (d.nnext == 0)
        fputs("-", o);
      fputs("</dd>", o);
    }
  }
  fputs("</dl>", o);
  for (size_t i = 0; i < d.ns; i++)
    if ((d.s[i].kind != S_RUNNING && d.s[i].kind != S_SHARDS) ||
        d.s[i].t.nrows || kind[0] != 'f')
      section_html(o, &d.s[i], &d, p->c->zone);
  /* All of them, searchable, on the history page. */
  static const char *const filter[][2] = {
      {"jobs", "job"}, {"triggers", "trigger"}, {"nodes", "node"}};
  for (size_t i = 0; i < 3; i++)
    if (strcmp(kind, filter[i][0]) == 0) {
      fprintf(o, "<p><a id=\"all-runs\" href=\"/history?%s=", filter[i][1]);
      web_url(o, key);
      fputs("\">every recorded run</a></p>", o);
    }
  web_page_end(p, r);
  detail_free(&d);
  return 200;
}

int web_api_detail(web_page *p, const char *name, web_reply *r) {
  char path[300];
  snprintf(path, sizeof path, "/%s", name);
  detail d = {0};
  int st = gather(p, path, &d);
  if (st) {
    web_reply_error(r, true, st, "%s", ctl_last_error);
    detail_free(&d);
    return st;
  }
  if (web_reply_open(r, 200, "application/json")) {
    detail_free(&d);
    return 500;
  }
  FILE *o = r->out;
  fputc('{', o);
  for (size_t i = 0; i < d.nf; i++) {
    ctl_json_string_to(o, d.f[i].name);
    fputs(": ", o);
    if (d.f[i].value)
      ctl_json_string_to(o, d.f[i].value);
    else
      fputs("null", o);
    fputs(", ", o);
  }
  if (d.nnext || strncmp(name, "triggers/", 9) == 0) {
    fputs("\"next_fires\": [", o);
    for (size_t k = 0; k < d.nnext; k++) {
      fputs(k ? ", " : "", o);
      ctl_json_string_to(o, d.next[k]);
    }
    fputs("], ", o);
  }
  for (size_t i = 0; i < d.ns; i++) {
    ctl_json_string_to(o, d.s[i].name);
    fputs(": ", o);
    ctl_table_print_json(&d.s[i].t, o);
    fputs(", ", o);
  }
  /* Each run's attempt, in the runs' order. */
  fputs("\"attempts\": [", o);
  for (size_t i = 0; i < d.ns; i++)
    for (size_t k = 0; d.s[i].kind == S_RUNS && k < d.s[i].t.nrows; k++)
      fprintf(
          o, "%s%d", k ? ", " : "",
          ctl_retry_attempt(
              &d.links, strtoll(web_col(&d.s[i].t, k, "fire_id"), NULL, 10)));
  fputs("]}\n", o);
  detail_free(&d);
  return 200;
}

/* ------------------------------------------------------------ nodes */

int web_page_nodes(web_page *p, web_reply *r) {
  ctl_table t;
  int e = ctl_nodes_table(p->c, &t);
  if (web_reply_open(r, 200, "text/html; charset=utf-8")) {
    if (!e)
      ctl_table_free(&t);
    return 500;
  }
  FILE *o = r->out;
  web_page_begin(p, r, "Nodes");
  if (e) {
    fputs("<p class=\"error\">nodes: ", o);
    web_html(o, ctl_last_error);
    fputs("</p>", o);
  } else {
    web_nodes_html(p, o, &t);
  }
  if (!e)
    ctl_table_free(&t);
  web_page_end(p, r);
  return 200;
}
