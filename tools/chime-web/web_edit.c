/*
 * web_edit.c: chime-web's edit pages: a trigger's (every kind, with a live
 * preview of its next fires in its own zone), a job's (data and policies,
 * fire now with data) and a recorded run's retry, and the links to them
 * from the other pages.  The forms post to the actions of web_edit_api.c;
 * their fields are chimectl's settings (chimectl_edit.h), so the console
 * and chimectl say and check the same.  The preview is the library's own:
 * /api/preview builds the trigger as a save would, without the store, and
 * steps it (chime_trigger_get_fire_time_after); edit.js asks it as the
 * operator types and shows its times, or the parser's message.
 */
#include "chimectl_edit.h"
#include "web.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ------------------------------------------------------------ values */

void web_vals_put(web_vals *v, const char *key, const char *fmt, ...) {
  char *text = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&text, fmt, ap);
  va_end(ap);
  if (n < 0 || v->s.n == CTL_MAX_SETTINGS) {
    free(n < 0 ? NULL : text);
    return;
  }
  v->owned[v->s.n] = text;
  ctl_setting_add(&v->s, key, text);
}

void web_vals_from_params(web_vals *v, const web_params *q,
                          const char *const *skip) {
  for (size_t i = 0; i < q->n && v->s.n < CTL_MAX_SETTINGS; i++) {
    bool skipped = false;
    for (const char *const *k = skip; *k; k++)
      skipped |= strcmp(*k, q->key[i]) == 0;
    if (!skipped)
      ctl_setting_add(&v->s, q->key[i], q->value[i]);
  }
}

void web_vals_free(web_vals *v) {
  for (size_t i = 0; i < v->s.n; i++)
    free(v->owned[i]);
  v->s.n = 0;
}

/* A value to show ("" when absent). */
static const char *val(const web_vals *v, const char *key) {
  const char *s = ctl_setting(&v->s, key);
  return s ? s : "";
}

/* ms as the largest whole unit chimectl's durations take ("" for 0). */
static void duration_text(int64_t ms, char *buf, size_t len) {
  static const struct {
    int64_t ms;
    const char *unit;
  } units[] = {{604800000, "w"}, {86400000, "d"}, {3600000, "h"},
               {60000, "m"},     {1000, "s"},     {1, "ms"}};
  buf[0] = '\0';
  for (size_t i = 0; ms > 0 && i < sizeof units / sizeof units[0]; i++)
    if (ms % units[i].ms == 0) {
      snprintf(buf, len, "%" PRId64 "%s", ms / units[i].ms, units[i].unit);
      return;
    }
}

static void put_duration(web_vals *v, const char *key, int64_t ms) {
  char d[32];
  duration_text(ms, d, sizeof d);
  web_vals_put(v, key, "%s", d);
}

/* ------------------------------------------------------------ fields */

/* One field of a form: its setting, label, input kind ("text", "area",
 * or a select's options "|a|b|c"), hint, and the schedule kinds it
 * belongs to (NULL: every kind). */
typedef struct field {
  const char *name, *label, *input, *hint, *kinds;
} field;

