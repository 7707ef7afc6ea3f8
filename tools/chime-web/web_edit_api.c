/*
 * web_edit_api.c: the edit pages' actions (POST /api/trigger-save,
 * /api/job-save, /api/retry; a script's too, with the operator token) and
 * the edit pages' script.  Each action checks its parameters, does its one
 * operation through chimectl_edit.h (the public API: the library's checks
 * and messages, nothing half-written) and is logged once with who did it.
 * A browser's refused save comes back as its form, filled as it was sent,
 * with the library's message above it (422), rather than as a redirect
 * that would lose what the operator typed.
 */
#include "chimectl_edit.h"
#include "web.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const actions[] = {"trigger-save", "job-save", "retry",
                                      NULL};

bool web_edit_is_action(const char *name) {
  for (const char *const *a = actions; *a; a++)
    if (strcmp(*a, name) == 0)
      return true;
  return false;
}

/* The form fields besides the settings. */
static const char *const form_only[] = {"mode", "key", "csrf", "back", NULL};

/* Whether every parameter is a form field or one of names. */
static bool params_ok(const web_params *q, const char *const *names, char *msg,
                      size_t len) {
  for (size_t i = 0; i < q->n; i++) {
    bool ok = false;
    for (const char *const *k = form_only; *k && !ok; k++)
      ok = strcmp(*k, q->key[i]) == 0;
    for (const char *const *k = names; *k && !ok; k++)
      ok = strcmp(*k, q->key[i]) == 0;
    if (!ok) {
      snprintf(msg, len, "unknown parameter '%s'", q->key[i]);
      return false;
    }
  }
  return true;
}

/* The status of an edit's exit code: the library refused the definition
 * (CTL_FAILED) is the request's fault, 422. */
static int edit_status(int e) {
  return e == CTL_FAILED ? 422 : web_status_of(e);
}

/* trigger-save and job-save. */
static int save(web_page *p, bool trigger, const char *who, char *msg,
                size_t len) {
  const char *mode = web_param(p->q, "mode"), *key = web_param(p->q, "key");
  if (!params_ok(p->q,
                 trigger ? ctl_trigger_setting_names : ctl_job_setting_names,
                 msg, len))
    return 400;
  bool add = mode && strcmp(mode, "add") == 0;
  if (!add && (!mode || strcmp(mode, "edit") != 0)) {
    snprintf(msg, len, "mode wants add or edit");
    return 400;
  }
  if (!key || !*key) {
    snprintf(msg, len, "missing parameter 'key' (GROUP.NAME)");
    return 400;
  }
  web_vals v = {0};
  web_vals_from_params(&v, p->q, form_only);
  int64_t first = CHIME_NO_FIRE_MS;
  int e = trigger ? ctl_trigger_save(p->c, add, key, &v.s, &first)
                  : ctl_job_save(p->c, add, key, &v.s);
  web_vals_free(&v);
  const char *what = trigger ? "trigger" : "job";
  const char *done = add ? "added" : "changed";
  if (e) {
    snprintf(msg, len, "%s", ctl_last_error);
    return edit_status(e);
  }
  if (first != CHIME_NO_FIRE_MS) {
    char when[48];
    ctl_format_time(first, p->c->zone, when, sizeof when);
    snprintf(msg, len, "%s %s %s: first fire %s", done, what, key, when);
  } else {
    snprintf(msg, len, "%s %s %s", done, what, key);
  }
  web_log(p->w, "%s %s %s %s", who, done, what, key);
  return 200;
}

static int retry(web_page *p, const char *who, char *msg, size_t len) {
  static const char *const names[] = {"fire", "data", NULL};
  if (!params_ok(p->q, names, msg, len))
    return 400;
  const char *fire = web_param(p->q, "fire"), *data = web_param(p->q, "data");
  if (!fire || !*fire) {
    snprintf(msg, len, "missing parameter 'fire'");
    return 400;
  }
  ctl_retried x;
  int e = ctl_retry_run(p->c, fire, data && *data ? data : NULL, &x);
  if (e) {
    snprintf(msg, len, "%s", ctl_last_error);
    return edit_status(e);
  }
  snprintf(msg, len, "retried run %s (%s) of job %s with %s data", fire,
           x.outcome, x.job, x.data_from);
  web_log(p->w, "%s retried run %s of job %s", who, fire, x.job);
  return 200;
}

int web_edit_action(web_page *p, const char *action, const char *who, char *msg,
                    size_t msg_len) {
  if (strcmp(action, "retry") == 0)
    return retry(p, who, msg, msg_len);
  return save(p, strcmp(action, "trigger-save") == 0, who, msg, msg_len);
}

bool web_edit_rerender(web_page *p, const char *action, int status,
                       web_reply *r) {
  if (strcmp(action, "retry") == 0 || status == 200)
    return false;
  const char *mode = web_param(p->q, "mode"), *key = web_param(p->q, "key");
  bool add = !mode || strcmp(mode, "edit") != 0;
  web_vals v = {0};
  web_vals_from_params(&v, p->q, form_only);
  if (strcmp(action, "trigger-save") == 0)
    web_edit_trigger_form(p, r, status, add, key, &v);
  else
    web_edit_job_form(p, r, status, add, key, &v);
  web_vals_free(&v);
  return true;
}

