/*
 * mysql.c: the MySQL/MariaDB store (store.h): opening it from a URL, the
 * connection pool, transactions with retries (deadlocks, lock-wait
 * timeouts, lost connections), the database clock, logging and the ops
 * table.  mysql_impl.h describes the pieces.
 *
 * URL parameters read here: prefix (table prefix, default "chime_"),
 * auto_create=1, migrate=1 (mysql_schema.c), clear=1 (delete this
 * scheduler's rows at open: tests and demos), history_retention_ms
 * (default 7 days), lock_wait_timeout_s (InnoDB's lock wait, default 10;
 * a timeout is retried), test_clock_offset_ms (tests only: skews this
 * node's local clock by that many milliseconds, as a wrong system clock
 * would; the store's clock still follows the database's).
 */
#include "jobstore/mysql_impl.h"

#include <errmsg.h>
#include <mysqld_error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_THRESHOLD_MS 60000
#define DEFAULT_CHECKIN_MS 1000 /* as the engine's default */
#define DEFAULT_RETENTION_MS (7 * INT64_C(86400000))
#define MAX_CONNECTIONS 64
/* Lost connections: reconnect for at most this long in all. */
#define RECONNECT_BUDGET_MS 30000
/* Deadlocks and lock-wait timeouts: this many attempts. */
#define MAX_LOCK_RETRIES 20
#define CONNECT_TIMEOUT_S 5

