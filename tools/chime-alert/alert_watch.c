/*
 * alert_watch.c: what chime-alert reads of the store each poll, and the
 * alerts it raises.  A poll is a few lists of chime-admin.h (no table is
 * named here), each an index-backed read in the MySQL store:
 *
 *   - the history's highest id (its newest run), then the failed runs
 *     with ids past the last poll's (chime_admin_query_set_ids); with
 *     --expect, the successes in the same range;
 *   - the nodes rows (one per node), live or dead by the store's rule:
 *     read on their own, every quarter of the shortest check-in interval
 *     (alert_poll_nodes), as a dead node's row may be gone in two;
 *   - the triggers due more than the misfire threshold ago
 *     (chime_admin_query_set_late);
 *   - with --expect, the jobs (the primary key's scheduler prefix).
 *
 * The history is read from the poll before last's end, not the last
 * one's: a row whose id was handed out before the last poll may commit
 * after it, and would otherwise be passed over.  The rows seen twice are
 * told apart by their ids (alert_seen_id).
 */
#include "alert.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The outcomes a failed-run alert is raised for: the run failed, ran out
 * of time, or could not start within its starting deadline.  Not
 * CANCELLED (an operator's act), SKIPPED (a concurrency policy's), RETRIED
 * (a retry follows: its own outcome counts) nor REQUEUED/RECOVERED (a
 * dead node's fire that ran again: the node's death is its own alert). */
static bool is_failure(const char *outcome) {
  return outcome &&
         (strcmp(outcome, "FAILED") == 0 || strcmp(outcome, "TIMED_OUT") == 0 ||
          strcmp(outcome, "MISSED") == 0);
}

/* The tools' own nodes rows (an operator's store checks in as a node):
 * their deaths are no cluster node's. */
static bool is_tool_node(const char *id) {
  static const char *const tools[] = {"chimectl-", "chime-web-",
                                      "chime-alert-"};
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
    if (strncmp(id, tools[i], strlen(tools[i])) == 0)
      return true;
  return false;
}

/* A history query of the runs with ids in (from_id, top], oldest first, a
 * batch at a time; NULL when out of memory (ctl_list says). */
static chime_admin_query *runs_after(int64_t from_id, int64_t top,
                                     const char *outcome, bool failed_only) {
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_HISTORY);
  if (q && (chime_admin_query_set_ids(q, from_id, top) < 0 ||
            chime_admin_query_set_outcome(q, outcome, failed_only) < 0 ||
            chime_admin_query_set_page(q, 0, ALERT_HISTORY_BATCH) < 0)) {
    chime_admin_query_free(q);
    return NULL;
  }
  return q;
}

#define TEXT(t, i, col) chime_admin_table_get_text(t, i, col)
#define INT(t, i, col) chime_admin_table_get_int64(t, i, col)

/* Copies text (NULL: "") into a field of the alert. */
#define SET(field, text)                                                       \
  snprintf(field, sizeof field, "%s", (text) ? (text) : "")

/* ------------------------------------------------------- failed runs */

static int raise_failure(alert_ctx *x, const chime_admin_table *runs,
                         size_t i) {
  alert a = {.fire_id = INT(runs, i, "fire_id"),
             .time_ms = INT(runs, i, "finished_ms"),
             .count = 1};
  SET(a.kind, "run_failed");
  SET(a.status, "firing");
  snprintf(a.job, sizeof a.job, "%s.%s", TEXT(runs, i, "job_group"),
           TEXT(runs, i, "job_name"));
  snprintf(a.trigger, sizeof a.trigger, "%s.%s", TEXT(runs, i, "trigger_group"),
           TEXT(runs, i, "trigger_name"));
  SET(a.node, TEXT(runs, i, "node"));
  SET(a.outcome, TEXT(runs, i, "outcome"));
  const char *err = TEXT(runs, i, "message");
  snprintf(a.key, sizeof a.key, "run_failed:%s", a.job);
  snprintf(a.message, sizeof a.message,
           "job %s failed (%s, fire %" PRId64 " of trigger %s on node %s)%s%s",
           a.job, a.outcome, a.fire_id, a.trigger, a.node, err ? ": " : "",
           err ? err : "");
  return alert_raise(x, &a) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory") : 0;
}

static const alert_expect *expect_of(const alert_ctx *x, const char *job);

