/*
 * tx.c: the foundation of the MySQL/MariaDB store: its log, the connection
 * pool, transactions with retries (deadlocks, lock-wait timeouts, lost
 * connections, with a jittered back-off) and the database clock (the
 * offset between this node's wall clock and the server's).
 *
 * Locks and threads (tx.h says it for the whole store):
 *   - s->lock guards the pool (every conns[i].busy) and the jitter state;
 *     it is held only for those few instructions, never across a round
 *     trip or a sleep.  A thread waiting for a free connection waits on
 *     s->freed, which releases s->lock.
 *   - s->beat_lock serialises the heartbeat connection: it is held for a
 *     whole chime__mysql_tx_run_beat, round trips and back-off included.
 *   - Order: beat_lock, then lock (run_on under beat_lock calls backoff,
 *     which takes lock).  Nothing takes beat_lock while holding lock.
 *   - A connection taken from the pool belongs to the taking thread until
 *     pool_put; run_on is the only code that uses it in between.
 */
#include "jobstore/mysql/tx.h"

#include "core/clock.h"
#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/ops.h"

#include <assert.h>
#include <errmsg.h>
#include <errno.h>
#include <mysqld_error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONNECT_TIMEOUT_S 5
/* Lost connections: reconnect for at most this long in all. */
#define RECONNECT_BUDGET_MS 30000
/* Deadlocks and lock-wait timeouts: this many attempts. */
#define MAX_LOCK_RETRIES 20

void chime__mysql_log(chime__mysql_store *s, chime_log_level level,
                      const char *fmt, ...) {
  assert(s && fmt);
  if (s->log && level <= s->log_level) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->log(s->log_user_data, level, line);
  }
}

/* The local clock as this node sees it (skewed in tests). */
static int64_t local_ms(const chime__mysql_store *s) {
  return chime__wall_ms() + s->test_skew_ms;
}

int64_t chime__mysql_now(chime_store *store) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  return local_ms(s) + atomic_load(&s->offset_ms);
}

int chime__mysql_clock_query(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                             const chime__mysql_arg *args, size_t nargs,
                             chime__mysql_rows *ret) {
  int64_t before = local_ms(tx->s);
  int r = chime__mysql_query(tx, id, args, nargs, ret);
  int64_t after = local_ms(tx->s);
  if (r < 0)
    return r;
  assert(ret->nrows == 1 && ret->ncols >= 1); /* a SELECT without FROM */
  if (!chime__mysql_rows_is_null(ret, 0, 0)) {
    int64_t db = chime__mysql_rows_int64(ret, 0, 0);
    atomic_store(&tx->s->offset_ms, db - (before + (after - before) / 2));
  }
  return 0;
}

int chime__mysql_clock_measure(chime__mysql_tx *tx) {
  chime__mysql_rows rows;
  int r = chime__mysql_clock_query(tx, CHIME__Q_DB_NOW, NULL, 0, &rows);
  chime__mysql_rows_free(&rows);
  return r;
}

/* ------------------------------------------------------------------ pool */

