/*
 * mysql/store.c: the MySQL/MariaDB store (jobstore/store.h): opening it
 * from a URL and the ops table (ops.h names the file of each op).  tx.c
 * holds the store object (chime__mysql_store_of), its pool and lock,
 * transactions and clock beneath it, so the ops' files call down into tx.c
 * and never up into this table; docs/schema.md maps the other files.
 *
 * URL parameters read here: prefix (table prefix, default "chime_"),
 * auto_create=1, migrate=1 (schema.c), clear=1 (delete this
 * scheduler's rows at open: tests and demos), history_retention_ms
 * (default 7 days), history_max_rows (default 1,000,000),
 * audit_retention_ms (default 90 days), audit_max_rows (default 100,000),
 * lock_wait_timeout_s (InnoDB's lock wait, default 1;
 * a timeout is retried), test_clock_offset_ms (tests only: skews this
 * node's local clock by that many milliseconds, as a wrong system clock
 * would; the store's clock still follows the database's).
 *
 * Threads: open and free run on one thread with no other user of the
 * store; tx.h says how the ops share it in between.
 */
#include "jobstore/mysql/ops.h"
#include "jobstore/mysql/limit.h"
#include "jobstore/mysql/shards.h"

#include "core/clock.h"
#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/schema.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_CHECKIN_MS 1000 /* as the engine's default */
/* The read/write timeout with several hosts (url.h says why). */
#define DEFAULT_MEMBER_IO_TIMEOUT_S CHIME__MYSQL_MEMBER_IO_TIMEOUT_S
#define DEFAULT_RETENTION_MS (7 * INT64_C(86400000))
/* At most this many history rows are kept (retain.c), whatever the
 * retention: about 17 minutes at 1,000 fires/s (docs/schema.md). */
#define DEFAULT_MAX_ROWS 1000000
/* The audit trail of operator actions: kept 90 days, 100,000 rows. */
#define DEFAULT_AUDIT_RETENTION_MS (90 * INT64_C(86400000))
#define DEFAULT_AUDIT_MAX_ROWS 100000
#define MAX_CONNECTIONS 64

/* --------------------------------------------------------------- open */

static void store_free(chime_store *store) {
  if (!store)
    return;
  chime__mysql_store *s = chime__mysql_store_of(store);
  if (s->node_claimed)
    chime__mysql_node_leave(s);
  for (size_t i = 0; s->conns && i < s->nconns; i++)
    chime__mysql_conn_reset(&s->conns[i], true);
  chime__mysql_conn_reset(&s->beat, true);
  free(s->conns);
  for (size_t i = 0; i < CHIME__Q_COUNT; i++)
    free(s->sql[i]);
  chime__mysql_url_free(s->url);
  free(s->sched);
  free(s->node);
  free(s->tags);
  chime__mysql_limits_free(s);
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->freed);
  pthread_mutex_destroy(&s->done_mu);
  pthread_mutex_destroy(&s->beat_lock);
  pthread_mutex_destroy(&s->held_mu);
  free(s->held);
  s->magic = 0;
  free(s);
}

