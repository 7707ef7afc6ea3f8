/*
 * defaults.c: prints the default values the code uses, one "key value"
 * line each, for tests/docs/defaults.py to compare with what the pages
 * say.  The engine's come from a fresh chime_config (chime_config_new) and
 * a fresh trigger; the MySQL store's from a scheduler opened on the
 * throwaway MariaDB (CHIME_TEST_MYSQL_URL, table prefix chime_dd_) and
 * read from its store: the connections it opened, the URL parameters'
 * defaults, the history row bound.  Without the database it prints
 * what it can and exits 1 (the test then fails: never a skip).
 */
#include "chime.h"
#include "engine/engine.h"
#include "jobstore/mysql/tx.h"
#include "jobstore/mysql/url.h"
#include "jobstore/store.h"

#include <inttypes.h>
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(const char *key, int64_t value) {
  printf("%s %" PRId64 "\n", key, value);
}

static int engine_defaults(void) {
  chime_config *cfg = NULL;
  if (chime_config_new(&cfg) < 0)
    return 1;
  put("workers", cfg->workers);
  put("local_queue", cfg->local_queue);
  put("batch_size",
      cfg->batch_size ? cfg->batch_size : cfg->workers + cfg->local_queue);
  put("batch_window_ms", cfg->batch_window_ms);
  put("claim_ahead_ms", cfg->claim_ahead_ms);
  put("idle_wait_ms", cfg->idle_wait_ms);
  put("misfire_threshold_ms", cfg->misfire_threshold_ms);
  put("checkin_interval_ms", cfg->checkin_interval_ms);
  put("lease_ms", CHIME__LEASE_FACTOR * cfg->checkin_interval_ms);
  put("cancel_grace_ms", cfg->cancel_grace_ms);
  printf("log_level %s\n", cfg->log_level == CHIME_LOG_WARN ? "WARN" : "?");
  printf("scheduler_name %s\n", cfg->scheduler_name);
  printf("store_url %s\n", cfg->store_url);
  chime_config_free(cfg);
  chime_trigger *t = NULL;
  if (chime_trigger_simple_new("g", "n", 1000, 0, &t, NULL, 0) < 0)
    return 1;
  put("priority", chime_trigger_get_priority(t));
  chime_trigger_free(t);
  chime_enqueue *o = NULL;
  if (chime_enqueue_new(&o) < 0)
    return 1;
  put("enqueue_priority", chime_enqueue_get_priority(o));
  put("enqueue_run_at_ms", chime_enqueue_get_run_at_ms(o));
  put("enqueue_timeout_ms", chime_enqueue_get_timeout_ms(o));
  put("enqueue_batch", CHIME__ENQUEUE_BATCH);
  chime_enqueue_free(o);
  return 0;
}

static int store_defaults(void) {
  const char *base = getenv("CHIME_TEST_MYSQL_URL");
  if (!base || !*base) {
    fprintf(stderr, "defaults: CHIME_TEST_MYSQL_URL is not set: start the "
                    "database (./dev db-up) and export "
                    "CHIME_TEST_MYSQL_URL=$(./dev db-url)\n");
    return 1;
  }
  char url[2300];
  snprintf(url, sizeof url, "%s%sauto_create=1&prefix=chime_dd_", base,
           strchr(base, '?') ? "&" : "?");
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  if (chime_config_new(&cfg) < 0 || chime_config_set_store_url(cfg, url) < 0)
    return 1;
  int r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r < 0) {
    fprintf(stderr, "defaults: cannot open the store: %s: %s\n",
            chime_strerror(r), err);
    return 1;
  }
  chime__mysql_store *st = (chime__mysql_store *)s->store;
  put("pool_connections", (int64_t)st->nconns);
  put("history_retention_ms", st->history_retention_ms);
  put("lock_wait_timeout_s", st->lock_wait_s);
  put("io_timeout_s_one_host", st->io_timeout_s);
  put("history_max_rows", st->history_max_rows);
  put("audit_retention_ms", st->audit_retention_ms);
  put("audit_max_rows", st->audit_max_rows);
  chime_scheduler_free(s);
  /* The prefix and port when the URL names none. */
  chime__mysql_url *u = NULL;
  if (chime__mysql_url_parse("mysql://u@h/db", &u, err, sizeof err) < 0)
    return 1;
  put("port", u->port);
  char prefix[64];
  if (chime__mysql_url_prefix(u, prefix, sizeof prefix, err, sizeof err) < 0)
    return 1;
  printf("prefix %s\n", prefix);
  chime__mysql_url_free(u);
  return 0;
}

int main(void) {
  int r = engine_defaults();
  if (r == 0)
    r = store_defaults();
  mysql_library_end(); /* Connector/C's one-time allocations */
  return r;
}
