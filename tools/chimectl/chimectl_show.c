/*
 * chimectl_show.c: `chimectl show [trigger|job] G.N`: everything about one
 * trigger (its expression as written, the schedule in words, data, zone,
 * calendar, misfire policy, jitter, its timeout and starting deadline,
 * state, the next five fire times) or one job (its definition, run
 * policies, history level and its triggers), as aligned "field value"
 * lines or one JSON object.  Without the word, a trigger G.N is shown when
 * there is one, else the job G.N.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEXT_TIMES 5

/* One object printed field by field: text lines or JSON members. */
typedef struct shower {
  bool json;
  int n; /* fields written */
} shower;

static void field(shower *s, const char *key, const char *value) {
  if (s->json) {
    fputs(s->n ? ", " : "{", stdout);
    ctl_json_string(key);
    fputs(": ", stdout);
    if (value)
      ctl_json_string(value);
    else
      fputs("null", stdout);
  } else {
    printf("%-12s %s\n", key, value ? value : "-");
  }
  s->n++;
}

/* A field whose text is its JSON value too (a number, true, false). */
static void raw(shower *s, const char *key, const char *value) {
  if (!s->json || !value) {
    field(s, key, value);
    return;
  }
  fputs(s->n ? ", " : "{", stdout);
  ctl_json_string(key);
  printf(": %s", value);
  s->n++;
}

/* Data as stored: JSON text as itself in --json, else as a string. */
static void data_field(shower *s, const char *data) {
  if (data && ctl_json_is_valid(data))
    raw(s, "data", data);
  else
    field(s, "data", data);
}

/* A list: JSON array, or the text's first item on the line and the rest
 * under it. */
static void list(shower *s, const char *key, char **items, size_t n) {
  if (s->json) {
    fputs(s->n ? ", " : "{", stdout);
    ctl_json_string(key);
    fputs(": [", stdout);
    for (size_t i = 0; i < n; i++) {
      fputs(i ? ", " : "", stdout);
      ctl_json_string(items[i]);
    }
    fputs("]", stdout);
  } else if (n == 0) {
    printf("%-12s -\n", key);
  } else {
    for (size_t i = 0; i < n; i++)
      printf("%-12s %s\n", i ? "" : key, items[i]);
  }
  s->n++;
}

static void end(shower *s) {
  if (s->json)
    fputs(s->n ? "}\n" : "{}\n", stdout);
}

/* A time in ms as its JSON number, or "-" (null) when 0: none, or for a
 * trigger its job's. */
static void ms_field(shower *s, const char *key, int64_t ms) {
  char text[32];
  snprintf(text, sizeof text, "%" PRId64, ms);
  raw(s, key, ms > 0 ? text : NULL);
}

static int show_trigger(ctl *c, const ctl_trigger *tp, const char *data) {
  const ctl_trigger t = *tp;
  char key[400], job[400], state[24], jitter[64], times[512], prio[16];
  snprintf(key, sizeof key, "%s.%s", t.group, t.name);
  snprintf(job, sizeof job, "%s.%s", t.job_group, t.job_name);
  ctl_lower(t.state, state, sizeof state);
  snprintf(jitter, sizeof jitter, "%" PRId64 ".%03ds", t.jitter_ms / 1000,
           (int)(t.jitter_ms % 1000));
  ctl_next_times(&t, c->zone, NEXT_TIMES, times, sizeof times);
  snprintf(prio, sizeof prio, "%d", t.priority);
  char *words = ctl_describe_trigger(&t);
  /* ctl_next_times separates the times with ", " (a time has none). */
  char *next[NEXT_TIMES];
  size_t nnext = 0;
  for (char *p = times; *p && nnext < NEXT_TIMES;) {
    next[nnext++] = p;
    char *sep = strstr(p, ", ");
    if (!sep)
      break;
    *sep = '\0';
    p = sep + 2;
  }
  shower s = {.json = c->json};
  field(&s, "trigger", key);
  field(&s, "job", job);
  field(&s, "kind", ctl_kind_name(t.kind));
  field(&s, "expression", t.cron_text); /* as written; others have none */
  field(&s, "schedule", words ? words : "?");
  field(&s, "description", t.description);
  data_field(&s, data);
  field(&s, "zone", t.zone_name ? t.zone_name : "UTC");
  field(&s, "calendar", t.calendar_name);
  field(&s, "misfire", ctl_misfire_name(t.misfire));
  field(&s, "jitter", t.jitter_ms > 0 ? jitter : NULL);
  raw(&s, "priority", prio);
  ms_field(&s, "timeout_ms", t.timeout_ms);
  ms_field(&s, "deadline_ms", t.starting_deadline_ms);
  field(&s, "state", state);
  field(&s, "owner", t.owner);
  list(&s, "next", next, nnext);
  end(&s);
  free(words);
  return 0;
}

/* The job's definition (row `row` of the jobs listing jobs) and its
 * triggers. */