static const chime_store_ops mysql_ops = {
    .name = "mysql",
    .free = store_free,
    .now = chime__mysql_now,
    .job_add = chime__mysql_job_add,
    .job_remove = chime__mysql_job_remove,
    .job_get = chime__mysql_job_get,
    .job_list = chime__mysql_job_list,
    .trigger_add = chime__mysql_trigger_add,
    .trigger_remove = chime__mysql_trigger_remove,
    .trigger_replace = chime__mysql_trigger_replace,
    .trigger_get = chime__mysql_trigger_get,
    .trigger_list = chime__mysql_trigger_list,
    .trigger_list_for_job = chime__mysql_trigger_list_for_job,
    .trigger_status = chime__mysql_trigger_status,
    .calendar_add = chime__mysql_calendar_add,
    .calendar_remove = chime__mysql_calendar_remove,
    .calendar_get = chime__mysql_calendar_get,
    .pause_trigger = chime__mysql_pause_trigger,
    .resume_trigger = chime__mysql_resume_trigger,
    .pause_job = chime__mysql_pause_job,
    .resume_job = chime__mysql_resume_job,
    .pause_group = chime__mysql_pause_group,
    .resume_group = chime__mysql_resume_group,
    .pause_all = chime__mysql_pause_all,
    .resume_all = chime__mysql_resume_all,
    .acquire = chime__mysql_acquire,
    .fire = chime__mysql_fire,
    .acquire_due = chime__mysql_acquire_due,
    .complete = chime__mysql_complete,
    .complete_many = chime__mysql_complete_many,
    .release = chime__mysql_release,
    .still_owned = chime__mysql_still_owned,
    .next_due = chime__mysql_next_due,
    .scan_misfires = chime__mysql_scan_misfires,
    .recompute_zones = chime__mysql_recompute_zones,
    .checkin = chime__mysql_checkin,
    .checkin_next_due = chime__mysql_checkin_next_due,
    .recover_dead_nodes = chime__mysql_recover_dead_nodes,
    .hand_over = chime__mysql_hand_over,
    .drain_set = chime__mysql_drain_set,
    .drain_get = chime__mysql_drain_get,
    .checkin_drain = chime__mysql_checkin_drain,
    .drain_report = chime__mysql_drain_report,
    .drain_hand_over = chime__mysql_drain_hand_over,
    .release_fired = chime__mysql_release_fired,
    .forget = chime__mysql_forget,
    .fire_tx_begin = chime__mysql_fire_tx_begin,
    .fire_tx_handle = chime__mysql_fire_tx_handle,
    .fire_tx_execute = chime__mysql_fire_tx_execute,
    .fire_tx_commit = chime__mysql_fire_tx_commit,
    .fire_tx_rollback = chime__mysql_fire_tx_rollback,
    .lease_acquire = chime__mysql_lease_acquire,
    .lease_extend = chime__mysql_lease_extend,
    .lease_release = chime__mysql_lease_release,
    .lease_end = chime__mysql_lease_end,
    .lease_held = chime__mysql_lease_held,
    .history_list = chime__mysql_history_list,
    .admin_list = chime__mysql_admin_list,
    .admin_repair = chime__mysql_repair,
    .audit_add = chime__mysql_audit_add,
    .interrupt = chime__mysql_interrupt,
    .interrupted = chime__mysql_interrupted,
    .shard_split = chime__mysql_shard_split,
    .checkpoint_set = chime__mysql_checkpoint_set,
    .checkpoint_get = chime__mysql_checkpoint_get,
    .limit_set = chime__mysql_limit_set,
    .limit_get = chime__mysql_limit_get,
    .limit_wait_ms = chime__mysql_limit_wait_ms,
    .limit_stats = chime__mysql_limit_stats,
    .trigger_add_many = chime__mysql_trigger_add_many,
    .fire_tx_enqueue = chime__mysql_fire_tx_enqueue,
};

/* The integer URL parameters, their ranges and what a bad one is not. */
enum {
  PARAM_LOCK_WAIT,
  PARAM_RETENTION,
  PARAM_MAX_ROWS,
  PARAM_SKEW,
  PARAM_IO,
  PARAM_SYNC,
  PARAM_AUDIT_RETENTION,
  PARAM_AUDIT_MAX_ROWS
};
static const struct {
  const char *key;
  int64_t min, max;
  const char *what;
} int_params[] = {
    [PARAM_LOCK_WAIT] = {"lock_wait_timeout_s", 1, 3600,
                         "a number of seconds from 1 to 3600"},
    [PARAM_RETENTION] = {"history_retention_ms", 0, INT64_MAX,
                         "a non-negative number"},
    [PARAM_MAX_ROWS] = {"history_max_rows", 0, INT64_C(1000000000000),
                        "a number of rows from 0 (no bound by count) to "
                        "10^12"},
    [PARAM_SKEW] = {"test_clock_offset_ms", -INT64_C(86400000),
                    INT64_C(86400000), "a number of milliseconds within a day"},
    [PARAM_IO] = {"io_timeout_s", 0, 3600,
                  "a number of seconds from 0 (none) to 3600"},
    [PARAM_SYNC] = {"wsrep_sync_wait", 0, 15,
                    "a wsrep_sync_wait bit mask from 0 to 15"},
    [PARAM_AUDIT_RETENTION] = {"audit_retention_ms", 0, INT64_MAX,
                               "a non-negative number"},
    [PARAM_AUDIT_MAX_ROWS] = {"audit_max_rows", 0, INT64_C(1000000000000),
                              "a number of rows from 0 (no bound by count) "
                              "to 10^12"},
};

/* Every URL parameter the store knows (docs/schema.md has the table); any
 * other key, and a value of the wrong form, is refused with CHIME_EINVAL
 * and a message naming the key, so a typo never passes silently. */