/* A success of a job: the expected-period clock of its job restarts. */
static int note_success(alert_ctx *x, const chime_admin_table *runs, size_t i) {
  char key[512];
  snprintf(key, sizeof key, "job_overdue:%s.%s", TEXT(runs, i, "job_group"),
           TEXT(runs, i, "job_name"));
  if (!expect_of(x, key + 12))
    return 0;
  alert_key *k = alert_key_get(x, key);
  if (!k)
    return ctl_fail(CHIME_ENOMEM, "out of memory");
  if (INT(runs, i, "finished_ms") > k->since_ms) {
    k->since_ms = INT(runs, i, "finished_ms");
    x->dirty = true;
  }
  return 0;
}

/* The runs with ids in (from_id, top]: the failed ones raised (successes
 * false), or the successes noted, a batch at a time. */
static int read_runs(alert_ctx *x, int64_t from_id, int64_t top,
                     bool successes) {
  for (;;) {
    chime_admin_table *runs = NULL;
    int r = ctl_list(
        &x->base, runs_after(from_id, top, successes ? "OK" : NULL, !successes),
        &runs);
    size_t n = chime_admin_table_get_row_count(runs);
    for (size_t i = 0; r == 0 && i < n; i++)
      if (successes)
        r = note_success(x, runs, i);
      else if (is_failure(TEXT(runs, i, "outcome")) &&
               !alert_seen_id(x, INT(runs, i, "id")))
        r = raise_failure(x, runs, i);
    if (n > 0)
      from_id = INT(runs, n - 1, "id");
    chime_admin_table_free(runs);
    if (r || n < ALERT_HISTORY_BATCH)
      return r;
  }
}

/* The history's highest id into *ret (0: empty): its newest run's. */
static int history_top(alert_ctx *x, int64_t *ret) {
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_HISTORY);
  if (q && chime_admin_query_set_page(q, 0, 1) < 0) {
    chime_admin_query_free(q);
    q = NULL;
  }
  chime_admin_table *t = NULL;
  int r = ctl_list(&x->base, q, &t);
  *ret = chime_admin_table_get_row_count(t) ? INT(t, 0, "id") : 0;
  chime_admin_table_free(t);
  return r;
}

static int poll_history(alert_ctx *x) {
  int64_t top = 0;
  int r = history_top(x, &top);
  if (r)
    return r;
  if (x->last_id < 0) { /* a first start: from now on */
    x->last_id = x->overlap_id = top;
    x->dirty = true;
    return 0;
  }
  if (top < x->last_id) { /* emptied or made anew: its ids start again */
    x->last_id = x->overlap_id = 0;
    x->nseen = 0;
    x->dirty = true;
  }
  if (top == x->last_id)
    return 0;
  if ((r = read_runs(x, x->overlap_id, top, false)))
    return r;
  if (x->nexpect > 0 && (r = read_runs(x, x->overlap_id, top, true)))
    return r;
  x->overlap_id = x->last_id;
  x->last_id = top;
  alert_seen_prune(x);
  x->dirty = true;
  return 0;
}

/* A failed-run key whose window passed with failures it did not send:
 * one alert counts them, so no failure goes unsaid. */