/* ------------------------------------------------------------ script */

/* The edit pages' script: shows the fields of the chosen schedule kind
 * (the others disabled, so not sent), and asks /api/preview for the next
 * fires as the operator types, showing them or the parser's message.
 * The page's refresh is off: it would replace what is being typed. */
static const char edit_js[] =
    "'use strict';\n"
    "(function () {\n"
    "  var names = ['kind', 'schedule', 'zone', 'repeat', 'between', "
    "'days',\n"
    "               'start', 'end'];\n"
    "  function show(box, j) {\n"
    "    box.textContent = '';\n"
    "    var p = document.createElement('p');\n"
    "    if (!j.ok) {\n"
    "      p.className = 'error'; p.id = 'preview-error';\n"
    "      p.textContent = j.error; box.appendChild(p); return;\n"
    "    }\n"
    "    p.id = 'preview-words'; p.textContent = j.words;\n"
    "    box.appendChild(p);\n"
    "    p = document.createElement('p');\n"
    "    p.textContent = 'Next fires in ' + j.zone + ':';\n"
    "    box.appendChild(p);\n"
    "    var ol = document.createElement('ol'); ol.id = 'preview-times';\n"
    "    j.next.forEach(function (t) {\n"
    "      var li = document.createElement('li'); li.textContent = t;\n"
    "      ol.appendChild(li);\n"
    "    });\n"
    "    box.appendChild(ol);\n"
    "    if (!j.next.length) {\n"
    "      var n = document.createElement('p'); n.className = 'none';\n"
    "      n.textContent = '(never fires)'; box.appendChild(n);\n"
    "    }\n"
    "  }\n"
    "  document.addEventListener('DOMContentLoaded', function () {\n"
    "    var f = document.getElementById('trigger-form');\n"
    "    document.body.dataset.refresh = 'off';\n"
    "    if (!f) return;\n"
    "    var timer = null, seq = 0;\n"
    "    function kinds() {\n"
    "      var k = ' ' + f.elements.kind.value + ' ';\n"
    "      f.querySelectorAll('[data-kinds]').forEach(function (row) {\n"
    "        var on = (' ' + row.dataset.kinds + ' ').indexOf(k) >= 0;\n"
    "        row.hidden = !on;\n"
    "        row.querySelectorAll('input, select').forEach(function (e) {\n"
    "          e.disabled = !on;\n"
    "        });\n"
    "      });\n"
    "    }\n"
    "    function preview() {\n"
    "      var q = [], mine = ++seq;\n"
    "      names.forEach(function (n) {\n"
    "        var e = f.elements[n];\n"
    "        if (e && !e.disabled && e.value !== '')\n"
    "          q.push(n + '=' + encodeURIComponent(e.value));\n"
    "      });\n"
    "      fetch('/api/preview?' + q.join('&'),\n"
    "            {credentials: 'same-origin', cache: 'no-store'})\n"
    "        .then(function (r) { return r.json(); })\n"
    "        .then(function (j) {\n"
    "          if (mine === seq) show(document.getElementById('preview'), "
    "j);\n"
    "        })\n"
    "        .catch(function () {});\n"
    "    }\n"
    "    function later() { clearTimeout(timer); timer = "
    "setTimeout(preview, 150); }\n"
    "    f.addEventListener('input', later);\n"
    "    f.addEventListener('change', function () { kinds(); later(); });\n"
    "    kinds();\n"
    "  });\n"
    "})();\n";

int web_edit_js(web_page *p, web_reply *r) {
  (void)p;
  if (web_reply_open(r, 200, "text/javascript"))
    return 500;
  fputs(edit_js, r->out);
  return 200;
}

/* The edit pages' style: the form's table, the preview beside it. */
static const char edit_css[] =
    ".editor{display:grid;grid-template-columns:minmax(0,1fr) 22em;"
    "gap:1.5em;align-items:start}@media (max-width:800px){.editor{"
    "grid-template-columns:minmax(0,1fr)}}table.form{min-width:0}"
    "table.form th{background:none;white-space:nowrap;width:9em}"
    "table.form input{width:26em;max-width:100%}table.form textarea,"
    "form.edit textarea{width:26em;max-width:100%;font:inherit}"
    "table.form small{display:block}.preview{background:#fff;border:1px "
    "solid #e3e6ec;padding:.5em 1em;position:sticky;top:.5em}.preview ol{"
    "padding-left:1.5em;font-family:monospace}#save{margin:.6em 0}"
    "a.edit{margin-right:.3em}[hidden]{display:none!important}\n";

int web_edit_css(web_page *p, web_reply *r) {
  (void)p;
  if (web_reply_open(r, 200, "text/css"))
    return 500;
  fputs(edit_css, r->out);
  return 200;
}