enum { KIND_BOOL, KIND_INT, KIND_PREFIX, KIND_PATH };
static const struct {
  const char *key;
  int kind;
} known_params[] = {
    {"auto_create", KIND_BOOL},
    {"migrate", KIND_BOOL},
    {"clear", KIND_BOOL},
    {"prefix", KIND_PREFIX},
    {"socket", KIND_PATH},
    {"lock_wait_timeout_s", KIND_INT},
    {"history_retention_ms", KIND_INT},
    {"history_max_rows", KIND_INT},
    {"audit_retention_ms", KIND_INT},
    {"audit_max_rows", KIND_INT},
    {"io_timeout_s", KIND_INT},
    {"wsrep_sync_wait", KIND_INT},
    {"test_clock_offset_ms", KIND_INT},
};

/* Whether boolean parameter value v is on; false for "0"/"false". */
static bool bool_value_on(const char *v) {
  return strcmp(v, "1") == 0 || strcmp(v, "true") == 0;
}

/* Checks every parameter's key and, for booleans and paths, its value
 * (integers and the prefix are checked where they are read).
 * Returns: 0; CHIME_EINVAL (errbuf names the key). */
static int check_params(const chime__mysql_store *s, char *errbuf,
                        size_t errbuf_len) {
  for (size_t i = 0; i < s->url->nparams; i++) {
    const chime__mysql_param *p = &s->url->params[i];
    size_t k = 0;
    while (k < sizeof known_params / sizeof known_params[0] &&
           strcmp(known_params[k].key, p->key) != 0)
      k++;
    /* An unknown key's value is never echoed: it may be a secret. */
    if (k == sizeof known_params / sizeof known_params[0])
      return chime__record_err(
          errbuf, errbuf_len, CHIME_EINVAL,
          "store URL parameter '%.64s' is unknown (known: auto_create, "
          "migrate, clear, prefix, socket, lock_wait_timeout_s, "
          "history_retention_ms, history_max_rows, audit_retention_ms, "
          "audit_max_rows, io_timeout_s, wsrep_sync_wait)",
          p->key);
    if (known_params[k].kind == KIND_BOOL && !bool_value_on(p->value) &&
        strcmp(p->value, "0") != 0 && strcmp(p->value, "false") != 0)
      return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                               "store URL parameter %s='%.32s' is not 1, 0, "
                               "true or false",
                               p->key, p->value);
    if (known_params[k].kind == KIND_PATH && !p->value[0])
      return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                               "store URL parameter %s is empty: it names "
                               "the server's socket file",
                               p->key);
    /* The client library uses a socket only for the host localhost: with
     * any other host it would connect by TCP and ignore the path. */
    if (known_params[k].kind == KIND_PATH &&
        strcmp(s->url->hosts[0].host, "localhost") != 0)
      return chime__record_err(
          errbuf, errbuf_len, CHIME_EINVAL,
          "store URL parameter %s names a Unix socket, which is used only "
          "with the host localhost; with host '%.64s' the connection would "
          "be TCP and the socket ignored: write "
          "mysql://USER:PASSWORD@localhost/DATABASE?%s=PATH, or drop %s",
          p->key, s->url->hosts[0].host, p->key, p->key);
  }
  return 0;
}

/* Reads integer URL parameter p into *ret.  Returns: 1 (given and in
 * range), 0 (absent), CHIME_EINVAL (errbuf says why). */
static int param_int(const chime__mysql_store *s, int p, int64_t *ret,
                     char *errbuf, size_t errbuf_len) {
  const char *text = chime__mysql_url_param(s->url, int_params[p].key);
  if (!text)
    return 0;
  char *end;
  long long v = strtoll(text, &end, 10);
  if (*end || end == text || v < int_params[p].min || v > int_params[p].max)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "store URL parameter %s='%.32s' is not %s",
                             int_params[p].key, text, int_params[p].what);
  *ret = v;
  return 1;
}

/* Reads the URL parameters into s.  Returns: 0; CHIME_EINVAL (a parameter
 * unknown or of the wrong form). */