static int flush_suppressed(alert_ctx *x) {
  for (size_t i = 0; i < x->nkeys; i++) {
    alert_key *k = &x->keys[i];
    if (strncmp(k->key, "run_failed:", 11) != 0 || k->suppressed == 0 ||
        x->now_ms - k->last_sent_ms < x->dedup_window_ms)
      continue;
    alert a = {.time_ms = x->now_ms, .count = k->suppressed};
    SET(a.kind, "run_failed");
    SET(a.status, "firing");
    SET(a.key, k->key);
    SET(a.job, k->key + 11);
    snprintf(a.message, sizeof a.message,
             "job %s failed %" PRId64 " more time%s in the last %" PRId64
             " s (after the failure already alerted)",
             a.job, k->suppressed, k->suppressed == 1 ? "" : "s",
             x->dedup_window_ms / 1000);
    k->suppressed = 0; /* counted in a.count: the window has passed */
    if (alert_raise(x, &a) < 0)
      return ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  return 0;
}

/* ------------------------------------------------------- nodes */

/* Marks the keys of a kind unseen. */
static void unsee(alert_ctx *x, const char *prefix) {
  for (size_t i = 0; i < x->nkeys; i++)
    if (strncmp(x->keys[i].key, prefix, strlen(prefix)) == 0)
      x->keys[i].seen = false;
}

static int node_alert(alert_ctx *x, const char *id, bool firing,
                      const char *why) {
  alert a = {.time_ms = x->now_ms};
  SET(a.kind, "node_dead");
  SET(a.status, firing ? "firing" : "resolved");
  SET(a.node, id);
  snprintf(a.key, sizeof a.key, "node_dead:%s", id);
  snprintf(a.message, sizeof a.message, "node %s %s", id, why);
  return alert_raise(x, &a) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory") : 0;
}

/* A node row gone: a clean stop removes its own row while its check-in is
 * fresh; the cluster's recovery removes a dead node's, whose check-in was
 * stale when last seen (so the nodes are read every quarter of the
 * shortest check-in interval: poll_nodes).  A dead node's key
 * is kept a window after its row went, for a restart to resolve. */
static int nodes_gone(alert_ctx *x) {
  for (size_t i = 0; i < x->nkeys;) {
    alert_key *k = &x->keys[i];
    if (k->seen || strncmp(k->key, "node_dead:", 10) != 0) {
      i++;
      continue;
    }
    if (!k->firing && k->stale) {
      char id[256];
      snprintf(id, sizeof id, "%s", k->key + 10);
      int r = node_alert(x, id, true,
                         "died: its check-in stopped and the cluster "
                         "recovered it (its row is gone)");
      if (r)
        return r;
      i++; /* its key existed: alert_raise moved nothing */
    } else if (!k->firing || x->now_ms - k->since_ms > x->dedup_window_ms) {
      alert_key_drop(x, k);
    } else {
      i++;
    }
  }
  return 0;
}

/* The list of kind (chime-admin.h) on the store into *ret.  Returns: 0 or
 * an exit code (said why). */
static int list(alert_ctx *x, chime_admin_kind kind, chime_admin_table **ret) {
  return ctl_list(&x->base, ctl_list_query(kind), ret);
}

static int poll_nodes(alert_ctx *x) {
  chime_admin_table *nodes = NULL;
  int r = list(x, CHIME_ADMIN_NODES, &nodes);
  if (r)
    return r;
  unsee(x, "node_dead:");
  int64_t shortest = INT64_MAX;
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(nodes);
       i++) {
    const char *id = chime_admin_table_get_text(nodes, i, "id");
    if (is_tool_node(id))
      continue;
    int64_t last = chime_admin_table_get_int64(nodes, i, "last_checkin_ms");
    int64_t interval =
        chime_admin_table_get_int64(nodes, i, "checkin_interval_ms");
    if (interval > 0 && interval < shortest)
      shortest = interval;
    bool live = chime_admin_table_get_int64(nodes, i, "live") != 0;
    char why[256], age[32];
    ctl_format_age(x->now_ms - last, age, sizeof age);
    snprintf(why, sizeof why,
             live ? "checks in again"
                  : "is dead: no check-in for %s (its lease ran out)",
             age);
    if ((r = node_alert(x, id, !live, why)))
      break;
    char key[256];
    snprintf(key, sizeof key, "node_dead:%s", id);
    alert_key *k = alert_key_get(x, key);
    if (!k) {
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
      break;
    }
    bool stale = (x->now_ms - last) * 2 > interval * 3;
    if (k->stale != stale) /* the check-in times alone are not saved */
      x->dirty = true;
    k->seen = true;
    k->since_ms = last;
    k->stale = stale;
  }
  chime_admin_table_free(nodes);
  /* Read again within a quarter of the shortest check-in interval: a dead
   * node's row lives two to three intervals before a survivor removes it,
   * and its last sight must find it over 1.5 intervals old. */
  int64_t every = (int64_t)(x->interval_s * 1000); /* at most an hour */
  if (shortest != INT64_MAX && shortest / 4 < every)
    every = shortest / 4;
  x->nodes_every_ms = every < 50 ? 50 : every;
  return r ? r : nodes_gone(x);
}

/* ------------------------------------------------------- misfires */