static chime__mysql_conn *pool_get(chime__mysql_store *s) {
  assert(s->nconns > 0);
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

static void pool_put(chime__mysql_store *s, chime__mysql_conn *c) {
  assert(c >= s->conns && c < s->conns + s->nconns);
  pthread_mutex_lock(&s->lock);
  assert(c->busy);
  c->busy = false;
  pthread_cond_signal(&s->freed);
  pthread_mutex_unlock(&s->lock);
}

chime__mysql_conn *chime__mysql_pool_take(chime__mysql_store *s) {
  return pool_get(s);
}

void chime__mysql_pool_give(chime__mysql_store *s, chime__mysql_conn *c) {
  pool_put(s, c);
}

/* The session settings every connection runs with. */
static const char *const session_sql[] = {
    "SET SESSION time_zone = '+00:00'",
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
};

/* Pool connections: every statement opens a transaction that COMMIT or
 * ROLLBACK ends, one round trip fewer than START TRANSACTION. */
static const char no_autocommit[] = "SET SESSION autocommit = 0";

int chime__mysql_conn_open(chime__mysql_store *s, chime__mysql_conn *c,
                           char *errbuf, size_t len) {
  assert(s && c && !c->db);
  MYSQL *db = NULL;
  int r = chime__mysql_connect(s->url, CONNECT_TIMEOUT_S, &db, errbuf, len);
  if (r < 0)
    return r;
  for (size_t i = 0; i < sizeof session_sql / sizeof session_sql[0]; i++) {
    if (mysql_real_query(db, session_sql[i],
                         (unsigned long)strlen(session_sql[i])) != 0) {
      if (errbuf && len)
        snprintf(errbuf, len, "cannot set up the session: %s", mysql_error(db));
      mysql_close(db);
      return CHIME_ESTORE;
    }
  }
  char wait[64];
  snprintf(wait, sizeof wait, "SET SESSION innodb_lock_wait_timeout = %ld",
           s->lock_wait_s);
  if (mysql_real_query(db, wait, (unsigned long)strlen(wait)) != 0 ||
      (!c->autocommit &&
       mysql_real_query(db, no_autocommit, sizeof no_autocommit - 1) != 0)) {
    if (errbuf && len)
      snprintf(errbuf, len, "cannot set up the session: %s", mysql_error(db));
    mysql_close(db);
    return CHIME_ESTORE;
  }
  chime__mysql_session_register(s, db, c->autocommit);
  c->db = db;
  c->was_open = true;
  return 0;
}

static bool lost(unsigned e) {
  return e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST ||
         e == CR_CONNECTION_ERROR || e == CR_CONN_HOST_ERROR ||
         e == ER_CONNECTION_KILLED || e == CR_SERVER_LOST_EXTENDED ||
         e == ER_SERVER_SHUTDOWN;
}

/* A jittered back-off: base * 2^attempt, capped, plus up to half again. */
static int64_t backoff(chime__mysql_store *s, unsigned attempt, int64_t base,
                       int64_t cap) {
  assert(base > 0 && cap >= base);
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

bool chime__mysql_lost(unsigned mysql_errno) {
  return lost(mysql_errno);
}

/* One attempt: fn (autocommit is off: its first statement begins the
 * transaction), then COMMIT or ROLLBACK; just fn on the heartbeat
 * connection. */
static int attempt(chime__mysql_tx *tx, chime__mysql_tx_fn fn, void *arg) {
  assert(tx->c->db);
  tx->last_errno = 0;
  int r = fn(tx, arg);
  if (tx->c->autocommit)
    return r;
  if (r == 0)
    r = chime__mysql_exec_plain(tx, "COMMIT");
  if (r < 0 && tx->c->db) {
    unsigned e = tx->last_errno;
    (void)mysql_real_query(tx->c->db, "ROLLBACK", 8);
    tx->last_errno = e;
  }
  return r;
}

/* Runs fn on connection c until it succeeds or fails for good (see
 * chime__mysql_tx_run). */
static int run_on(chime__mysql_store *s, chime__mysql_conn *c,
                  chime__mysql_tx_fn fn, chime__mysql_reset_fn reset, void *arg,
                  char *errbuf, size_t errbuf_len) {
  /* A pool connection is this thread's (busy); the heartbeat connection
   * is used under beat_lock (held: trylock fails). */
  assert(c->autocommit ? pthread_mutex_trylock(&s->beat_lock) == EBUSY
                       : c->busy);
  chime__mysql_tx tx = {
      .s = s, .c = c, .errbuf = errbuf, .errbuf_len = errbuf_len};
  int64_t deadline = chime__mono_ms() + RECONNECT_BUDGET_MS;
  unsigned lock_tries = 0, conn_tries = 0;
  int r;
  for (;;) {
    if (!tx.c->db) {
      char why[256] = "";
      /* Pool connections open lazily: only a connection that was open
       * before and was lost is a reconnect. */
      bool again = tx.c->was_open;
      r = chime__mysql_conn_open(s, tx.c, why, sizeof why);
      if (r == CHIME_ECONNECT || r == CHIME_ESTORE) {
        if (chime__mono_ms() >= deadline) {
          chime__mysql_log(s, CHIME_LOG_ERROR, "giving up reconnecting: %s",
                           why);
          chime__record_err(errbuf, errbuf_len, CHIME_ECONNECT, "%s", why);
          r = CHIME_ECONNECT;
          break;
        }
        chime__sleep_ms(backoff(s, conn_tries++, 50, 2000));
        continue;
      }
      if (r < 0) {
        chime__record_err(errbuf, errbuf_len, r, "%s", why);
        break;
      }
      if (again)
        chime__mysql_log(s, CHIME_LOG_INFO, "reconnected to the database");
    }
    r = attempt(&tx, fn, arg);
    if (r == 0)
      break;
    unsigned e = tx.last_errno;
    if (lost(e) || (tx.c->db && mysql_errno(tx.c->db) != 0 &&
                    lost(mysql_errno(tx.c->db)))) {
      chime__mysql_log(s, CHIME_LOG_WARN,
                       "lost the database connection "
                       "(error %u): reconnecting",
                       e);
      chime__mysql_conn_reset(tx.c, true);
    } else if ((e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT) &&
               ++lock_tries < MAX_LOCK_RETRIES) {
      chime__mysql_log(s, CHIME_LOG_DEBUG, "retrying after MySQL error %u", e);
      chime__sleep_ms(backoff(s, lock_tries, 2, 200));
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

int chime__mysql_tx_run(chime__mysql_store *s, chime__mysql_tx_fn fn,
                        chime__mysql_reset_fn reset, void *arg, char *errbuf,
                        size_t errbuf_len) {
  assert(s && fn);
  chime__mysql_conn *c = pool_get(s);
  assert(c->busy && !c->autocommit);
  int r = run_on(s, c, fn, reset, arg, errbuf, errbuf_len);
  pool_put(s, c);
  return r;
}

int chime__mysql_tx_run_beat(chime__mysql_store *s, chime__mysql_tx_fn fn,
                             void *arg) {
  assert(s && fn && s->beat.autocommit);
  pthread_mutex_lock(&s->beat_lock);
  int r = run_on(s, &s->beat, fn, NULL, arg, NULL, 0);
  pthread_mutex_unlock(&s->beat_lock);
  return r;
}
