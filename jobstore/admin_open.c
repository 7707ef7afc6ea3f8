/*
 * admin_open.c: chime_admin_open (chime-admin.h): a cluster's store opened
 * by URL for an operator, as a node that never claims anything and is
 * left out of the nodes it lists (the tools' stores always were such
 * nodes).  Like open.c, whose chime__store_open it calls, it sits above
 * both stores and includes neither's private header.
 */
#include "jobstore/admin.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* An operator's store checks in this seldom: it never claims, and a tool
 * that lives long checks in on its own timer. */
#define ADMIN_CHECKIN_MS 10000

/* Whether url's parameters say clear=1 (or true): a test's or demo's URL
 * pasted into a tool would delete every row of the cluster at open. */
static bool url_clears(const char *url) {
  const char *q = strchr(url, '?');
  while (q) {
    q++;
    if (strncmp(q, "clear=1", 7) == 0 && (q[7] == '&' || q[7] == '\0'))
      return true;
    if (strncmp(q, "clear=true", 10) == 0 && (q[10] == '&' || q[10] == '\0'))
      return true;
    q = strchr(q, '&');
  }
  return false;
}

int chime_admin_open(const char *url, const char *scheduler_name,
                     chime_admin **ret, char *errbuf, size_t errbuf_len) {
  if (errbuf && errbuf_len)
    errbuf[0] = '\0';
  if (!url || !ret)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "no store URL or no place for the handle");
  *ret = NULL;
  if (strncmp(url, "memory:", 7) == 0)
    return chime__record_err(
        errbuf, errbuf_len, CHIME_EUNSUPPORTED,
        "the memory store lives in its scheduler's process: open it with "
        "chime_admin_open_scheduler");
  if (url_clears(url))
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "the URL says clear=1, which would delete every "
                             "row of the cluster: remove it");
  char node[64];
  snprintf(node, sizeof node, "chime-admin-%ld", (long)getpid());
  chime_store_options o = {.scheduler_name =
                               scheduler_name ? scheduler_name : "chime",
                           .instance_id = node,
                           .connections = 1,
                           .checkin_interval_ms = ADMIN_CHECKIN_MS,
                           .log_level = CHIME_LOG_ERROR};
  chime_store *store = NULL;
  int r = chime__store_open(url, &o, &store, errbuf, errbuf_len);
  if (r == 0 && (r = chime__admin_wrap(store, true, true, ret)) < 0)
    store->ops->free(store);
  return r;
}