void chime__my_log(my_store *s, chime_log_level level, const char *fmt, ...) {
  if (!s->log || level > s->log_level)
    return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->log(s->log_user_data, level, msg);
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

/* The local clock as this node sees it (skewed in tests). */
static int64_t local_ms(const my_store *s) {
  return wall_ms() + s->test_skew_ms;
}

int64_t chime__my_now(chime_store *store) {
  my_store *s = (my_store *)store;
  return local_ms(s) + atomic_load(&s->offset_ms);
}

int chime__my_clock_query(my_tx *tx, my_stmt_id id, const my_arg *args,
                          size_t nargs, my_rows *ret) {
  int64_t before = local_ms(tx->s);
  int r = chime__my_query(tx, id, NULL, args, nargs, ret);
  int64_t after = local_ms(tx->s);
  if (r < 0)
    return r;
  if (ret->nrows == 1 && chime__my_s(ret, 0, 0)) {
    int64_t db = chime__my_i(ret, 0, 0);
    atomic_store(&tx->s->offset_ms, db - (before + (after - before) / 2));
  }
  return 0;
}

int chime__my_measure_clock(my_tx *tx) {
  my_rows rows;
  int r = chime__my_clock_query(tx, Q_DB_NOW, NULL, 0, &rows);
  chime__my_rows_free(&rows);
  return r;
}

/* ------------------------------------------------------------------ pool */

static my_conn *pool_get(my_store *s) {
  pthread_mutex_lock(&s->lock);
  for (;;) {
    for (size_t i = 0; i < s->nconns; i++) {
      if (!s->conns[i].busy) {
        s->conns[i].busy = true;
        pthread_mutex_unlock(&s->lock);
        return &s->conns[i];
      }
    }
    pthread_cond_wait(&s->freed, &s->lock);
  }
}

static void pool_put(my_store *s, my_conn *c) {
  pthread_mutex_lock(&s->lock);
  c->busy = false;
  pthread_cond_signal(&s->freed);
  pthread_mutex_unlock(&s->lock);
}

/* The session settings every connection runs with. */
static const char *const session_sql[] = {
    "SET SESSION time_zone = '+00:00'",
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
};

/* Pool connections: every statement opens a transaction that COMMIT or
 * ROLLBACK ends, one round trip fewer than START TRANSACTION. */
static const char no_autocommit[] = "SET SESSION autocommit = 0";

/* Opens c's connection.  Returns: 0; chime__mysql_connect's errors. */
static int conn_open(my_store *s, my_conn *c, char *errbuf, size_t len) {
  MYSQL *db = NULL;
  int r = chime__mysql_connect(s->url, CONNECT_TIMEOUT_S, &db, errbuf, len);
  if (r < 0)
    return r;
  for (size_t i = 0; i < sizeof session_sql / sizeof session_sql[0]; i++) {
    if (mysql_real_query(db, session_sql[i],
                         (unsigned long)strlen(session_sql[i])) != 0) {
      if (errbuf && len)
        snprintf(errbuf, len, "cannot set up the session: %s",
                 mysql_error(db));
      mysql_close(db);
      return CHIME_ESTORE;
    }
  }
  char wait[64];
  snprintf(wait, sizeof wait, "SET SESSION innodb_lock_wait_timeout = %ld",
           s->lock_wait_s);
  if (mysql_real_query(db, wait, (unsigned long)strlen(wait)) != 0 ||
      (!c->autocommit && mysql_real_query(db, no_autocommit,
                                          sizeof no_autocommit - 1) != 0)) {
    if (errbuf && len)
      snprintf(errbuf, len, "cannot set up the session: %s", mysql_error(db));
    mysql_close(db);
    return CHIME_ESTORE;
  }
  c->db = db;
  return 0;
}

static bool lost(unsigned e) {
  return e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST ||
         e == CR_CONNECTION_ERROR || e == CR_CONN_HOST_ERROR ||
         e == ER_CONNECTION_KILLED || e == CR_SERVER_LOST_EXTENDED ||
         e == ER_SERVER_SHUTDOWN;
}

/* A jittered back-off: base * 2^attempt, capped, plus up to half again. */
static int64_t backoff(my_store *s, unsigned attempt, int64_t base,
                       int64_t cap) {
  int64_t d = base;
  for (unsigned i = 0; i < attempt && d < cap; i++)
    d *= 2;
  if (d > cap)
    d = cap;
  pthread_mutex_lock(&s->lock);
  uint64_t x = s->jitter;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  s->jitter = x;
  pthread_mutex_unlock(&s->lock);
  return d + (int64_t)(x % (uint64_t)(d / 2 + 1));
}

/* One attempt: fn (autocommit is off: its first statement begins the
 * transaction), then COMMIT or ROLLBACK; just fn on the heartbeat
 * connection. */
static int attempt(my_tx *tx, my_tx_fn fn, void *arg) {
  tx->last_errno = 0;
  int r = fn(tx, arg);
  if (tx->c->autocommit)
    return r;
  if (r == 0)
    r = chime__my_simple(tx, "COMMIT");
  if (r < 0 && tx->c->db) {
    unsigned e = tx->last_errno;
    (void)mysql_real_query(tx->c->db, "ROLLBACK", 8);
    tx->last_errno = e;
  }
  return r;
}

/* Runs fn on connection c until it succeeds or fails for good (see
 * chime__my_run). */
static int run_on(my_store *s, my_conn *c, my_tx_fn fn, my_reset_fn reset,
                  void *arg, char *errbuf, size_t errbuf_len) {
  my_tx tx = {.s = s, .c = c, .errbuf = errbuf, .errbuf_len = errbuf_len};
  int64_t deadline = mono_ms() + RECONNECT_BUDGET_MS;
  unsigned lock_tries = 0, conn_tries = 0;
  int r;
  for (;;) {
    if (!tx.c->db) {
      char why[256] = "";
      r = conn_open(s, tx.c, why, sizeof why);
      if (r == CHIME_ECONNECT || r == CHIME_ESTORE) {
        if (mono_ms() >= deadline) {
          chime__my_log(s, CHIME_LOG_ERROR, "giving up reconnecting: %s", why);
          chime__record_err(errbuf, errbuf_len, CHIME_ECONNECT, "%s", why);
          r = CHIME_ECONNECT;
          break;
        }
        sleep_ms(backoff(s, conn_tries++, 50, 2000));
        continue;
      }
      if (r < 0) {
        chime__record_err(errbuf, errbuf_len, r, "%s", why);
        break;
      }
      chime__my_log(s, CHIME_LOG_INFO, "reconnected to the database");
    }
    r = attempt(&tx, fn, arg);
    if (r == 0)
      break;
    unsigned e = tx.last_errno;
    if (lost(e) || (tx.c->db && mysql_errno(tx.c->db) != 0 &&
                    lost(mysql_errno(tx.c->db)))) {
      chime__my_log(s, CHIME_LOG_WARN, "lost the database connection "
                                       "(error %u): reconnecting", e);
      chime__my_conn_reset(tx.c, true);
    } else if ((e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT) &&
               ++lock_tries < MAX_LOCK_RETRIES) {
      chime__my_log(s, CHIME_LOG_DEBUG, "retrying after MySQL error %u", e);
      sleep_ms(backoff(s, lock_tries, 2, 200));
    } else {
      break;
    }
    if (reset)
      reset(arg);
    if (errbuf && errbuf_len)
      errbuf[0] = '\0';
  }
  return r;
}

int chime__my_run(my_store *s, my_tx_fn fn, my_reset_fn reset, void *arg,
                  char *errbuf, size_t errbuf_len) {
  my_conn *c = pool_get(s);
  int r = run_on(s, c, fn, reset, arg, errbuf, errbuf_len);
  pool_put(s, c);
  return r;
}

int chime__my_run_beat(my_store *s, my_tx_fn fn, void *arg) {
  pthread_mutex_lock(&s->beat_lock);
  int r = run_on(s, &s->beat, fn, NULL, arg, NULL, 0);
  pthread_mutex_unlock(&s->beat_lock);
  return r;
}

/* --------------------------------------------------------------- open */

static void my_free(chime_store *store) {
  my_store *s = (my_store *)store;
  if (!s)
    return;
  if (s->node_claimed)
    chime__my_node_leave(s);
  for (size_t i = 0; s->conns && i < s->nconns; i++)
    chime__my_conn_reset(&s->conns[i], true);
  chime__my_conn_reset(&s->beat, true);
  free(s->conns);
  for (size_t i = 0; i < Q_COUNT; i++)
    free(s->sql[i]);
  chime__mysql_url_free(s->url);
  free(s->sched);
  free(s->node);
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->freed);
  pthread_mutex_destroy(&s->done_mu);
  pthread_mutex_destroy(&s->beat_lock);
  free(s);
}

