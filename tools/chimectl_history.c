/*
 * chimectl_history.c: `chimectl history [--job GROUP.NAME] [--since TIME]
 * [--failed] [--limit N]`: the newest recorded fires first, from the
 * store's history table (kept for history_retention_ms).
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ctl_cmd_history(ctl *c) {
  if (c->argc > 0) {
    fprintf(stderr, "chimectl: usage: chimectl history [--job GROUP.NAME] "
                    "[--since TIME] [--failed] [--limit N]\n");
    return CTL_USAGE;
  }
  char group[256], name[256], since[32];
  int r = 0;
  if (c->job && (r = ctl_split_key(c->job, group, name, sizeof group)))
    return r;
  if ((r = ctl_open(c, NULL)))
    return r;
  if (c->since) {
    int64_t t;
    if (ctl_parse_time(c->since, ctl_now(c), &t) < 0) {
      fprintf(stderr,
              "chimectl: --since '%s' is not a time (epoch ms, "
              "2026-03-08T01:30:00Z, -30m, -2h, -1d)\n",
              c->since);
      return CTL_USAGE;
    }
    snprintf(since, sizeof since, "%" PRId64, t);
  }
  char sql[1024];
  const char *args[4] = {c->sched};
  size_t n = 1;
  size_t k = (size_t)snprintf(
      sql, sizeof sql,
      "SELECT fire_id, job_group, job_name, trigger_group, trigger_name, "
      "scheduled_ms, started_ms, duration_ms, node, outcome, error_code, "
      "error_text, recovering FROM {P}history WHERE sched_name = ?");
  if (c->job) {
    k += (size_t)snprintf(sql + k, sizeof sql - k,
                          " AND job_group = ? AND job_name = ?");
    args[n++] = group;
    args[n++] = name;
  }
  if (c->since) {
    k += (size_t)snprintf(sql + k, sizeof sql - k,
                          " AND started_ms >= CAST(? AS SIGNED)");
    args[n++] = since;
  }
  if (c->failed)
    k += (size_t)snprintf(sql + k, sizeof sql - k, " AND outcome <> 'OK'");
  snprintf(sql + k, sizeof sql - k, " ORDER BY id DESC LIMIT %ld", c->limit);
  chime__mysql_rows rows = {0};
  if ((r = ctl_query(c, sql, args, n, &rows)))
    return r;
  static const char *const heads[] = {
      "fire_id",    "job",         "trigger",    "scheduled", "started",
      "duration",   "node",        "outcome",    "error",     "scheduled_ms",
      "started_ms", "duration_ms", "error_code", "recovering"};
  static const bool num[] = {true,  false, false, false, false, false, false,
                             false, false, true,  true,  true,  true,  true};
  ctl_table t;
  ctl_table_init(&t, heads, num, 14);
  t.shown = 9;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    char job[400], trig[400], sch[48], st[48], dur[32];
    snprintf(job, sizeof job, "%s.%s", chime__mysql_rows_text(&rows, i, 1),
             chime__mysql_rows_text(&rows, i, 2));
    snprintf(trig, sizeof trig, "%s.%s", chime__mysql_rows_text(&rows, i, 3),
             chime__mysql_rows_text(&rows, i, 4));
    ctl_format_time(chime__mysql_rows_int64(&rows, i, 5), c->zone, sch,
                    sizeof sch);
    ctl_format_time(chime__mysql_rows_int64(&rows, i, 6), c->zone, st,
                    sizeof st);
    ctl_format_age(chime__mysql_rows_int64(&rows, i, 7), dur, sizeof dur);
    const char *outcome = chime__mysql_rows_text(&rows, i, 9);
    char lower[24];
    snprintf(lower, sizeof lower, "%s", outcome ? outcome : "?");
    for (char *p = lower; *p; p++)
      if (*p >= 'A' && *p <= 'Z')
        *p = (char)(*p - 'A' + 'a');
    const char *cells[] = {chime__mysql_rows_text(&rows, i, 0),
                           job,
                           trig,
                           sch,
                           st,
                           dur,
                           chime__mysql_rows_text(&rows, i, 8),
                           lower,
                           chime__mysql_rows_text(&rows, i, 11),
                           chime__mysql_rows_text(&rows, i, 5),
                           chime__mysql_rows_text(&rows, i, 6),
                           chime__mysql_rows_text(&rows, i, 7),
                           chime__mysql_rows_text(&rows, i, 10),
                           chime__mysql_rows_int64(&rows, i, 12) ? "true"
                                                                 : "false"};
    if (ctl_table_add(&t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  if (r == 0)
    ctl_table_print(&t, c->json);
  ctl_table_free(&t);
  chime__mysql_rows_free(&rows);
  return r;
}
