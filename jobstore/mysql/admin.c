/*
 * mysql/admin.c: the test fixtures' and the bench's interface to the
 * MySQL store (admin.h), built from the store's own pieces:
 * chime__mysql_store_open and its ops for the actions,
 * CHIME__MYSQL_NODE_LIVE_SQL for the liveness rule and the schema reader
 * of schema.c.
 *
 * Threads: an operator's store is one store with one connection; admin.h
 * asks for one thread at a time, the store would serialise more anyway.
 */
#include "jobstore/mysql/admin.h"

#include "jobstore/admin.h"
#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/schema.h"
#include "jobstore/mysql/tables.h"
#include "jobstore/mysql/tx.h"
#include "jobstore/store.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plain connections time out connecting after this long. */
#define CONNECT_TIMEOUT_S 10

struct chime__mysql_admin {
  chime_store *store;    /* the MySQL store */
  chime__mysql_store *s; /* the same, as its handle */
};

int chime__mysql_admin_connect(const chime__mysql_url *url,
                               unsigned connect_timeout_s,
                               unsigned io_timeout_s, MYSQL **ret_db,
                               char *errbuf, size_t errbuf_len) {
  assert(url && ret_db);
  return chime__mysql_connect_io(url, connect_timeout_s, io_timeout_s, ret_db,
                                 errbuf, errbuf_len);
}

int chime__mysql_admin_schema_state(const char *text, long *ret_version,
                                    long *ret_latest, long *ret_compat,
                                    char *errbuf, size_t errbuf_len) {
  assert(text && ret_version && ret_latest && ret_compat);
  *ret_compat = 0;
  chime__mysql_url *url = NULL;
  char prefix[CHIME__MYSQL_PREFIX_MAX + 1];
  MYSQL *db = NULL;
  int r = chime__mysql_url_parse(text, &url, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mysql_url_prefix(url, prefix, sizeof prefix, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mysql_admin_connect(url, CONNECT_TIMEOUT_S, 0, &db, errbuf,
                                   errbuf_len);
  if (r == 0)
    r = chime__mysql_schema_version(db, prefix, ret_version, errbuf,
                                    errbuf_len);
  if (r == 0 && *ret_version > (long)chime__mysql_migration_count)
    r = chime__mysql_schema_compat(db, prefix, *ret_version, ret_compat, errbuf,
                                   errbuf_len);
  if (db)
    mysql_close(db);
  chime__mysql_url_free(url);
  *ret_latest = (long)chime__mysql_migration_count;
  return r;
}

int chime__mysql_admin_open(const char *url, const char *extra,
                            const char *sched, const char *instance_id,
                            chime__mysql_admin **ret, char *errbuf,
                            size_t errbuf_len) {
  assert(url && ret);
  chime__mysql_url *u = NULL;
  int r = chime__mysql_url_parse(url, &u, errbuf, errbuf_len);
  if (r < 0)
    return r;
  const char *clear = chime__mysql_url_param(u, "clear");
  bool wipes = clear && (strcmp(clear, "1") == 0 || strcmp(clear, "true") == 0);
  chime__mysql_url_free(u);
  if (wipes) {
    snprintf(errbuf, errbuf_len,
             "the URL says clear=1, which would delete every row of the "
             "cluster: remove it");
    return CHIME_EINVAL;
  }
  char *joined = NULL;
  if (extra) {
    size_t len = strlen(url) + strlen(extra) + 2;
    if (!(joined = malloc(len)))
      return CHIME_ENOMEM;
    snprintf(joined, len, "%s%c%s", url, strchr(url, '?') ? '&' : '?', extra);
    url = joined;
  }
  chime__mysql_admin *a = calloc(1, sizeof *a);
  chime_store_options o = {.scheduler_name = sched,
                           .instance_id = instance_id,
                           .connections = 1,
                           .checkin_interval_ms = CHIME__MYSQL_ADMIN_CHECKIN_MS,
                           .log_level = CHIME_LOG_ERROR};
  r = a ? chime__mysql_store_open(url, &o, &a->store, errbuf, errbuf_len)
        : CHIME_ENOMEM;
  free(joined);
  if (r < 0) {
    free(a);
    return r;
  }
  a->s = chime__mysql_store_of(a->store);
  *ret = a;
  return 0;
}

void chime__mysql_admin_free(chime__mysql_admin *a) {
  if (!a)
    return;
  a->store->ops->free(a->store);
  free(a);
}

chime__mysql_store *chime__mysql_admin_store(chime__mysql_admin *a) {
  assert(a);
  return a->s;
}

int64_t chime__mysql_admin_now(chime__mysql_admin *a) {
  assert(a);
  return a->store->ops->now(a->store);
}

const char *chime__mysql_admin_node_live_sql(void) {
  return CHIME__MYSQL_NODE_LIVE_SQL("n.");
}

/* ----------------------------------------------------------- actions */

int chime__mysql_admin_schedule(chime__mysql_admin *a, const chime_job *job,
                                const chime_trigger *trigger, char *errbuf,
                                size_t errbuf_len) {
  assert(a && job);
  int r = a->store->ops->job_add(a->store, job, true);
  if (r == 0 && trigger)
    r = a->store->ops->trigger_add(a->store, NULL, trigger, true, NULL, errbuf,
                                   errbuf_len);
  return r;
}

int chime__mysql_admin_interrupt(chime__mysql_admin *a, const char *group,
                                 const char *name, int64_t fire_id,
                                 size_t *ret_count) {
  assert(a);
  return a->store->ops->interrupt(a->store, group, name, fire_id, ret_count);
}

/* ----------------------------------------------------- audit and drains */
