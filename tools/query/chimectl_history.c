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

/* Adds run i of l to t.  Returns: 0 or an exit code. */
static int history_row(const ctl *c, ctl_table *t, const chime_admin_table *l,
                       size_t i) {
#define TEXT(col) chime_admin_table_get_text(l, i, col)
#define INT(col) chime_admin_table_get_int64(l, i, col)
  char job[400], trig[400], sch[48], st[48], dur[32], outcome[24];
  snprintf(job, sizeof job, "%s.%s", TEXT("job_group"), TEXT("job_name"));
  snprintf(trig, sizeof trig, "%s.%s", TEXT("trigger_group"),
           TEXT("trigger_name"));
  ctl_format_time(INT("scheduled_ms"), c->zone, sch, sizeof sch);
  ctl_format_time(INT("started_ms"), c->zone, st, sizeof st);
  ctl_format_age(INT("duration_ms"), dur, sizeof dur);
  ctl_lower(TEXT("outcome"), outcome, sizeof outcome);
  /* The run's own data (its trigger's), shown as text or hex. */
  char *data, bytes[24];
  const char *encoding;
  size_t len = 0;
  const void *raw = chime_admin_table_get_bytes(l, i, "data", &len);
  int r = ctl_data_show(raw, len, &data, &encoding);
  if (r)
    return r;
  snprintf(bytes, sizeof bytes, "%zu", len);
  const char *cells[] = {TEXT("fire_id"),
                         job,
                         trig,
                         sch,
                         st,
                         dur,
                         TEXT("node"),
                         outcome,
                         TEXT("message"),
                         TEXT("scheduled_ms"),
                         TEXT("started_ms"),
                         TEXT("duration_ms"),
                         TEXT("error_code"),
                         INT("recovering") ? "true" : "false",
                         data,
                         encoding,
                         bytes};
#undef INT
#undef TEXT
  r = ctl_table_add(t, cells);
  free(data);
  return r < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory") : 0;
}

/* The history query of c's filters into q.  Returns: 0; CHIME_EINVAL (a
 * filter the query refuses); CHIME_ENOMEM. */
static int history_query(const ctl *c, const char *group, const char *name,
                         const char *tgroup, const char *tname,
                         int64_t since_ms, int64_t until_ms, int64_t fire_id,
                         chime_admin_query *q) {
  int r = chime_admin_query_set_page(q, (size_t)c->offset, (size_t)c->limit);
  if (r == 0 && c->job)
    r = chime_admin_query_set_job(q, group, name);
  if (r == 0 && c->trigger)
    r = chime_admin_query_set_trigger(q, tgroup, tname);
  if (r == 0)
    r = chime_admin_query_set_node(q, c->on_node);
  if (r == 0)
    r = chime_admin_query_set_fire(q, fire_id);
  if (r == 0)
    r = chime_admin_query_set_started(q, c->since ? since_ms : 0,
                                      c->until ? until_ms : 0);
  if (r == 0)
    r = chime_admin_query_set_outcome(q, c->outcome, c->failed);
  return r;
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
  struct {
    char group[256], name[256];   /* --job */
    char tgroup[256], tname[256]; /* --trigger */
  } f;
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
  /* A fire id that is not one matches no run, nor a time before 1970. */
  char *end = NULL;
  long long fire_id = c->fire_id ? strtoll(c->fire_id, &end, 10) : 0;
  if (c->fire_id && (!*c->fire_id || *end || fire_id <= 0))
    return 0;
  /* Nothing started before the epoch; since then is no bound. */
  if (c->until && until_ms <= 0)
    return 0;
  if (since_ms < 0)
    since_ms = 0;
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_HISTORY);
  if (q && history_query(c, f.group, f.name, f.tgroup, f.tname, since_ms,
                         until_ms, fire_id, q) < 0) {
    chime_admin_query_free(q);
    return ctl_usage("--limit or --page out of range, or a filter too long");
  }
  chime_admin_table *l = NULL;
  r = ctl_list(c, q, &l);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++)
    r = history_row(c, t, l, i);
  if (r)
    ctl_table_free(t);
  chime_admin_table_free(l);
  return r;
}

int ctl_cmd_history(ctl *c) {
  if (c->argc > 0)
    return ctl_usage("usage: chimectl history [--job GROUP.NAME] "
                     "[--trigger GROUP.NAME] [--node ID] [--outcome WORD] "
                     "[--since TIME] [--until TIME] [--failed] [--limit N] "
                     "[--page N]");
  ctl_table t;
  return ctl_table_end(c, &t, ctl_history_table(c, &t));
}
