/*
 * chimectl_drain.c: `chimectl drain NODE [--wait] [--timeout S]` and
 * `chimectl undrain NODE` (include/chime.h: chime_scheduler_drain, whose
 * store step they share): the node learns of the request at its next
 * check-in, stops claiming, lets its runs finish (or hands them over after
 * S seconds) and marks itself DRAINED once it runs nothing; --wait polls
 * the lists of nodes and fires (chime-admin.h) until then.  Both are recorded
 * in the audit table by the store's step itself.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* How often --wait looks. */
#define WAIT_POLL_MS 250

/* The drain of node: *ret_state "DRAINING", "DRAINED" or "" (none),
 * *ret_live whether the node is live, *ret_fires the fires it holds, by
 * the lists of nodes and fires.  A node no longer listed (it left or died)
 * is not live; its drain, no longer known, counts as still asked
 * ("DRAINING") until it holds nothing.  Returns: 0 or an exit code. */
int ctl_drain_state(ctl *c, const char *node, char *ret_state, size_t len,
                    bool *ret_live, long long *ret_fires) {
  chime_admin_table *nodes = NULL, *fires = NULL;
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_FIRES);
  if (q && chime_admin_query_set_node(q, node) < 0) {
    chime_admin_query_free(q);
    q = NULL;
  }
  int r = ctl_list(c, ctl_list_query(CHIME_ADMIN_NODES), &nodes);
  if (r || (r = ctl_list(c, q, &fires))) {
    chime_admin_table_free(nodes);
    return r;
  }
  snprintf(ret_state, len, "DRAINING");
  *ret_live = false;
  for (size_t i = 0; i < chime_admin_table_get_row_count(nodes); i++) {
    if (strcmp(chime_admin_table_get_text(nodes, i, "id"), node) != 0)
      continue;
    const char *drain = chime_admin_table_get_text(nodes, i, "drain");
    snprintf(ret_state, len, "%s",
             !drain || strcmp(drain, "active") == 0 ? ""
             : strcmp(drain, "drained") == 0        ? "DRAINED"
                                                    : "DRAINING");
    *ret_live = chime_admin_table_get_int64(nodes, i, "live") > 0;
  }
  *ret_fires = (long long)chime_admin_table_get_row_count(fires);
  chime_admin_table_free(nodes);
  chime_admin_table_free(fires);
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
