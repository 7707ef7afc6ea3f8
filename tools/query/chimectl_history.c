/*
 * chimectl_history.c: `chimectl history [--job GROUP.NAME] [--trigger
 * GROUP.NAME] [--node ID] [--outcome WORD] [--since TIME] [--until TIME]
 * [--failed] [--limit N] [--page N]`: the newest recorded fires first,
 * from the store's history table (kept for history_retention_ms); the
 * same filters search chime-web's history page.  --json also carries each
 * run's own data (chimectl_data.c: text, or hex when it is not text, and
 * its length; null and 0 when the run read its job's data).
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns of the query, in order. */
#define HISTORY_COLUMNS                                                        \
  "fire_id, job_group, job_name, trigger_group, trigger_name, "                \
  "scheduled_ms, started_ms, duration_ms, node, outcome, error_code, "         \
  "error_text, recovering, data"
enum {
  H_FIRE_ID,
  H_JOB_GROUP,
  H_JOB_NAME,
  H_TRIGGER_GROUP,
  H_TRIGGER_NAME,
  H_SCHEDULED_MS,
  H_STARTED_MS,
  H_DURATION_MS,
  H_NODE,
  H_OUTCOME,
  H_ERROR_CODE,
  H_ERROR_TEXT,
  H_RECOVERING,
  H_DATA
};

/* The filter's values as the query takes them (text arguments). */
typedef struct history_filter {
  char group[256], name[256];   /* --job */
  char tgroup[256], tname[256]; /* --trigger */
  char since[32], until[32];    /* epoch ms */
} history_filter;

/* The query of the options into sql, its arguments into args (*ret_n of
 * them; they point into f). */
static void history_sql(const ctl *c, const history_filter *f, char *sql,
                        size_t len, const char **args, size_t *ret_n) {
  size_t n = 0;
  size_t k = (size_t)snprintf(sql, len,
                              "SELECT " HISTORY_COLUMNS
                              " FROM {P}history WHERE sched_name = ?");
  args[n++] = c->sched;
  if (c->job) {
    k += (size_t)snprintf(sql + k, len - k,
                          " AND job_group = ? AND job_name = ?");
    args[n++] = f->group;
    args[n++] = f->name;
  }
  if (c->trigger) {
    k += (size_t)snprintf(sql + k, len - k,
                          " AND trigger_group = ? AND trigger_name = ?");
    args[n++] = f->tgroup;
    args[n++] = f->tname;
  }
  if (c->on_node) {
    k += (size_t)snprintf(sql + k, len - k, " AND node = ?");
    args[n++] = c->on_node;
  }
  if (c->fire_id) {
    k += (size_t)snprintf(sql + k, len - k, " AND fire_id = CAST(? AS SIGNED)");
    args[n++] = c->fire_id;
  }
  if (c->since) {
    k += (size_t)snprintf(sql + k, len - k,
                          " AND started_ms >= CAST(? AS SIGNED)");
    args[n++] = f->since;
  }
  if (c->until) {
    k += (size_t)snprintf(sql + k, len - k,
                          " AND started_ms < CAST(? AS SIGNED)");
    args[n++] = f->until;
  }
  if (c->failed)
    k += (size_t)snprintf(sql + k, len - k, " AND outcome <> 'OK'");
  if (c->outcome) {
    k += (size_t)snprintf(sql + k, len - k, " AND outcome = UPPER(?)");
    args[n++] = c->outcome;
  }
  snprintf(sql + k, len - k, " ORDER BY id DESC LIMIT %ld OFFSET %ld", c->limit,
           c->offset);
  *ret_n = n;
}