static int read_params(chime__mysql_store *s, char *errbuf, size_t errbuf_len) {
  int r = check_params(s, errbuf, errbuf_len);
  if (r < 0)
    return r;
  r = chime__mysql_url_prefix(s->url, s->prefix, sizeof s->prefix, errbuf,
                              errbuf_len);
  if (r == CHIME_EURL) /* a bad value, like every other parameter's */
    r = CHIME_EINVAL;
  if (r < 0)
    return r;
  int64_t v;
  /* Short waits, retried: a node frozen in a transaction must not hold a
   * live node's work for long (tx.c). */
  s->lock_wait_s = 1;
  if ((r = param_int(s, PARAM_LOCK_WAIT, &v, errbuf, errbuf_len)) < 0)
    return r;
  if (r > 0)
    s->lock_wait_s = (long)v;
  /* With several members, a member that hangs (stopped, cut off) is left
   * after this long rather than waited for (docs/galera.md). */
  s->io_timeout_s = s->url->nhosts > 1 ? DEFAULT_MEMBER_IO_TIMEOUT_S : 0;
  if ((r = param_int(s, PARAM_IO, &v, errbuf, errbuf_len)) < 0)
    return r;
  if (r > 0)
    s->io_timeout_s = (unsigned)v;
  s->sync_wait = -1;
  if ((r = param_int(s, PARAM_SYNC, &v, errbuf, errbuf_len)) < 0)
    return r;
  if (r > 0)
    s->sync_wait = (long)v;
  s->history_retention_ms = DEFAULT_RETENTION_MS;
  if ((r = param_int(s, PARAM_RETENTION, &v, errbuf, errbuf_len)) < 0)
    return r;
  if (r > 0)
    s->history_retention_ms = v;
  s->history_max_rows = DEFAULT_MAX_ROWS;
  if ((r = param_int(s, PARAM_MAX_ROWS, &v, errbuf, errbuf_len)) < 0)
    return r;
  if (r > 0)
    s->history_max_rows = v;
  s->audit_retention_ms = DEFAULT_AUDIT_RETENTION_MS;
  if ((r = param_int(s, PARAM_AUDIT_RETENTION, &v, errbuf, errbuf_len)) < 0)
    return r;
  if (r > 0)
    s->audit_retention_ms = v;
  s->audit_max_rows = DEFAULT_AUDIT_MAX_ROWS;
  if ((r = param_int(s, PARAM_AUDIT_MAX_ROWS, &v, errbuf, errbuf_len)) < 0)
    return r;
  if (r > 0)
    s->audit_max_rows = v;
  return 0;
}

/* Copies the options into s.  Returns: 0; CHIME_EINVAL; CHIME_ENOMEM. */
static int read_options(chime__mysql_store *s, const chime_store_options *o) {
  const char *sched = o && o->scheduler_name ? o->scheduler_name : "chime";
  const char *node = o && o->instance_id ? o->instance_id : "node";
  if (chime__name_check(sched, "scheduler name", NULL, 0) < 0 ||
      chime__name_check(node, "instance id", NULL, 0) < 0)
    return CHIME_EINVAL;
  if (!(s->sched = strdup(sched)) || !(s->node = strdup(node)))
    return CHIME_ENOMEM;
  s->threshold_ms = o && o->misfire_threshold_ms > 0
                        ? o->misfire_threshold_ms
                        : CHIME__MYSQL_MISFIRE_THRESHOLD_MS;
  s->checkin_interval_ms = o && o->checkin_interval_ms > 0
                               ? o->checkin_interval_ms
                               : DEFAULT_CHECKIN_MS;
  s->test_skew_ms = o ? o->test_clock_offset_ms : 0;
  s->log = o ? o->log : NULL;
  s->log_user_data = o ? o->log_user_data : NULL;
  s->log_level = o ? o->log_level : CHIME_LOG_ERROR;
  s->on_recovery = o ? o->on_recovery : NULL;
  s->recovery_user_data = o ? o->recovery_user_data : NULL;
  if (o && o->tags && !(s->tags = strdup(o->tags)))
    return CHIME_ENOMEM;
  s->on_shards_done = o ? o->on_shards_done : NULL;
  s->shards_user_data = o ? o->shards_user_data : NULL;
  s->on_lock_wait = o ? o->on_lock_wait : NULL;
  s->lock_wait_user_data = o ? o->lock_wait_user_data : NULL;
  s->nconns = o && o->connections ? o->connections : 2;
  if (s->nconns > MAX_CONNECTIONS)
    s->nconns = MAX_CONNECTIONS;
  s->jitter = (uint64_t)chime__wall_ms() * UINT64_C(2654435761) | 1;
  s->conns = calloc(s->nconns, sizeof *s->conns);
  return s->conns ? 0 : CHIME_ENOMEM;
}

static int measure_fn(chime__mysql_tx *tx, void *arg) {
  (void)arg;
  return chime__mysql_clock_measure(tx);
}

/* Reads the server settings the store takes advantage of: with
 * innodb_autoinc_lock_mode 0 or 1, the ids of a multi-row INSERT are
 * consecutive, auto_increment_increment apart (batch.c). */
static int settings_fn(chime__mysql_tx *tx, void *arg) {
  (void)arg;
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SERVER_ID_SETTINGS);
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(&b, &rows, NULL);
  if (r < 0)
    return r;
  assert(rows.nrows == 1 && rows.ncols == 2);
  tx->s->id_step = !chime__mysql_rows_is_null(&rows, 0, 0) &&
                           chime__mysql_rows_int64(&rows, 0, 0) < 2 &&
                           !chime__mysql_rows_is_null(&rows, 0, 1)
                       ? chime__mysql_rows_int64(&rows, 0, 1)
                       : 0;
  chime__mysql_rows_free(&rows);
  return 0;
}

