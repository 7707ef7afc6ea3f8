/*
 * chimectl_running.c: the cluster's activity as the operators' pages show
 * it: the fires claimed or running now (`chimectl running`), the last
 * hour minute by minute (fires, failures, lateness), node events
 * (`chimectl events`).  The fires come from the store's operators'
 * lists (chime-admin.h), the rest from one SELECT each on the store's
 * tables (docs/schema.md); live and dead are the store's own rule.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ctl_rows_table(ctl *c, const char *sql, const char *const *args, size_t n,
                   ctl_table *t) {
  chime__mysql_rows rows = {0};
  int r = ctl_query(c, sql, args, n, &rows);
  const char *cells[16];
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    for (size_t k = 0; k < t->ncols && k < 16; k++)
      cells[k] = chime__mysql_rows_text(&rows, i, k);
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  if (r)
    ctl_table_free(t);
  chime__mysql_rows_free(&rows);
  return r;
}

int ctl_running_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {
      "fire_id",    "job",        "trigger",      "node",
      "state",      "since",      "scheduled_ms", "acquired_ms",
      "running_ms", "recovering", "node_live"};
  static const bool num[] = {true, false, false, false, false, false,
                             true, true,  true,  true,  true};
  ctl_table_init(t, heads, num, 11);
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_FIRES);
  chime_admin_table *l = NULL;
  int r = ctl_list(c, q, &l);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++) {
#define TEXT(col) chime_admin_table_get_text(l, i, col)
    char job[400], trigger[400], state[24], since[48];
    snprintf(job, sizeof job, "%s.%s", TEXT("job_group"), TEXT("job_name"));
    snprintf(trigger, sizeof trigger, "%s.%s", TEXT("trigger_group"),
             TEXT("trigger_name"));
    ctl_lower(TEXT("state"), state, sizeof state);
    /* "since": the claim's time for people, in the chosen zone. */
    ctl_format_time(chime_admin_table_get_int64(l, i, "acquired_ms"), c->zone,
                    since, sizeof since);
    const char *cells[] = {TEXT("fire_id"),
                           job,
                           trigger,
                           TEXT("node"),
                           state,
                           since,
                           TEXT("scheduled_ms"),
                           TEXT("acquired_ms"),
                           TEXT("running_ms"),
                           TEXT("recovering"),
                           TEXT("node_live")};
#undef TEXT
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  if (r)
    ctl_table_free(t);
  chime_admin_table_free(l);
  return r;
}

int ctl_activity_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {"minute_ms", "fires", "failures",
                                      "late_avg_ms", "late_max_ms"};
  static const bool num[] = {true, true, true, true, true};
  ctl_table_init(t, heads, num, 5);
  /* One row per minute that had fires; lateness is start - schedule, of
   * the scheduled runs only; failures and lateness by chimectl.h's rule. */
  const char *args[] = {c->sched};
  return ctl_rows_table(
      c,
      "SELECT FLOOR(started_ms / 60000) * 60000 AS m, COUNT(*), "
      "SUM(" CTL_FAILURE_SQL "), "
      "CAST(AVG(CASE WHEN " CTL_SCHEDULED_RUN_SQL " THEN GREATEST(started_ms "
      "- scheduled_ms, 0) END) AS SIGNED), "
      "MAX(CASE WHEN " CTL_SCHEDULED_RUN_SQL " THEN GREATEST(started_ms - "
      "scheduled_ms, 0) END) FROM {P}history WHERE "
      "sched_name = ? AND started_ms >= CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS "
      "SIGNED) - 3600000 GROUP BY m ORDER BY m",
      args, 1, t);
}

int ctl_events_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {"time_ms", "node", "event", "detail"};
  static const bool num[] = {true, false, false, false};
  ctl_table_init(t, heads, num, 4);
  char code[16];
  snprintf(code, sizeof code, "%d", CHIME_ENOTOWNER);
  const char *args[] = {c->sched, c->node, c->sched, code};
  /* A node's start is its row's; a death shows in the fires its recovery
   * ended (outcome REQUEUED or FAILED, the node lost them); a cancel too. */
  return ctl_rows_table(
      c,
      "SELECT * FROM (SELECT started_ms AS t, instance_id, 'started', "
      "CONCAT('host ', host, ', pid ', pid, ', version ', version) FROM "
      "{P}nodes WHERE sched_name = ? AND instance_id <> ? UNION ALL SELECT "
      "finished_ms, node, LOWER(outcome), CONCAT('fire ', fire_id, ' (', "
      "job_group, '.', job_name, '): ', COALESCE(error_text, '')) FROM "
      "{P}history WHERE sched_name = ? AND error_code = CAST(? AS SIGNED)) "
      "e ORDER BY t DESC LIMIT 100",
      args, 4, t);
}

/* `chimectl running` and `chimectl events`: the tables above, printed. */
static int print_query(ctl *c, const char *usage,
                       int (*query)(ctl *, ctl_table *)) {
  if (c->argc > 0)
    return ctl_usage("usage: chimectl %s", usage);
  ctl_table t;
  chime__mysql_rows none = {0};
  return ctl_table_done(c, &t, &none, query(c, &t));
}

int ctl_cmd_running(ctl *c) {
  return print_query(c, "running", ctl_running_table);
}

int ctl_cmd_events(ctl *c) {
  return print_query(c, "events", ctl_events_table);
}