/* Adds history row i to t.  Returns: 0 or an exit code. */
static int history_row(const ctl *c, ctl_table *t,
                       const chime__mysql_rows *rows, size_t i) {
#define TEXT(col) chime__mysql_rows_text(rows, i, col)
#define INT(col) chime__mysql_rows_int64(rows, i, col)
  char job[400], trig[400], sch[48], st[48], dur[32], outcome[24];
  snprintf(job, sizeof job, "%s.%s", TEXT(H_JOB_GROUP), TEXT(H_JOB_NAME));
  snprintf(trig, sizeof trig, "%s.%s", TEXT(H_TRIGGER_GROUP),
           TEXT(H_TRIGGER_NAME));
  ctl_format_time(INT(H_SCHEDULED_MS), c->zone, sch, sizeof sch);
  ctl_format_time(INT(H_STARTED_MS), c->zone, st, sizeof st);
  ctl_format_age(INT(H_DURATION_MS), dur, sizeof dur);
  ctl_lower(TEXT(H_OUTCOME), outcome, sizeof outcome);
  /* The run's own data (its trigger's), shown as text or hex. */
  char *data, bytes[24];
  const char *encoding;
  size_t len = chime__mysql_rows_len(rows, i, H_DATA);
  int r = ctl_data_show(TEXT(H_DATA), len, &data, &encoding);
  if (r)
    return r;
  snprintf(bytes, sizeof bytes, "%zu", len);
  const char *cells[] = {TEXT(H_FIRE_ID),
                         job,
                         trig,
                         sch,
                         st,
                         dur,
                         TEXT(H_NODE),
                         outcome,
                         TEXT(H_ERROR_TEXT),
                         TEXT(H_SCHEDULED_MS),
                         TEXT(H_STARTED_MS),
                         TEXT(H_DURATION_MS),
                         TEXT(H_ERROR_CODE),
                         INT(H_RECOVERING) ? "true" : "false",
                         data,
                         encoding,
                         bytes};
#undef INT
#undef TEXT
  r = ctl_table_add(t, cells);
  free(data);
  return r < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory") : 0;
}

int ctl_job_and_since(ctl *c, char *group, char *name, size_t len,
                      int64_t *since_ms) {
  int r = 0;
  if (c->job && (r = ctl_split_key(c->job, group, name, len)))
    return r;
  if ((r = ctl_open(c, NULL)))
    return r;
  if (c->since && ctl_parse_time(c->since, ctl_now(c), since_ms) < 0)
    return ctl_usage("--since '%s' is not a time (epoch ms, "
                     "2026-03-08T01:30:00Z, -30m, -2h, -1d)",
                     c->since);
  return 0;
}

int ctl_history_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {
      "fire_id",    "job",          "trigger",    "scheduled",
      "started",    "duration",     "node",       "outcome",
      "error",      "scheduled_ms", "started_ms", "duration_ms",
      "error_code", "recovering",   "data",       "data_encoding",
      "data_bytes"};
  static const bool num[] = {true,  false, false, false, false, false,
                             false, false, false, true,  true,  true,
                             true,  true,  false, false, true};
  ctl_table_init(t, heads, num, 17);
  t->shown = 9;
  history_filter f;
  int64_t since_ms = 0, until_ms = 0;
  int r = ctl_job_and_since(c, f.group, f.name, sizeof f.group, &since_ms);
  if (r)
    return r;
  if (c->trigger &&
      (r = ctl_split_key(c->trigger, f.tgroup, f.tname, sizeof f.tgroup)))
    return r;
  if (c->until && ctl_parse_time(c->until, ctl_now(c), &until_ms) < 0)
    return ctl_usage("--until '%s' is not a time (epoch ms, "
                     "2026-03-08T01:30:00Z, -30m, -2h, -1d)",
                     c->until);
  if (c->on_node && (!*c->on_node || strlen(c->on_node) > 190))
    return ctl_usage("--node wants a node's instance id");
  for (const char *s = c->outcome; s && *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_') ||
        s - c->outcome >= 16)
      return ctl_usage("--outcome '%s' is not an outcome (ok, failed, "
                       "cancelled, timed_out, ...)",
                       c->outcome);
  snprintf(f.since, sizeof f.since, "%" PRId64, since_ms);
  snprintf(f.until, sizeof f.until, "%" PRId64, until_ms);
  char sql[1024];
  const char *args[10];
  size_t n;
  history_sql(c, &f, sql, sizeof sql, args, &n);
  chime__mysql_rows rows = {0};
  if ((r = ctl_query(c, sql, args, n, &rows)))
    return r;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++)
    r = history_row(c, t, &rows, i);
  if (r)
    ctl_table_free(t);
  chime__mysql_rows_free(&rows);
  return r;
}

int ctl_cmd_history(ctl *c) {
  if (c->argc > 0)
    return ctl_usage("usage: chimectl history [--job GROUP.NAME] "
                     "[--trigger GROUP.NAME] [--node ID] [--outcome WORD] "
                     "[--since TIME] [--until TIME] [--failed] [--limit N] "
                     "[--page N]");
  ctl_table t;
  chime__mysql_rows none = {0};
  return ctl_table_done(c, &t, &none, ctl_history_table(c, &t));
}