static int poll_misfires(alert_ctx *x) {
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_TRIGGERS);
  if (q &&
      (chime_admin_query_set_late(q, x->now_ms - x->misfire_threshold_ms) < 0 ||
       chime_admin_query_set_page(q, 0, ALERT_HISTORY_BATCH) < 0)) {
    chime_admin_query_free(q);
    q = NULL;
  }
  chime_admin_table *late = NULL;
  int r = ctl_list(&x->base, q, &late);
  if (r)
    return r;
  size_t nlate = chime_admin_table_get_row_count(late);
  unsee(x, "misfire:");
  for (size_t i = 0; r == 0 && i < nlate; i++) {
    alert a = {.time_ms = x->now_ms};
    SET(a.kind, "misfire");
    SET(a.status, "firing");
    snprintf(a.trigger, sizeof a.trigger, "%s.%s", TEXT(late, i, "group"),
             TEXT(late, i, "name"));
    snprintf(a.job, sizeof a.job, "%s.%s", TEXT(late, i, "job_group"),
             TEXT(late, i, "job_name"));
    snprintf(a.key, sizeof a.key, "misfire:%s", a.trigger);
    char age[32], due_at[48];
    ctl_format_age(x->now_ms - INT(late, i, "next_fire_ms"), age, sizeof age);
    ctl_format_time(INT(late, i, "next_fire_ms"), NULL, due_at, sizeof due_at);
    snprintf(a.message, sizeof a.message,
             "trigger %s (job %s) was due at %s and no node has fired it: "
             "%s late, past the misfire threshold",
             a.trigger, a.job, due_at, age);
    if (alert_raise(x, &a) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
    alert_key *k = alert_key_find(x, a.key);
    if (k)
      k->seen = true;
  }
  /* Past the first batch the rest are not known: none is resolved. */
  bool complete = nlate < ALERT_HISTORY_BATCH;
  chime_admin_table_free(late);
  for (size_t i = 0; r == 0 && complete && i < x->nkeys;) {
    alert_key *k = &x->keys[i];
    if (k->seen || strncmp(k->key, "misfire:", 8) != 0) {
      i++;
      continue;
    }
    alert a = {.time_ms = x->now_ms};
    SET(a.kind, "misfire");
    SET(a.status, "resolved");
    SET(a.key, k->key);
    SET(a.trigger, k->key + 8);
    snprintf(a.message, sizeof a.message,
             "trigger %s is no longer late (it fired, moved on or went)",
             a.trigger);
    if (alert_raise(x, &a) < 0)
      return ctl_fail(CHIME_ENOMEM, "out of memory");
    alert_key_drop(x, alert_key_find(x, a.key));
  }
  return r;
}

/* ------------------------------------------------------- overdue jobs */

static bool part_matches(const char *pattern, const char *text) {
  size_t n = strlen(pattern);
  if (n > 0 && pattern[n - 1] == '*')
    return strncmp(pattern, text, n - 1) == 0;
  return strcmp(pattern, text) == 0;
}

bool alert_expect_matches(const alert_expect *e, const char *group,
                          const char *name) {
  return part_matches(e->group, group) && part_matches(e->name, name);
}

static int overdue_alert(alert_ctx *x, const char *job, alert_key *k,
                         int64_t period_ms, bool firing) {
  alert a = {.time_ms = x->now_ms};
  SET(a.kind, "job_overdue");
  SET(a.status, firing ? "firing" : "resolved");
  SET(a.key, k->key);
  SET(a.job, job);
  char age[32], period[32];
  ctl_format_age(x->now_ms - k->since_ms, age, sizeof age);
  ctl_format_age(period_ms, period, sizeof period);
  if (firing)
    snprintf(a.message, sizeof a.message,
             "job %s has not succeeded for %s (expected within %s)", job, age,
             period);
  else
    snprintf(a.message, sizeof a.message, "job %s succeeded again", job);
  return alert_raise(x, &a) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory") : 0;
}

/* The --expect pattern that counts for job "G.N" (split at its first
 * dot, as keys are), or NULL. */
static const alert_expect *expect_of(const alert_ctx *x, const char *job) {
  const char *dot = strchr(job, '.');
  char group[192];
  if (!dot || (size_t)(dot - job) >= sizeof group)
    return NULL;
  snprintf(group, sizeof group, "%.*s", (int)(dot - job), job);
  for (size_t j = 0; j < x->nexpect; j++)
    if (alert_expect_matches(&x->expect[j], group, dot + 1))
      return &x->expect[j];
  return NULL;
}

