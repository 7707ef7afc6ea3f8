/*
 * chimectl_list.c: the read-only listings of chimectl: `nodes`, `jobs`,
 * `triggers` and `history`, each one SELECT on the store's tables
 * (docs/schema.md) printed as a table or JSON.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int too_many_args(ctl *c, size_t max, const char *usage) {
  if ((size_t)c->argc > max)
    return ctl_usage("usage: chimectl %s", usage);
  return 0;
}

/* Frees rows; on error also t.  Returns r. */
static int table_end(ctl_table *t, chime__mysql_rows *rows, int r) {
  if (r)
    ctl_table_free(t);
  chime__mysql_rows_free(rows);
  return r;
}

/* Prints and frees a table a query filled.  Returns r. */
static int print_table(const ctl *c, ctl_table *t, int r) {
  chime__mysql_rows none = {0};
  return ctl_table_done(c, t, &none, r);
}

static int add_row(ctl_table *t, const char *const *cells) {
  return ctl_table_add(t, cells) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory")
                                     : 0;
}

int ctl_nodes_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {
      "id",    "host",  "pid",     "version",       "checkin_age",
      "state", "drain", "running", "checkin_age_ms"};
  static const bool num[] = {false, false, true, false, false,
                             false, false, true, true};
  ctl_table_init(t, heads, num, 9);
  t->shown = 8;
  chime__mysql_rows rows = {0};
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  /* chimectl's own store may hold a nodes row while it runs: left out.
   * Live or dead by the store's own rule; drain: the node_drains row
   * (none: active). */
  const char *args[] = {c->sched, c->node};
  char sql[1400];
  snprintf(sql, sizeof sql,
           "SELECT n.instance_id, n.host, n.pid, n.version, "
           "n.last_checkin_ms, n.checkin_interval_ms, (SELECT COUNT(*) FROM "
           "{P}fired f WHERE f.sched_name = n.sched_name AND f.node = "
           "n.instance_id AND f.state = 'EXECUTING'), "
           "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED), %s, (SELECT "
           "d.state FROM {P}node_drains d WHERE d.sched_name = n.sched_name "
           "AND d.instance_id = n.instance_id) FROM {P}nodes n "
           "WHERE n.sched_name = ? AND n.instance_id <> ? ORDER BY "
           "n.instance_id",
           chime__mysql_admin_node_live_sql());
  if ((r = ctl_query(c, sql, args, 2, &rows)))
    return r;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    int64_t last = chime__mysql_rows_int64(&rows, i, 4);
    int64_t now = chime__mysql_rows_int64(&rows, i, 7);
    bool dead = !chime__mysql_rows_int64(&rows, i, 8);
    const char *drain =
        chime__mysql_rows_is_null(&rows, i, 9) ? "active"
        : strcmp(chime__mysql_rows_text(&rows, i, 9), "DRAINED") == 0
            ? "drained"
            : "draining";
    char age[32], age_ms[32];
    ctl_format_age(now - last, age, sizeof age);
    snprintf(age_ms, sizeof age_ms, "%" PRId64, now - last);
    const char *cells[] = {chime__mysql_rows_text(&rows, i, 0),
                           chime__mysql_rows_text(&rows, i, 1),
                           chime__mysql_rows_text(&rows, i, 2),
                           chime__mysql_rows_text(&rows, i, 3),
                           age,
                           dead ? "dead" : "live",
                           drain,
                           chime__mysql_rows_text(&rows, i, 6),
                           age_ms};
    r = add_row(t, cells);
  }
  return table_end(t, &rows, r);
}

int ctl_cmd_nodes(ctl *c) {
  ctl_table t;
  int r = too_many_args(c, 0, "nodes");
  return r ? r : print_table(c, &t, ctl_nodes_table(c, &t));
}

/* A job's concurrency policy as chimectl prints it (docs/policies.md). */
static const char *concurrency_name(int64_t c) {
  switch (c) {
  case CHIME_CONCURRENCY_ALLOW:
    return "allow";
  case CHIME_CONCURRENCY_FORBID:
    return "forbid";
  case CHIME_CONCURRENCY_FORBID_SKIP:
    return "forbid-skip";
  case CHIME_CONCURRENCY_REPLACE:
    return "replace";
  default:
    return "?";
  }
}

int ctl_jobs_table(ctl *c, const char *text, ctl_table *t) {
  static const char *const heads[] = {
      "group",    "name",    "type",   "concurrency", "durable",
      "recovery", "persist", "paused", "triggers",    "description"};
  static const bool num[] = {false, false, false, false, true,
                             true,  true,  true,  true,  false};
  ctl_table_init(t, heads, num, 10);
  chime_match match;
  const char *pattern;
  char buf[256];
  ctl_pattern(text, &match, &pattern, buf, sizeof buf);
  chime__mysql_rows rows = {0};
  const char *args[] = {c->sched};
  int r =
      ctl_query(c,
                "SELECT j.job_group, j.job_name, j.job_type, j.concurrency, "
                "j.durable, j.requests_recovery, j.persist_data, j.paused, "
                "(SELECT COUNT(*) FROM {P}triggers t WHERE t.sched_name = "
                "j.sched_name AND t.job_group = j.job_group AND t.job_name = "
                "j.job_name), j.description FROM {P}jobs j WHERE j.sched_name "
                "= ? ORDER BY j.job_group, j.job_name",
                args, 1, &rows);
  if (r)
    return r;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    if (!chime__mysql_admin_group_matches(match, pattern,
                                          chime__mysql_rows_text(&rows, i, 0)))
      continue;
    const char *b[4];
    for (int k = 0; k < 4; k++)
      b[k] =
          chime__mysql_rows_int64(&rows, i, (size_t)(4 + k)) ? "true" : "false";
    const char *cells[] = {
        chime__mysql_rows_text(&rows, i, 0),
        chime__mysql_rows_text(&rows, i, 1),
        chime__mysql_rows_text(&rows, i, 2),
        concurrency_name(chime__mysql_rows_int64(&rows, i, 3)),
        b[0],
        b[1],
        b[2],
        b[3],
        chime__mysql_rows_text(&rows, i, 8),
        chime__mysql_rows_text(&rows, i, 9)};
    r = add_row(t, cells);
  }
  return table_end(t, &rows, r);
}