static const chime_store_ops mysql_ops = {
    .name = "mysql",
    .free = my_free,
    .now = chime__my_now,
    .job_add = chime__my_job_add,
    .job_remove = chime__my_job_remove,
    .job_get = chime__my_job_get,
    .job_list = chime__my_job_list,
    .trigger_add = chime__my_trigger_add,
    .trigger_remove = chime__my_trigger_remove,
    .trigger_replace = chime__my_trigger_replace,
    .trigger_get = chime__my_trigger_get,
    .trigger_list = chime__my_trigger_list,
    .trigger_list_for_job = chime__my_trigger_list_for_job,
    .trigger_status = chime__my_trigger_status,
    .calendar_add = chime__my_calendar_add,
    .calendar_remove = chime__my_calendar_remove,
    .calendar_get = chime__my_calendar_get,
    .pause_trigger = chime__my_pause_trigger,
    .resume_trigger = chime__my_resume_trigger,
    .pause_job = chime__my_pause_job,
    .resume_job = chime__my_resume_job,
    .pause_group = chime__my_pause_group,
    .resume_group = chime__my_resume_group,
    .pause_all = chime__my_pause_all,
    .resume_all = chime__my_resume_all,
    .acquire = chime__my_acquire,
    .fire = chime__my_fire,
    .acquire_due = chime__my_acquire_due,
    .complete = chime__my_complete,
    .release = chime__my_release,
    .still_owned = chime__my_still_owned,
    .next_due = chime__my_next_due,
    .scan_misfires = chime__my_scan_misfires,
    .checkin = chime__my_checkin,
    .recover_dead_nodes = chime__my_recover,
};

/* Reads the URL parameters into s.  Returns: 0; CHIME_EURL. */
static int read_params(my_store *s, char *errbuf, size_t errbuf_len) {
  const char *p = chime__mysql_url_param(s->url, "prefix");
  if (!p)
    p = "chime_";
  size_t n = strlen(p);
  if (n >= sizeof s->prefix)
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "table prefix longer than %zu bytes",
                             sizeof s->prefix - 1);
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                               "table prefix '%s': only letters, digits and "
                               "'_' are allowed", p);
  }
  memcpy(s->prefix, p, n + 1);
  const char *wait = chime__mysql_url_param(s->url, "lock_wait_timeout_s");
  s->lock_wait_s = 10;
  if (wait) {
    char *end;
    long v = strtol(wait, &end, 10);
    if (*end || end == wait || v < 1 || v > 3600)
      return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                               "lock_wait_timeout_s '%.32s' is not a number "
                               "of seconds from 1 to 3600", wait);
    s->lock_wait_s = v;
  }
  const char *ret = chime__mysql_url_param(s->url, "history_retention_ms");
  s->history_retention_ms = DEFAULT_RETENTION_MS;
  if (ret) {
    char *end;
    long long v = strtoll(ret, &end, 10);
    if (*end || end == ret || v < 0)
      return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                               "history_retention_ms '%.32s' is not a "
                               "non-negative number", ret);
    s->history_retention_ms = v;
  }
  return 0;
}