/* The jobs --expect names, read every ALERT_JOBS_EVERY_MS (the whole
 * jobs list of the scheduler: not every poll): a key for each, a
 * deleted job's key dropped, and whether each is paused. */
static int read_expected_jobs(alert_ctx *x) {
  chime_admin_table *jobs = NULL;
  int r = list(x, CHIME_ADMIN_JOBS, &jobs);
  if (r)
    return r;
  unsee(x, "job_overdue:");
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(jobs); i++) {
    char key[512];
    snprintf(key, sizeof key, "job_overdue:%s.%s",
             chime_admin_table_get_text(jobs, i, "group"),
             chime_admin_table_get_text(jobs, i, "name"));
    if (!expect_of(x, key + 12))
      continue;
    alert_key *k = alert_key_get(x, key);
    if (!k) {
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
      break;
    }
    k->seen = true;
    k->paused = chime_admin_table_get_int64(jobs, i, "paused") != 0;
    /* First seen, or paused: its period starts now (a job resumed after
     * a week is not overdue at once). */
    if (k->since_ms == 0 || k->paused) {
      k->since_ms = x->now_ms;
      x->dirty = true;
    }
  }
  chime_admin_table_free(jobs);
  for (size_t i = 0; r == 0 && i < x->nkeys;) {
    if (!x->keys[i].seen && strncmp(x->keys[i].key, "job_overdue:", 12) == 0)
      alert_key_drop(x, &x->keys[i]); /* deleted, or no longer expected */
    else
      i++;
  }
  return r;
}

static int poll_overdue(alert_ctx *x) {
  if (x->nexpect == 0)
    return 0;
  uint64_t now = alert_mono_ns();
  if (now >= x->jobs_read_ns) {
    int r = read_expected_jobs(x);
    if (r)
      return r;
    x->jobs_read_ns = now + ALERT_JOBS_EVERY_MS * 1000000ull;
  }
  for (size_t i = 0; i < x->nkeys; i++) {
    alert_key *k = &x->keys[i];
    if (strncmp(k->key, "job_overdue:", 12) != 0 || k->paused)
      continue;
    const alert_expect *e = expect_of(x, k->key + 12);
    bool late = e && x->now_ms - k->since_ms > e->period_ms;
    if (e && late != k->firing) {
      int r = overdue_alert(x, k->key + 12, k, e->period_ms, late);
      if (r)
        return r;
    }
  }
  return 0;
}

int alert_store_down(alert_ctx *x, bool down, const char *why) {
  alert_poll_begin(x); /* after the poll: its own count */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts); /* the database's clock is out */
  x->now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  alert a = {.time_ms = x->now_ms};
  SET(a.kind, "store_down");
  SET(a.status, down ? "firing" : "resolved");
  snprintf(a.key, sizeof a.key, "store_down:%s", x->base.sched);
  snprintf(a.message, sizeof a.message, "%s%s",
           down ? "chime-alert cannot read the cluster's database: "
                : "chime-alert reads the cluster's database again",
           down ? why : "");
  return alert_raise(x, &a) < 0 ? ctl_fail(CHIME_ENOMEM, "out of memory") : 0;
}

int alert_poll(alert_ctx *x) {
  int r = ctl_open(&x->base, NULL);
  if (r)
    return r;
  x->now_ms = ctl_now(&x->base);
  alert_poll_begin(x);
  if ((r = poll_history(x)) == 0 && (r = flush_suppressed(x)) == 0 &&
      (r = poll_misfires(x)) == 0)
    r = poll_overdue(x);
  /* What was raised before a failure is summed up too. */
  if (alert_poll_end(x) < 0 && r == 0)
    r = ctl_fail(CHIME_ENOMEM, "out of memory");
  return r;
}

int alert_poll_nodes(alert_ctx *x) {
  int r = ctl_open(&x->base, NULL);
  if (r)
    return r;
  x->now_ms = ctl_now(&x->base); /* the store's measured offset: no query */
  alert_poll_begin(x);
  r = poll_nodes(x);
  if (alert_poll_end(x) < 0 && r == 0)
    r = ctl_fail(CHIME_ENOMEM, "out of memory");
  return r;
}
