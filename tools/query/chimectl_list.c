/*
 * chimectl_list.c: the read-only listings of chimectl: `nodes` and `jobs`
 * from the store's operators' lists (chime-admin.h, by column name),
 * `triggers` too; printed as a table or JSON.
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

/* Prints and frees a table a query filled.  Returns r. */
static int print_table(const ctl *c, ctl_table *t, int r) {
  return ctl_table_end(c, t, r);
}

static int add_row(ctl_table *t, const char *const *cells) {
  return ctl_table_add(t, cells) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory")
                                     : 0;
}

/* Lists q (freed here) into *ret.  Returns: 0 or an exit code. */
/* Frees l; on error also t.  Returns r. */
static int list_end(ctl_table *t, chime_admin_table *l, int r) {
  if (r)
    ctl_table_free(t);
  chime_admin_table_free(l);
  return r;
}

int ctl_nodes_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {
      "id",    "host",  "pid",     "version",       "checkin_age",
      "state", "drain", "running", "checkin_age_ms"};
  static const bool num[] = {false, false, true, false, false,
                             false, false, true, true};
  ctl_table_init(t, heads, num, 9);
  t->shown = 8;
  /* chimectl's own store holds a nodes row while it runs: the lists leave
   * it out.  Live or dead by the store's own rule. */
  chime_admin_table *l = NULL;
  int r = ctl_list(c, ctl_list_query(CHIME_ADMIN_NODES), &l);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++) {
#define TEXT(col) chime_admin_table_get_text(l, i, col)
    int64_t age_ms = chime_admin_table_get_int64(l, i, "checkin_age_ms");
    char age[32];
    ctl_format_age(age_ms, age, sizeof age);
    const char *cells[] = {TEXT("id"),
                           TEXT("host"),
                           TEXT("pid"),
                           TEXT("version"),
                           age,
                           chime_admin_table_get_int64(l, i, "live") ? "live"
                                                                     : "dead",
                           TEXT("drain"),
                           TEXT("running"),
                           TEXT("checkin_age_ms")};
#undef TEXT
    r = add_row(t, cells);
  }
  return list_end(t, l, r);
}

int ctl_cmd_nodes(ctl *c) {
  ctl_table t;
  int r = too_many_args(c, 0, "nodes");
  return r ? r : print_table(c, &t, ctl_nodes_table(c, &t));
}

int ctl_jobs_table(ctl *c, const char *text, ctl_table *t) {
  static const char *const heads[] = {
      "group",    "name",    "type",   "concurrency", "durable",
      "recovery", "persist", "paused", "triggers",    "description"};
  static const bool num[] = {false, false, false, false, true,
                             true,  true,  true,  true,  false};
  ctl_table_init(t, heads, num, 10);
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_JOBS);
  if (q && chime_admin_query_set_group(q, text) < 0) {
    chime_admin_query_free(q);
    return ctl_usage("'%s' is not a group pattern", text);
  }
  chime_admin_table *l = NULL;
  int r = ctl_list(c, q, &l);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++) {
#define TEXT(col) chime_admin_table_get_text(l, i, col)
#define FLAG(col) (chime_admin_table_get_int64(l, i, col) ? "true" : "false")
    const char *cells[] = {TEXT("group"),    TEXT("name"),
                           TEXT("type"),     TEXT("concurrency"),
                           FLAG("durable"),  FLAG("recovery"),
                           FLAG("persist"),  FLAG("paused"),
                           TEXT("triggers"), TEXT("description")};
#undef FLAG
#undef TEXT
    r = add_row(t, cells);
  }
  return list_end(t, l, r);
}

int ctl_cmd_jobs(ctl *c) {
  ctl_table t;
  int r = too_many_args(c, 1, "jobs [GROUP_PATTERN]");
  return r ? r
           : print_table(c, &t,
                         ctl_jobs_table(c, c->argc ? c->argv[0] : NULL, &t));
}

/* Adds row i of the trigger list l to t. */
static int trigger_row(ctl *c, ctl_table *t, const chime_admin_table *l,
                       size_t i) {
  ctl_trigger tr;
  int r = ctl_trigger_read(l, i, &tr);
  if (r < 0)
    return ctl_fail(r, "cannot read trigger %s.%s: %s",
                    chime_admin_table_get_text(l, i, "group"),
                    chime_admin_table_get_text(l, i, "name"),
                    chime_strerror(r));
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
  ctl_trigger_clear(&tr);
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
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_TRIGGERS);
  if (q && chime_admin_query_set_group(q, text) < 0) {
    chime_admin_query_free(q);
    return ctl_usage("'%s' is not a group pattern", text);
  }
  chime_admin_table *l = NULL;
  int r = ctl_list(c, q, &l);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++)
    r = trigger_row(c, t, l, i);
  return list_end(t, l, r);
}

int ctl_cmd_triggers(ctl *c) {
  ctl_table t;
  int r = too_many_args(c, 1, "triggers [GROUP_PATTERN]");
  return r ? r
           : print_table(
                 c, &t, ctl_triggers_table(c, c->argc ? c->argv[0] : NULL, &t));
}
