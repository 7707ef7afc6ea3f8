/*
 * chimectl_drain.c: `chimectl drain NODE [--wait] [--timeout S]` and
 * `chimectl undrain NODE` (include/chime.h: chime_scheduler_drain, whose
 * store step they share): the node learns of the request at its next
 * check-in, stops claiming, lets its runs finish (or hands them over after
 * S seconds) and marks itself DRAINED once it runs nothing; --wait polls
 * the node_drains table until then.  Both are recorded in the audit table
 * by the store's step itself.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* How often --wait looks. */
#define WAIT_POLL_MS 250

/* The drain row of node: *ret_state "DRAINING", "DRAINED" or "" (none),
 * *ret_live whether the node is live, *ret_fires the fires it holds.
 * Returns: 0 or an exit code. */
int ctl_drain_state(ctl *c, const char *node, char *ret_state, size_t len,
                    bool *ret_live, long long *ret_fires) {
  char sql[1024];
  snprintf(sql, sizeof sql,
           "SELECT (SELECT state FROM {P}node_drains WHERE sched_name = ? "
           "AND instance_id = ?), (SELECT COUNT(*) FROM {P}nodes n WHERE "
           "n.sched_name = ? AND n.instance_id = ? AND %s), (SELECT "
           "COUNT(*) FROM {P}fired WHERE sched_name = ? AND node = ?)",
           chime__mysql_admin_node_live_sql());
  const char *args[] = {c->sched, node, c->sched, node, c->sched, node};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c, sql, args, 6, &rows);
  if (r)
    return r;
  snprintf(ret_state, len, "%s",
           chime__mysql_rows_is_null(&rows, 0, 0)
               ? ""
               : chime__mysql_rows_text(&rows, 0, 0));
  *ret_live = chime__mysql_rows_int64(&rows, 0, 1) > 0;
  *ret_fires = chime__mysql_rows_int64(&rows, 0, 2);
  chime__mysql_rows_free(&rows);
  return 0;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* --wait: until the node says DRAINED, or it is gone and holds nothing;
 * at most --timeout plus two check-ins when a timeout was given. */
static int wait_drained(ctl *c, const char *node) {
  for (;;) {
    char state[16];
    bool live;
    long long fires;
    int r = ctl_drain_state(c, node, state, sizeof state, &live, &fires);
    if (r)
      return r;
    if (strcmp(state, "DRAINED") == 0 || (!live && fires == 0))
      return 0;
    if (!state[0])
      return ctl_fail(CHIME_ENOTFOUND, "node %s was undrained while waiting",
                      node);
    sleep_ms(WAIT_POLL_MS);
  }
}

int ctl_drain_node(ctl *c, const char *node, bool drain, long long timeout_ms) {
  if (!*node || strlen(node) > 190)
    return ctl_usage("'%s' is not a node's instance id", node);
  chime_admin *a = NULL;
  int r = ctl_admin(c, &a);
  if (r)
    return r;
  r = chime_admin_set_drain(a, node, drain, timeout_ms > 0 ? timeout_ms : 0,
                            c->who, c->origin);
  if (r == CHIME_ENOTFOUND)
    return ctl_fail(r,
                    drain ? "no node %s in the cluster"
                          : "node %s is not "
                            "drained",
                    node);
  if (r < 0)
    return ctl_fail(r, "cannot %s node %s: %s", drain ? "drain" : "undrain",
                    node, chime_strerror(r));
  return 0;
}

int ctl_cmd_drain(ctl *c, bool drain) {
  if (c->argc != 1 || (!drain && (c->wait || c->timeout_ms >= 0)))
    return ctl_usage(drain ? "usage: chimectl drain NODE [--wait] [--timeout S]"
                           : "usage: chimectl undrain NODE");
  const char *node = c->argv[0];
  int r = ctl_drain_node(c, node, drain, c->timeout_ms);
  if (r == 0 && drain && c->wait)
    r = wait_drained(c, node);
  if (r)
    return r;
  char state[16] = "";
  bool live = false;
  long long fires = 0;
  if ((r = ctl_drain_state(c, node, state, sizeof state, &live, &fires)))
    return r;
  const char *shown = !state[0]                       ? "active"
                      : strcmp(state, "DRAINED") == 0 ? "drained"
                                                      : "draining";
  if (c->json) {
    fputs("{\"ok\": true, \"action\": ", stdout);
    ctl_json_string(drain ? "drained" : "undrained");
    fputs(", \"node\": ", stdout);
    ctl_json_string(node);
    printf(", \"drain\": \"%s\", \"live\": %s, \"fires\": %lld}\n", shown,
           live ? "true" : "false", fires);
  } else if (!drain) {
    printf("undrained node %s: it claims again from its next check-in\n", node);
  } else if (strcmp(shown, "drained") == 0) {
    printf("node %s is drained: it claims and runs nothing\n", node);
  } else {
    printf("node %s is draining: it claims nothing from its next check-in; "
           "%lld fire(s) held (chimectl drain %s --wait waits until it "
           "is empty)\n",
           node, fires, node);
  }
  return 0;
}