static const field trigger_fields[] = {
    {"job", "job", "text", "GROUP.NAME of the job it fires", NULL},
    {"kind", "kind", "|cron|unix-cron|rrule|simple|calendar-interval|daily",
     NULL, NULL},
    {"schedule", "schedule", "text", NULL, NULL},
    {"zone", "zone", "text", "IANA zone, e.g. Europe/Berlin (default UTC)",
     "cron unix-cron calendar-interval daily"},
    {"repeat", "repeat", "text", "repeats after the first (empty: forever)",
     "simple daily"},
    {"between", "between", "text", "daily window, e.g. 09:00-17:30", "daily"},
    {"days", "days", "text", "e.g. mon-fri or sat,sun (empty: every day)",
     "daily"},
    {"preserve-hour", "keep hour of day", "||true|false",
     "across daylight-saving changes", "calendar-interval"},
    {"start", "start", "text", "2026-03-08 01:30:00Z, epoch ms (empty: now)",
     NULL},
    {"end", "end", "text", "empty: never", NULL},
    {"priority", "priority", "text", "higher first among fires due together",
     NULL},
    {"misfire", "misfire",
     "|smart|ignore|fire-now|do-nothing|reschedule-now-existing-count|"
     "reschedule-now-remaining-count|reschedule-next-remaining-count|"
     "reschedule-next-existing-count",
     NULL, NULL},
    {"calendar", "calendar", "text", "a calendar's name (empty: none)", NULL},
    {"description", "description", "text", NULL, NULL},
    {"data", "data", "area", "JSON its runs see instead of the job's", NULL},
    {"jitter", "jitter", "text", "spread fires over e.g. 5m", NULL},
    {"timeout", "timeout", "text", "e.g. 10m (empty: the job's)", NULL},
    {"deadline", "starting deadline", "text",
     "a fire not started this late is MISSED (empty: the job's)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static const field job_fields[] = {
    {"type", "type", "text", "the job type its nodes registered", NULL},
    {"description", "description", "text", NULL, NULL},
    {"data", "data", "area", "JSON every run sees", NULL},
    {"durable", "durable", "|true|false", "stays without triggers", NULL},
    {"recovery", "recovery", "|false|true",
     "a dead node's run is run again elsewhere", NULL},
    {"persist-data", "persist data", "|false|true", "data a run sets is saved",
     NULL},
    {"concurrency", "concurrency", "|allow|forbid|forbid-skip|replace", NULL,
     NULL},
    {"queue-cap", "queue cap", "text", "forbid: fires kept waiting (0: all)",
     NULL},
    {"retry", "retry attempts", "text", "runs in all, the first included",
     NULL},
    {"retry-delay", "retry delay", "text", "e.g. 30s", NULL},
    {"retry-multiplier", "retry multiplier", "text", "e.g. 2", NULL},
    {"retry-max-delay", "retry max delay", "text", "e.g. 10m", NULL},
    {"retry-jitter", "retry jitter", "text", "e.g. 5s", NULL},
    {"retry-timed-out", "retry timed out", "|true|false", NULL, NULL},
    {"timeout", "timeout", "text", "e.g. 10m (empty: none)", NULL},
    {"deadline", "starting deadline", "text", "e.g. 5m (empty: none)", NULL},
    {"shards", "shards", "text", "a count or broadcast (empty: none)", NULL},
    {"shard-params", "shard params", "text", "0=Beijing,1=Shanghai", NULL},
    {"history", "history", "|all|failures|none", "which runs are recorded",
     NULL},
    {"tags", "required tags", "text", "e.g. gpu,ssd", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* What a schedule looks like, per kind (edit.js shows the kind's). */
static void schedule_hints(FILE *o) {
  static const char *const hints[][2] = {
      {"cron", "Quartz cron: sec min hour day-of-month month day-of-week "
               "[year], e.g. 0 0 2 * * ?"},
      {"unix-cron", "crontab: min hour day-of-month month day-of-week, "
                    "e.g. 30 2 * * 1-5 (CRON_TZ=Zone prefix allowed)"},
      {"rrule", "RFC 5545: DTSTART;TZID=Europe/Paris:20260105T090000 "
                "RRULE:FREQ=MONTHLY;BYDAY=-1FR"},
      {"simple", "an interval (30s, 5m, 2h, 1d) or once"},
      {"calendar-interval", "N units of the calendar, e.g. 2 months"},
      {"daily", "an interval inside the daily window, e.g. 15 minutes"}};
  for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
    fprintf(o, "<small data-kinds=\"%s\">", hints[i][0]);
    web_html(o, hints[i][1]);
    fputs("</small>", o);
  }
}

/* A form's rows: each field with its value from v. */
static void form_rows(FILE *o, const field *fields, const web_vals *v) {
  for (const field *f = fields; f->name; f++) {
    const char *value = val(v, f->name);
    fputs("<tr", o);
    if (f->kinds)
      fprintf(o, " data-kinds=\"%s\"", f->kinds);
    fprintf(o, "><th><label for=\"f-%s\">%s</label></th><td>", f->name,
            f->label);
    if (f->input[0] == '|') {
      fprintf(o, "<select name=\"%s\" id=\"f-%s\">", f->name, f->name);
      for (const char *opt = f->input + 1; *opt;) {
        size_t n = strcspn(opt, "|");
        bool sel = strlen(value) == n && strncmp(value, opt, n) == 0;
        fprintf(o, "<option value=\"%.*s\"%s>%.*s</option>", (int)n, opt,
                sel ? " selected" : "", (int)n, n ? opt : "(default)");
        opt += n + (opt[n] == '|');
      }
      fputs("</select>", o);
    } else if (strcmp(f->input, "area") == 0) {
      fprintf(o, "<textarea name=\"%s\" id=\"f-%s\" rows=\"3\">", f->name,
              f->name);
      web_html(o, value);
      fputs("</textarea>", o);
    } else {
      fprintf(o, "<input name=\"%s\" id=\"f-%s\" value=\"", f->name, f->name);
      web_html(o, value);
      fputs("\">", o);
    }
    if (f->hint) {
      fputs(" <small>", o);
      web_html(o, f->hint);
      fputs("</small>", o);
    }
    if (strcmp(f->name, "schedule") == 0)
      schedule_hints(o);
    fputs("</td></tr>", o);
  }
}

/* A form's start: POST to /api/ACTION, with the session's token, where to
 * go back to, the mode and, when editing, the key. */
static void form_open(web_page *p, FILE *o, const char *id, const char *action,
                      const char *back, bool add, const char *key) {
  fprintf(o,
          "<form method=\"post\" action=\"/api/%s\" id=\"%s\" class=\"edit\">",
          action, id);
  if (p->ses)
    fprintf(o, "<input type=\"hidden\" name=\"csrf\" value=\"%s\">",
            p->ses->csrf);
  fputs("<input type=\"hidden\" name=\"back\" value=\"", o);
  web_html(o, back);
  fprintf(o, "\"><input type=\"hidden\" name=\"mode\" value=\"%s\">",
          add ? "add" : "edit");
  if (!add) {
    fputs("<input type=\"hidden\" name=\"key\" value=\"", o);
    web_html(o, key);
    fputs("\">", o);
  }
  fputs("<table class=\"form\"><tbody>", o);
  if (add) {
    fputs("<tr><th><label for=\"f-key\">key</label></th><td><input "
          "name=\"key\" id=\"f-key\" placeholder=\"GROUP.NAME\" value=\"",
          o);
    web_html(o, key ? key : "");
    fputs("\"></td></tr>", o);
  }
}

/* The form's end: its save button (signed in) or why there is none. */
static void form_close(web_page *p, FILE *o, const char *label) {
  fputs("</tbody></table>", o);
  if (p->ses)
    fprintf(o, "<button id=\"save\" data-action=\"save\">%s</button>", label);
  else
    fputs("<p class=\"none\">read-only: sign in to save</p>", o);
  fputs("</form>", o);
}

/* A stored job's or trigger's pause, resume and delete (signed in). */
static void key_acts(web_page *p, FILE *o, const char *what, const char *key) {
  if (!p->ses)
    return;
  const char *f[] = {"what", what, "target", key, NULL};
  char q[600];
  snprintf(q, sizeof q, "Delete %s %s%s?", what, key,
           strcmp(what, "job") == 0 ? " and its triggers" : "");
  fprintf(o, "<div class=\"acts\" id=\"%s-acts\">", what);
  web_form(p, o, "pause", f, "pause", NULL);
  web_form(p, o, "resume", f, "resume", NULL);
  web_form(p, o, "delete", f, "delete", q);
  fputs("</div>", o);
}

static FILE *page_start(web_page *p, web_reply *r, int status,
                        const char *title) {
  if (web_reply_open(r, status, "text/html; charset=utf-8"))
    return NULL;
  web_page_begin(p, r, title);
  fputs("<link rel=\"stylesheet\" href=\"/static/edit.css\"><script "
        "src=\"/static/edit.js\" defer></script>",
        r->out);
  return r->out;
}

/* ------------------------------------------------------------ triggers */

/* The schedule of trigger row i of t (chime-admin.h's CHIME_ADMIN_TRIGGERS
 * columns) as form values; *ret_unix_cron whether it is a Unix
 * expression naming its own zone. */
static void schedule_vals(const chime_admin_table *t, size_t i, web_vals *v,
                          bool *ret_unix_cron) {
#define INT(col) chime_admin_table_get_int64(t, i, col)
  const char *kind = chime_admin_table_get_text(t, i, "kind");
  const char *cron = chime_admin_table_get_text(t, i, "cron");
  const char *unit = chime_admin_table_get_text(t, i, "unit");
  char d[64];
  bool is_cron = strcmp(kind, "cron") == 0;
  *ret_unix_cron = is_cron && cron && strncmp(cron, "CRON_TZ=", 8) == 0;
  if (is_cron || strcmp(kind, "recurrence") == 0) {
    web_vals_put(v, "kind", "%s",
                 !is_cron         ? "rrule"
                 : *ret_unix_cron ? "unix-cron"
                                  : "cron");
    web_vals_put(v, "schedule", "%s", cron ? cron : "");
  } else if (strcmp(kind, "simple") == 0) {
    web_vals_put(v, "kind", "simple");
    duration_text(INT("interval_ms"), d, sizeof d);
    web_vals_put(v, "schedule", "%s", INT("repeat_count") == 0 ? "once" : d);
    if (INT("repeat_count") > 0)
      web_vals_put(v, "repeat", "%" PRId64, INT("repeat_count"));
  } else {
    bool daily = strcmp(kind, "daily-time-interval") == 0;
    web_vals_put(v, "kind", "%s", daily ? "daily" : "calendar-interval");
    web_vals_put(v, "schedule", "%" PRId64 " %s%s", INT("interval"),
                 unit ? unit : "day", INT("interval") == 1 ? "" : "s");
    if (!daily && INT("preserve_hour"))
      web_vals_put(v, "preserve-hour", "true");
    if (!daily)
      return;
    int64_t from = INT("day_start_s"), to = INT("day_end_s");
    web_vals_put(v, "between", "%02d:%02d:%02d-%02d:%02d:%02d",
                 (int)(from / 3600), (int)(from / 60 % 60), (int)(from % 60),
                 (int)(to / 3600), (int)(to / 60 % 60), (int)(to % 60));
    static const char *const days[] = {"sun", "mon", "tue", "wed",
                                       "thu", "fri", "sat"};
    int64_t dow = INT("days_of_week");
    size_t k = 0;
    d[0] = '\0';
    for (int j = 0; j < 7 && dow != 0x7f; j++)
      if (dow & (INT64_C(1) << j))
        k += (size_t)snprintf(d + k, sizeof d - k, "%s%s", k ? "," : "",
                              days[j]);
    web_vals_put(v, "days", "%s", d);
    if (INT("repeat_count") >= 0)
      web_vals_put(v, "repeat", "%" PRId64, INT("repeat_count"));
  }
#undef INT
}

/* The stored trigger key as form values.  Returns: 0 or an exit code. */
static int trigger_vals(web_page *p, const char *key, web_vals *v) {
  char g[256], n[256];
  chime_admin_table *t = NULL;
  size_t i = 0;
  int r = ctl_split_key(key, g, n, sizeof g);
  if (r || (r = ctl_key_row(p->c, false, g, n, key, &t, &i)))
    return r;
#define TEXT(col) chime_admin_table_get_text(t, i, col)
  web_vals_put(v, "job", "%s.%s", TEXT("job_group"), TEXT("job_name"));
  bool unix_cron = false;
  schedule_vals(t, i, v, &unix_cron);
  if (TEXT("zone") && !unix_cron)
    web_vals_put(v, "zone", "%s", TEXT("zone"));
  char when[48];
  if (!chime_admin_table_is_null(t, i, "end_ms")) {
    ctl_format_time(chime_admin_table_get_int64(t, i, "end_ms"), NULL, when,
                    sizeof when);
    web_vals_put(v, "end", "%s", when);
  }
  web_vals_put(v, "priority", "%" PRId64,
               chime_admin_table_get_int64(t, i, "priority"));
  web_vals_put(v, "misfire", "%s", TEXT("misfire"));
  web_vals_put(v, "calendar", "%s", TEXT("calendar") ? TEXT("calendar") : "");
  web_vals_put(v, "description", "%s",
               TEXT("description") ? TEXT("description") : "");
#undef TEXT
  size_t len = 0;
  const char *data = chime_admin_table_get_bytes(t, i, "data", &len);
  web_vals_put(v, "data", "%.*s", (int)len, data ? data : "");
  put_duration(v, "jitter", chime_admin_table_get_int64(t, i, "jitter_ms"));
  put_duration(v, "timeout", chime_admin_table_get_int64(t, i, "timeout_ms"));
  put_duration(v, "deadline", chime_admin_table_get_int64(t, i, "deadline_ms"));
  chime_admin_table_free(t);
  return 0;
}

/* The schedule's settings of v (what /api/preview takes). */
static const char *const preview_names[] = {"kind",   "schedule", "zone",
                                            "repeat", "between",  "days",
                                            "start",  "end",      NULL};

static void preview_settings(const ctl_settings *all, ctl_settings *ret) {
  ret->n = 0;
  for (const char *const *n = preview_names; *n; n++) {
    const char *v = ctl_setting(all, *n);
    if (v && *v)
      ctl_setting_add(ret, *n, v);
  }
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The preview box, filled on the server (edit.js refreshes it). */
static void preview_box(FILE *o, const web_vals *v) {
  ctl_settings s = {0};
  preview_settings(&v->s, &s);
  fputs("<div id=\"preview\" class=\"preview\">", o);
  if (!ctl_setting(&s, "schedule")) {
    fputs("<p class=\"none\">The next fires show here.</p></div>", o);
    return;
  }
  int64_t times[WEB_PREVIEW_FIRES];
  int n = 0;
  char zone[128];
  bool quiet = ctl_quiet;
  ctl_quiet = true;
  int r = ctl_schedule_preview(&s, wall_ms(), WEB_PREVIEW_FIRES, times, &n,
                               zone, sizeof zone);
  ctl_quiet = quiet;
  if (r) {
    fputs("<p class=\"error\" id=\"preview-error\">", o);
    web_html(o, ctl_last_error);
    fputs("</p></div>", o);
    return;
  }
  char words[512];
  ctl_schedule_words(&s, words, sizeof words);
  fputs("<p id=\"preview-words\">", o);
  web_html(o, words);
  fputs("</p><p>Next fires in ", o);
  web_html(o, zone);
  fputs(":</p><ol id=\"preview-times\">", o);
  for (int i = 0; i < n; i++) {
    char t[48];
    ctl_format_time(times[i], zone, t, sizeof t);
    fputs("<li>", o);
    web_html(o, t);
    fputs("</li>", o);
  }
  fputs(n ? "</ol>" : "</ol><p class=\"none\">(never fires)</p>", o);
  fputs("</div>", o);
}

int web_edit_trigger_form(web_page *p, web_reply *r, int status, bool add,
                          const char *key, const web_vals *v) {
  FILE *o = page_start(p, r, status, add ? "New trigger" : "Edit trigger");
  if (!o)
    return 500;
  if (!add) {
    fputs("<p>Trigger <b id=\"key\">", o);
    web_html(o, key);
    fputs("</b> · <a href=\"/api/explain?trigger=", o);
    web_url(o, key);
    fputs("\">explain</a></p>", o);
  }
  fputs("<div class=\"editor\">", o);
  form_open(p, o, "trigger-form", "trigger-save", "/triggers", add, key);
  form_rows(o, trigger_fields, v);
  form_close(p, o, add ? "add trigger" : "save trigger");
  preview_box(o, v);
  fputs("</div>", o);
  if (!add)
    key_acts(p, o, "trigger", key);
  web_page_end(p, r);
  return status;
}

int web_edit_trigger_page(web_page *p, web_reply *r) {
  const char *key = web_param(p->q, "key"), *job = web_param(p->q, "job");
  bool add = !key || !*key;
  web_vals v = {0};
  int e = 0;
  if (add) {
    web_vals_put(&v, "kind", "cron");
    web_vals_put(&v, "job", "%s", job ? job : "");
    web_vals_put(&v, "priority", "5");
  } else if ((e = trigger_vals(p, key, &v))) {
    web_vals_free(&v);
    web_reply_error(r, false, web_status_of(e), "%s", ctl_last_error);
    return web_status_of(e);
  }
  int st = web_edit_trigger_form(p, r, 200, add, key, &v);
  web_vals_free(&v);
  return st;
}

/* ------------------------------------------------------------ jobs */

/* The stored job key as form values.  Returns: 0 or an exit code. */
static int job_vals(web_page *p, const char *key, web_vals *v) {
  chime_job *j = NULL;
  int r = ctl_job_get(p->c, key, &j);
  if (r)
    return r;
  static const char *const conc[] = {"allow", "forbid", "forbid-skip",
                                     "replace"};
  static const char *const hist[] = {"all", "failures", "none"};
  size_t len = 0;
  const char *data = chime_job_get_data(j, &len);
  const char *desc = chime_job_get_description(j);
  const char *sp = chime_job_get_shard_params(j);
  const char *tags = chime_job_get_required_tags(j);
  int shards = chime_job_get_shard_count(j);
  web_vals_put(v, "type", "%s", chime_job_get_type(j));
  web_vals_put(v, "description", "%s", desc ? desc : "");
  web_vals_put(v, "data", "%.*s", (int)len, data ? data : "");
  web_vals_put(v, "durable", chime_job_get_durable(j) ? "true" : "false");
  web_vals_put(v, "recovery",
               chime_job_get_requests_recovery(j) ? "true" : "false");
  web_vals_put(v, "persist-data",
               chime_job_get_persist_data(j) ? "true" : "false");
  web_vals_put(v, "concurrency", "%s",
               conc[(unsigned)chime_job_get_concurrency(j) % 4]);
  web_vals_put(v, "queue-cap", "%" PRId64, chime_job_get_queue_cap(j));
  const chime_retry *rp = chime_job_get_retry(j);
  web_vals_put(v, "retry", "%d", chime_retry_get_max_attempts(rp));
  put_duration(v, "retry-delay", chime_retry_get_initial_delay_ms(rp));
  web_vals_put(v, "retry-multiplier", "%g", chime_retry_get_multiplier(rp));
  put_duration(v, "retry-max-delay", chime_retry_get_max_delay_ms(rp));
  put_duration(v, "retry-jitter", chime_retry_get_jitter_ms(rp));
  web_vals_put(v, "retry-timed-out",
               chime_retry_get_timed_out(rp) ? "true" : "false");
  put_duration(v, "timeout", chime_job_get_timeout_ms(j));
  put_duration(v, "deadline", chime_job_get_starting_deadline_ms(j));
  if (shards == CHIME_SHARDS_BROADCAST)
    web_vals_put(v, "shards", "broadcast");
  else if (shards)
    web_vals_put(v, "shards", "%d", shards);
  web_vals_put(v, "shard-params", "%s", sp ? sp : "");
  web_vals_put(v, "history", "%s",
               hist[(unsigned)chime_job_get_history_level(j) % 3]);
  web_vals_put(v, "tags", "%s", tags ? tags : "");
  chime_job_free(j);
  return 0;
}

/* The job's "fire now with data" form. */
static void fire_form(web_page *p, FILE *o, const char *key, const char *data) {
  if (!p->ses)
    return;
  fprintf(o,
          "<h2>Fire now</h2><form method=\"post\" action=\"/api/fire\" "
          "id=\"fire-form\" class=\"edit\"><input type=\"hidden\" "
          "name=\"csrf\" value=\"%s\"><input type=\"hidden\" name=\"back\" "
          "value=\"/jobs\"><input type=\"hidden\" name=\"job\" value=\"",
          p->ses->csrf);
  web_html(o, key);
  fputs("\"><label for=\"f-fire-data\">data</label> <textarea name=\"data\" "
        "id=\"f-fire-data\" rows=\"2\">",
        o);
  web_html(o, data);
  fputs("</textarea> <button data-action=\"fire\">fire now</button> "
        "<small>empty: the job's data</small></form>",
        o);
}

int web_edit_job_form(web_page *p, web_reply *r, int status, bool add,
                      const char *key, const web_vals *v) {
  FILE *o = page_start(p, r, status, add ? "New job" : "Edit job");
  if (!o)
    return 500;
  if (!add) {
    fputs("<p>Job <b id=\"key\">", o);
    web_html(o, key);
    fputs("</b> · <a href=\"/edit/trigger?job=", o);
    web_url(o, key);
    fputs("\" id=\"add-trigger\">add a trigger</a> · <a href=\"/history?job=",
          o);
    web_url(o, key);
    fputs("\">its runs</a></p>", o);
  }
  form_open(p, o, "job-form", "job-save", "/jobs", add, key);
  form_rows(o, job_fields, v);
  form_close(p, o, add ? "add job" : "save job");
  if (!add)
    key_acts(p, o, "job", key);
  if (!add)
    fire_form(p, o, key, "");
  web_page_end(p, r);
  return status;
}

int web_edit_job_page(web_page *p, web_reply *r) {
  const char *key = web_param(p->q, "key");
  bool add = !key || !*key;
  web_vals v = {0};
  int e = add ? 0 : job_vals(p, key, &v);
  if (add) {
    web_vals_put(&v, "durable", "true");
    web_vals_put(&v, "concurrency", "allow");
  }
  if (e) {
    web_vals_free(&v);
    web_reply_error(r, false, web_status_of(e), "%s", ctl_last_error);
    return web_status_of(e);
  }
  int st = web_edit_job_form(p, r, 200, add, key, &v);
  web_vals_free(&v);
  return st;
}

/* ------------------------------------------------------------ retry */

/* The run's own data on its retry page: its text, or its bytes in hex,
 * with their count; "none" when the run read its job's data. */
static void run_data_html(FILE *o, const void *data, size_t len) {
  char *shown = NULL;
  const char *encoding = NULL;
  if (ctl_data_show(data, len, &shown, &encoding) || !shown) {
    fputs("<p id=\"run-data\" class=\"none\">none of its own: the run read "
          "its job's data, and so does its retry</p>",
          o);
    free(shown);
    return;
  }
  fprintf(o, "<p>its own data (%zu bytes%s):</p><pre id=\"run-data\">", len,
          strcmp(encoding, "hex") == 0 ? ", not text: shown in hex" : "");
  web_html(o, shown);
  fputs("</pre>", o);
  free(shown);
}

int web_retry_page(web_page *p, web_reply *r) {
  const char *fire = web_param(p->q, "fire");
  if (!fire || !*fire) {
    web_reply_error(r, false, 400, "retry wants fire=ID (a run of history)");
    return 400;
  }
  void *data = NULL;
  size_t len = 0;
  ctl_retried x;
  int e = ctl_run_data(p->c, fire, &data, &len, &x);
  if (e) {
    web_reply_error(r, false, web_status_of(e), "%s", ctl_last_error);
    return web_status_of(e);
  }
  FILE *o = page_start(p, r, 200, "Retry a run");
  if (!o) {
    free(data);
    return 500;
  }
  fputs("<p>Run <b id=\"run\">", o);
  web_html(o, fire);
  fputs("</b> of job <b>", o);
  web_html(o, x.job);
  fputs("</b> ended <span class=\"state\">", o);
  web_html(o, x.outcome);
  fputs("</span>.  A retry runs the job now, on whichever node claims it, "
        "with the run's own data, as its history recorded it, or with data "
        "given below (JSON).</p>",
        o);
  run_data_html(o, data, len);
  if (p->ses) {
    fprintf(o,
            "<form method=\"post\" action=\"/api/retry\" id=\"retry-form\" "
            "class=\"edit\"><input type=\"hidden\" name=\"csrf\" "
            "value=\"%s\"><input type=\"hidden\" name=\"back\" "
            "value=\"/history\"><input type=\"hidden\" name=\"fire\" "
            "value=\"",
            p->ses->csrf);
    web_html(o, fire);
    fputs("\"><label for=\"f-data\">other data</label> <textarea "
          "name=\"data\" id=\"f-data\" rows=\"3\" placeholder=\"empty: the "
          "run's own data, as above\"></textarea> <button "
          "data-action=\"retry\">retry</button></form>",
          o);
  } else {
    fputs("<p class=\"none\">read-only: sign in to retry</p>", o);
  }
  free(data);
  web_page_end(p, r);
  return 200;
}

/* ------------------------------------------------------------ preview */

const char *const web_edit_preview_params[] = {
    "kind", "schedule", "zone", "repeat", "between",
    "days", "start",    "end",  "count",  NULL};

int web_edit_preview(web_page *p, web_reply *r) {
  ctl_settings s = {0};
  for (const char *const *n = preview_names; *n; n++) {
    const char *v = web_param(p->q, *n);
    if (v && *v)
      ctl_setting_add(&s, *n, v);
  }
  const char *cnt = web_param(p->q, "count");
  long count = cnt ? strtol(cnt, NULL, 10) : WEB_PREVIEW_FIRES;
  if (count < 1 || count > 50)
    count = WEB_PREVIEW_FIRES;
  int64_t times[50];
  int n = 0;
  char zone[128];
  bool quiet = ctl_quiet;
  ctl_quiet = true;
  int e = ctl_schedule_preview(&s, wall_ms(), (int)count, times, &n, zone,
                               sizeof zone);
  ctl_quiet = quiet;
  /* 200 either way: a schedule the parser refuses is an answer. */
  if (web_reply_open(r, 200, "application/json"))
    return 500;
  if (e) {
    fputs("{\"ok\": false, \"error\": ", r->out);
    ctl_json_string_to(r->out, ctl_last_error);
    fputs("}\n", r->out);
    return 200;
  }
  char words[512];
  ctl_schedule_words(&s, words, sizeof words);
  fputs("{\"ok\": true, \"zone\": ", r->out);
  ctl_json_string_to(r->out, zone);
  fputs(", \"words\": ", r->out);
  ctl_json_string_to(r->out, words);
  fputs(", \"next\": [", r->out);
  for (int i = 0; i < n; i++) {
    char t[48];
    ctl_format_time(times[i], zone, t, sizeof t);
    fputs(i ? ", " : "", r->out);
    ctl_json_string_to(r->out, t);
  }
  fputs("], \"next_ms\": [", r->out);
  for (int i = 0; i < n; i++)
    fprintf(r->out, "%s%" PRId64, i ? ", " : "", times[i]);
  fputs("]}\n", r->out);
  return 200;
}

/* ------------------------------------------------------------ links */