static int show_job(ctl *c, const ctl_table *jobs, size_t row) {
  char *const *cell = jobs->cells + row * jobs->ncols;
  /* Its policies and its triggers, by chime-admin.h's lists. */
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_JOBS);
  if (q && chime_admin_query_set_group(q, cell[0]) < 0) {
    chime_admin_query_free(q);
    q = NULL;
  }
  chime_admin_table *job = NULL, *trigs = NULL;
  int r = ctl_list(c, q, &job);
  if (r)
    return r;
  size_t at = 0, njobs = chime_admin_table_get_row_count(job);
  while (at < njobs &&
         strcmp(chime_admin_table_get_text(job, at, "name"), cell[1]) != 0)
    at++;
  int64_t timeout = chime_admin_table_get_int64(job, at, "timeout_ms");
  int64_t deadline = chime_admin_table_get_int64(job, at, "deadline_ms");
  int64_t level = chime_admin_table_get_int64(job, at, "history_level");
  size_t len = 0; /* its data: JSON text, as bytes */
  const char *bytes = chime_admin_table_get_bytes(job, at, "data", &len);
  char *data = bytes ? strndup(bytes, len) : NULL;
  chime_admin_table_free(job);
  if (bytes && !data)
    return ctl_fail(CHIME_ENOMEM, "out of memory");
  q = ctl_list_query(CHIME_ADMIN_TRIGGERS);
  if (q && chime_admin_query_set_job(q, cell[0], cell[1]) < 0) {
    chime_admin_query_free(q);
    q = NULL;
  }
  r = ctl_list(c, q, &trigs);
  if (r)
    return r;
  size_t ntrigs = chime_admin_table_get_row_count(trigs);
  char **keys = calloc(ntrigs + 1, sizeof *keys);
  for (size_t i = 0; keys && i < ntrigs; i++)
    if (asprintf(&keys[i], "%s.%s",
                 chime_admin_table_get_text(trigs, i, "group"),
                 chime_admin_table_get_text(trigs, i, "name")) < 0)
      keys[i] = NULL;
  chime_admin_table_free(trigs);
  if (!keys) {
    free(data);
    return ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  char key[520];
  snprintf(key, sizeof key, "%s.%s", cell[0], cell[1]);
  shower s = {.json = c->json};
  field(&s, "job", key);
  /* The listing's columns after group and name, but its trigger count:
   * the triggers are listed. */
  for (size_t k = 2; k < jobs->ncols; k++) {
    if (strcmp(jobs->heads[k], "triggers") == 0)
      continue;
    if (jobs->numeric[k])
      raw(&s, jobs->heads[k], cell[k]);
    else
      field(&s, jobs->heads[k], cell[k]);
  }
  ms_field(&s, "timeout_ms", timeout);
  ms_field(&s, "deadline_ms", deadline);
  /* Which runs history records (chime_job_set_history_level). */
  field(&s, "history",
        level == CHIME_HISTORY_FAILURES ? "failures"
        : level == CHIME_HISTORY_NONE   ? "none"
                                        : "all");
  data_field(&s, data);
  list(&s, "triggers", keys, ntrigs);
  end(&s);
  for (size_t i = 0; i < ntrigs; i++)
    free(keys[i]);
  free(keys);
  free(data);
  return 0;
}

/* The data of trigger (group, name) into *ret (malloc'd; NULL: none), by
 * chime-admin.h's triggers list.  Returns: 0 or an exit code. */
static int trigger_data(ctl *c, const char *group, const char *name,
                        char **ret) {
  *ret = NULL;
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_TRIGGERS);
  if (q && chime_admin_query_set_group(q, group) < 0) {
    chime_admin_query_free(q);
    q = NULL;
  }
  chime_admin_table *t = NULL;
  int r = ctl_list(c, q, &t);
  size_t n = chime_admin_table_get_row_count(t), i = 0, len = 0;
  while (i < n && strcmp(chime_admin_table_get_text(t, i, "name"), name) != 0)
    i++;
  const char *bytes = chime_admin_table_get_bytes(t, i, "data", &len);
  if (r == 0 && bytes && !(*ret = strndup(bytes, len)))
    r = ctl_fail(CHIME_ENOMEM, "out of memory");
  chime_admin_table_free(t);
  return r;
}

int ctl_cmd_show(ctl *c) {
  const char *what = c->argc == 2 ? c->argv[0] : NULL;
  if (c->argc < 1 || c->argc > 2 ||
      (what && strcmp(what, "trigger") && strcmp(what, "job")))
    return ctl_usage("usage: chimectl show [trigger|job] GROUP.NAME");
  const char *key = c->argv[c->argc - 1];
  char group[256], name[256];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r)
    return r;
  if (!what || strcmp(what, "trigger") == 0) {
    ctl_trigger t;
    bool was_quiet = ctl_quiet;
    ctl_quiet = true; /* no such trigger: said below, or it is a job */
    r = ctl_trigger_by_key(c, group, name, key, &t);
    ctl_quiet = was_quiet;
    bool found = r == 0;
    if (r == CTL_NOTFOUND)
      r = 0;
    else if (r && !was_quiet) /* the message kept quiet above */
      fprintf(stderr, "%s: %s\n", ctl_program, ctl_last_error);
    char *data = NULL;
    if (found)
      r = trigger_data(c, group, name, &data);
    if (r == 0 && found)
      r = show_trigger(c, &t, data);
    if (found)
      ctl_trigger_clear(&t);
    free(data);
    if (r || found)
      return r;
  }
  ctl_table jobs;
  if ((r = ctl_jobs_table(c, group, &jobs)))
    return r;
  size_t row = 0;
  while (row < jobs.nrows && (strcmp(jobs.cells[row * jobs.ncols], group) ||
                              strcmp(jobs.cells[row * jobs.ncols + 1], name)))
    row++;
  if (row == jobs.nrows || (what && strcmp(what, "job"))) {
    ctl_table_free(&jobs);
    return ctl_fail(CHIME_ENOTFOUND, "no %s %s", what ? what : "trigger or job",
                    key);
  }
  r = show_job(c, &jobs, row);
  ctl_table_free(&jobs);
  return r;
}