/* How long opening retries a connection lost after it first connected. */
#define OPEN_RETRY_MS 30000

/* Connects the first connection and settles the schema.  A server that
 * cannot be reached at all fails at once (a wrong host or port should
 * say so now); a connection lost after that (a restart, a proxy) is
 * opened again and the schema step retried, like any transaction. */
static int connect_settle(chime__mysql_store *s, char *errbuf,
                          size_t errbuf_len) {
  int64_t deadline = 0;
  for (int64_t pause = 50;; pause = pause < 1000 ? 2 * pause : 2000) {
    int r = chime__mysql_conn_open(s, &s->conns[0], errbuf, errbuf_len);
    if (r == 0)
      r = chime__mysql_schema_settle(s, s->conns[0].db, errbuf, errbuf_len);
    if (r == 0 || r != CHIME_ECONNECT || (!deadline && !s->conns[0].db) ||
        (deadline && chime__mono_ms() >= deadline))
      return r;
    if (!deadline)
      deadline = chime__mono_ms() + OPEN_RETRY_MS;
    chime__mysql_log(s, CHIME_LOG_WARN,
                     "lost the database connection while opening: retrying");
    chime__mysql_conn_reset(&s->conns[0], true);
    chime__sleep_ms(pause);
  }
}

/* Connects the first connection, sets up the schema, measures the clock. */
static int connect_and_claim(chime__mysql_store *s, char *errbuf,
                             size_t errbuf_len) {
  assert(s->nconns > 0 && s->conns && !s->node_claimed);
  int r = connect_settle(s, errbuf, errbuf_len);
  if (r < 0)
    return r;
  /* Opened before the schema was sure to exist: registered again. */
  chime__mysql_session_register(s, s->conns[0].db, false);
  const char *clear = chime__mysql_url_param(s->url, "clear");
  if (clear && bool_value_on(clear) &&
      (r = chime__mysql_schema_clear(s, errbuf, errbuf_len)) < 0)
    return r;
  r = chime__mysql_tx_run(s, measure_fn, NULL, NULL, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mysql_tx_run(s, settings_fn, NULL, NULL, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mysql_node_claim(s, errbuf, errbuf_len);
  s->node_claimed = r == 0;
  return r;
}

/* Reads the test-only clock skew parameter (overrides the option).
 * Returns: 0; CHIME_EURL. */
static int read_skew(chime__mysql_store *s, char *errbuf, size_t errbuf_len) {
  int64_t v;
  int r = param_int(s, PARAM_SKEW, &v, errbuf, errbuf_len);
  if (r > 0)
    s->test_skew_ms = v;
  return r < 0 ? r : 0;
}

int chime__mysql_store_open(const char *url, const chime_store_options *options,
                            chime_store **ret_store, char *errbuf,
                            size_t errbuf_len) {
  chime__mysql_store *s = calloc(1, sizeof *s);
  if (!s)
    return CHIME_ENOMEM;
  atomic_store(&s->limit_wait, -1);
  pthread_mutex_init(&s->lock, NULL);
  pthread_condattr_t freed_attr; /* tx.c waits on it with a deadline */
  pthread_condattr_init(&freed_attr);
  pthread_condattr_setclock(&freed_attr, CLOCK_MONOTONIC);
  pthread_cond_init(&s->freed, &freed_attr);
  pthread_condattr_destroy(&freed_attr);
  pthread_mutex_init(&s->done_mu, NULL);
  pthread_mutex_init(&s->beat_lock, NULL);
  pthread_mutex_init(&s->held_mu, NULL);
  s->beat.autocommit = true;
  s->base.ops = &mysql_ops;
  s->magic = CHIME__MYSQL_STORE_MAGIC;
  int r = chime__mysql_url_parse(url, &s->url, errbuf, errbuf_len);
  if (r == 0)
    r = read_params(s, errbuf, errbuf_len);
  if (r == 0 && (r = read_options(s, options)) == CHIME_EINVAL)
    chime__record_err(errbuf, errbuf_len, r,
                      "invalid scheduler name or instance id");
  if (r == 0)
    r = read_skew(s, errbuf, errbuf_len);
  if (r == 0)
    r = chime__mysql_sql_init(s);
  if (r == 0)
    r = connect_and_claim(s, errbuf, errbuf_len);
  if (r < 0) {
    store_free(&s->base);
    return r;
  }
  *ret_store = &s->base;
  return 0;
}