/* Copies the options into s.  Returns: 0; CHIME_EINVAL; CHIME_ENOMEM. */
static int read_options(my_store *s, const chime_store_options *o) {
  const char *sched = o && o->scheduler_name ? o->scheduler_name : "chime";
  const char *node = o && o->instance_id ? o->instance_id : "node";
  if (chime__name_check(sched, "scheduler name", NULL, 0) < 0 ||
      chime__name_check(node, "instance id", NULL, 0) < 0)
    return CHIME_EINVAL;
  if (!(s->sched = strdup(sched)) || !(s->node = strdup(node)))
    return CHIME_ENOMEM;
  s->threshold_ms = o && o->misfire_threshold_ms > 0 ? o->misfire_threshold_ms
                                                     : DEFAULT_THRESHOLD_MS;
  s->checkin_interval_ms = o && o->checkin_interval_ms > 0
                               ? o->checkin_interval_ms
                               : DEFAULT_CHECKIN_MS;
  s->test_skew_ms = o ? o->test_clock_offset_ms : 0;
  s->log = o ? o->log : NULL;
  s->log_user_data = o ? o->log_user_data : NULL;
  s->log_level = o ? o->log_level : CHIME_LOG_ERROR;
  s->nconns = o && o->connections ? o->connections : 2;
  if (s->nconns > MAX_CONNECTIONS)
    s->nconns = MAX_CONNECTIONS;
  s->jitter = (uint64_t)wall_ms() * UINT64_C(2654435761) | 1;
  s->conns = calloc(s->nconns, sizeof *s->conns);
  return s->conns ? 0 : CHIME_ENOMEM;
}

static int measure_fn(my_tx *tx, void *arg) {
  (void)arg;
  return chime__my_measure_clock(tx);
}

/* Reads the server settings the store takes advantage of: with
 * innodb_autoinc_lock_mode 0 or 1, the ids of a multi-row INSERT are
 * consecutive, auto_increment_increment apart (mysql_batch.c). */
static int settings_fn(my_tx *tx, void *arg) {
  (void)arg;
  my_buf b;
  chime__my_buf_init(&b, tx);
  chime__my_buf_sql(&b, "SELECT @@innodb_autoinc_lock_mode, "
                        "@@auto_increment_increment");
  my_rows rows;
  int r = chime__my_buf_run(&b, &rows, NULL);
  chime__my_buf_free(&b);
  if (r < 0)
    return r;
  tx->s->id_step = rows.nrows && chime__my_s(&rows, 0, 0) &&
                           chime__my_i(&rows, 0, 0) < 2 &&
                           chime__my_s(&rows, 0, 1)
                       ? chime__my_i(&rows, 0, 1)
                       : 0;
  chime__my_rows_free(&rows);
  return 0;
}

/* Connects the first connection, sets up the schema, measures the clock. */
static int start(my_store *s, char *errbuf, size_t errbuf_len) {
  int r = conn_open(s, &s->conns[0], errbuf, errbuf_len);
  if (r < 0)
    return r;
  r = chime__my_schema(s, s->conns[0].db, errbuf, errbuf_len);
  if (r < 0)
    return r;
  const char *clear = chime__mysql_url_param(s->url, "clear");
  if (clear && strcmp(clear, "1") == 0 &&
      (r = chime__my_clear(s, errbuf, errbuf_len)) < 0)
    return r;
  r = chime__my_run(s, measure_fn, NULL, NULL, errbuf, errbuf_len);
  if (r == 0)
    r = chime__my_run(s, settings_fn, NULL, NULL, errbuf, errbuf_len);
  if (r == 0)
    r = chime__my_node_claim(s, errbuf, errbuf_len);
  s->node_claimed = r == 0;
  return r;
}

/* Reads the test-only clock skew parameter (overrides the option).
 * Returns: 0; CHIME_EURL. */
static int read_skew(my_store *s, char *errbuf, size_t errbuf_len) {
  const char *skew = chime__mysql_url_param(s->url, "test_clock_offset_ms");
  if (!skew)
    return 0;
  char *end;
  long long v = strtoll(skew, &end, 10);
  if (*end || end == skew || v < -INT64_C(86400000) || v > INT64_C(86400000))
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "test_clock_offset_ms '%.32s' is not a number "
                             "of milliseconds within a day", skew);
  s->test_skew_ms = v;
  return 0;
}

int chime__mysql_store_open(const char *url, const chime_store_options *options,
                            chime_store **ret_store, char *errbuf,
                            size_t errbuf_len) {
  my_store *s = calloc(1, sizeof *s);
  if (!s)
    return CHIME_ENOMEM;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->freed, NULL);
  pthread_mutex_init(&s->done_mu, NULL);
  pthread_mutex_init(&s->beat_lock, NULL);
  s->beat.autocommit = true;
  s->base.ops = &mysql_ops;
  int r = chime__mysql_url_parse(url, &s->url, errbuf, errbuf_len);
  if (r == 0)
    r = read_params(s, errbuf, errbuf_len);
  if (r == 0 && (r = read_options(s, options)) == CHIME_EINVAL)
    chime__record_err(errbuf, errbuf_len, r,
                      "invalid scheduler name or instance id");
  if (r == 0)
    r = read_skew(s, errbuf, errbuf_len);
  if (r == 0)
    r = chime__my_sql_init(s);
  if (r == 0)
    r = start(s, errbuf, errbuf_len);
  if (r < 0) {
    my_free(&s->base);
    return r;
  }
  *ret_store = &s->base;
  return 0;
}