int ctl_cmd_jobs(ctl *c) {
  ctl_table t;
  int r = too_many_args(c, 1, "jobs [GROUP_PATTERN]");
  return r ? r
           : print_table(c, &t,
                         ctl_jobs_table(c, c->argc ? c->argv[0] : NULL, &t));
}

/* Adds row i of a trigger query's result to t. */
static int trigger_row(ctl *c, ctl_table *t, const chime__mysql_rows *rows,
                       size_t i) {
  chime__mysql_admin_trigger tr;
  int r = chime__mysql_admin_trigger_decode(rows, i, &tr);
  if (r < 0)
    return ctl_fail(r, "cannot read trigger %s.%s: %s",
                    chime__mysql_rows_text(rows, i, 0),
                    chime__mysql_rows_text(rows, i, 1), chime_strerror(r));
  char *words = ctl_describe_trigger(&tr);
  char job[400], nl[48], nu[48], pl[48], pu[48], prio[16], nms[32], pms[32];
  snprintf(job, sizeof job, "%s.%s", tr.job_group, tr.job_name);
  ctl_format_time(tr.next_fire_ms, c->zone, nl, sizeof nl);
  ctl_format_time(tr.next_fire_ms, NULL, nu, sizeof nu);
  ctl_format_time(tr.prev_fire_ms, c->zone, pl, sizeof pl);
  ctl_format_time(tr.prev_fire_ms, NULL, pu, sizeof pu);
  snprintf(prio, sizeof prio, "%d", tr.priority);
  snprintf(nms, sizeof nms, "%" PRId64, tr.next_fire_ms);
  snprintf(pms, sizeof pms, "%" PRId64, tr.prev_fire_ms);
  bool has_next = tr.next_fire_ms != CHIME_NO_FIRE_MS;
  bool has_prev = tr.prev_fire_ms != CHIME_NO_FIRE_MS;
  char lower[24], times[400];
  ctl_lower(tr.state, lower, sizeof lower);
  /* chime-web's default: a trigger's next fires as its own zone says. */
  const char *next_zone = c->own_zone_next && tr.zone_name && *tr.zone_name
                              ? tr.zone_name
                          : c->own_zone_next ? "UTC"
                                             : c->zone;
  ctl_next_times(&tr, next_zone, 3, times, sizeof times);
  const char *cells[] = {tr.group,
                         tr.name,
                         job,
                         ctl_kind_name(tr.kind),
                         words ? words : "?",
                         tr.zone_name,
                         lower,
                         has_next ? nl : NULL,
                         has_next ? nu : NULL,
                         has_prev ? pl : NULL,
                         has_prev ? pu : NULL,
                         ctl_misfire_name(tr.misfire),
                         prio,
                         has_next ? nms : NULL,
                         has_prev ? pms : NULL,
                         tr.calendar_name,
                         tr.cron_text,
                         tr.description,
                         times};
  r = add_row(t, cells);
  free(words);
  chime__mysql_admin_trigger_clear(&tr);
  return r;
}

int ctl_triggers_table(ctl *c, const char *text, ctl_table *t) {
  static const char *const heads[] = {
      "group",    "name",    "job",         "kind",      "schedule",
      "zone",     "state",   "next",        "next_utc",  "prev",
      "prev_utc", "misfire", "priority",    "next_ms",   "prev_ms",
      "calendar", "cron",    "description", "next_times"};
  static const bool num[] = {false, false, false, false, false, false, false,
                             false, false, false, false, false, true,  true,
                             true,  false, false, false, false};
  /* The text table leaves out the raw milliseconds and what follows. */
  _Static_assert(sizeof num / sizeof num[0] == sizeof heads / sizeof heads[0],
                 "a type per column");
  ctl_table_init(t, heads, num, sizeof heads / sizeof heads[0]);
  t->shown = 13;
  chime_match match;
  const char *pattern;
  char buf[256];
  ctl_pattern(text, &match, &pattern, buf, sizeof buf);
  chime__mysql_rows rows = {0};
  const char *args[] = {c->sched};
  int r = ctl_query_triggers(
      c, "sched_name = ? ORDER BY trigger_group, trigger_name", args, 1, &rows);
  if (r)
    return r;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++)
    if (chime__mysql_admin_group_matches(match, pattern,
                                         chime__mysql_rows_text(&rows, i, 0)))
      r = trigger_row(c, t, &rows, i);
  return table_end(t, &rows, r);
}

int ctl_cmd_triggers(ctl *c) {
  ctl_table t;
  int r = too_many_args(c, 1, "triggers [GROUP_PATTERN]");
  return r ? r
           : print_table(
                 c, &t, ctl_triggers_table(c, c->argc ? c->argv[0] : NULL, &t));
}
