/*
 * chimectl_running.c: the cluster's activity as the operators' pages show
 * it: the fires claimed or running now (`chimectl running`), the last
 * hour minute by minute (fires, failures, lateness), node events
 * (`chimectl events`), each from the store's operators' lists
 * (chime-admin.h); live and dead are the store's own rule.
 */
#include "chimectl.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds a row of cells to t.  Returns: 0 or an exit code. */
static int add_row(ctl_table *t, const char *const *cells) {
  return ctl_table_add(t, cells) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory")
                                     : 0;
}

/* Frees list l, and t when r (an exit code) says it failed.  Returns: r. */
static int table_end(ctl_table *t, chime_admin_table *l, int r) {
  if (r)
    ctl_table_free(t);
  chime_admin_table_free(l);
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
    r = add_row(t, cells);
  }
  return table_end(t, l, r);
}

/* The rows of list q (freed) into t, whose columns are the list's
 * columns cols, as text (null cells NULL); t freed on failure. */
static int list_table(ctl *c, chime_admin_query *q, const char *const *cols,
                      ctl_table *t) {
  chime_admin_table *l = NULL;
  int r = ctl_list(c, q, &l);
  const char *cells[8];
  assert(t->ncols <= 8);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++) {
    for (size_t k = 0; k < t->ncols; k++)
      cells[k] = chime_admin_table_get_text(l, i, cols[k]);
    r = add_row(t, cells);
  }
  return table_end(t, l, r);
}

int ctl_activity_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {"minute_ms", "fires", "failures",
                                      "late_avg_ms", "late_max_ms"};
  static const bool num[] = {true, true, true, true, true};
  ctl_table_init(t, heads, num, 5);
  /* One row per minute of the last hour that had fires (the store's
   * CHIME_ADMIN_ACTIVITY: lateness of the scheduled runs only). */
  int r = ctl_open(c, NULL);
  if (r) {
    ctl_table_free(t);
    return r;
  }
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_ACTIVITY);
  int64_t from = ctl_now(c) - 3600000;
  if (q && chime_admin_query_set_started(q, from > 0 ? from : 0, 0) < 0) {
    chime_admin_query_free(q);
    q = NULL;
  }
  return list_table(c, q, heads, t);
}

int ctl_events_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {"time_ms", "node", "event", "detail"};
  static const bool num[] = {true, false, false, false};
  ctl_table_init(t, heads, num, 4);
  /* The store's CHIME_ADMIN_EVENTS: a node's start, the fires its recovery
   * ended (the node lost them), a cancel; the last 100. */
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_EVENTS);
  if (q)
    chime_admin_query_set_page(q, 0, 100);
  static const char *const cols[] = {"time_ms", "node", "event", "detail"};
  return list_table(c, q, cols, t);
}

/* `chimectl running` and `chimectl events`: the tables above, printed. */
static int print_query(ctl *c, const char *usage,
                       int (*query)(ctl *, ctl_table *)) {
  if (c->argc > 0)
    return ctl_usage("usage: chimectl %s", usage);
  ctl_table t;
  return ctl_table_end(c, &t, query(c, &t));
}

int ctl_cmd_running(ctl *c) {
  return print_query(c, "running", ctl_running_table);
}

int ctl_cmd_events(ctl *c) {
  return print_query(c, "events", ctl_events_table);
}
