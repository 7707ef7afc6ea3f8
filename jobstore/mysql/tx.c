/*
 * tx.c: the foundation of the MySQL/MariaDB store: the store object
 * (chime__mysql_store_of), its log, the connection pool, transactions with
 * retries (deadlocks, lock-wait timeouts, lost connections, with a jittered
 * back-off) and the database clock (the offset between this node's monotonic
 * clock and the server's).  Lock waits are short (lock_wait_timeout_s, 1 s by
 * default) and retried; the engine loop's own transactions (claims, fires, the
 * misfire scan, recovery) stop retrying after half a check-in interval
 * (CHIME_EBUSY), so a frozen node's locks never keep a live node from checking
 * in.  Lost connections are retried for 30 s (RECONNECT_BUDGET_MS), but on
 * the loop (its transactions and its check-ins) for one check-in interval:
 * the loop must not stall through an outage, and it must say the outage and
 * fence itself once its lease ran out, not 30 s later.
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
#include <time.h>

#define CONNECT_TIMEOUT_S 5
/* Lost connections: reconnect for at most this long in all. */
#define RECONNECT_BUDGET_MS 30000
/* Deadlocks and lock-wait timeouts: this many attempts. */
#define MAX_LOCK_RETRIES 20

/* The loop's reconnect budget: one check-in interval, after which its next
 * tick (or check-in) tries again. */
static int64_t loop_reconnect_budget_ms(const chime__mysql_store *s) {
  return s->checkin_interval_ms > 0 ? s->checkin_interval_ms
                                    : RECONNECT_BUDGET_MS;
}

/* The store object is checked here, beside the pool and lock it carries,
 * rather than in store.c with the ops table: every op's file calls this,
 * and store.c calls every op's file. */
chime__mysql_store *chime__mysql_store_of(chime_store *store) {
  chime__mysql_store *s = (chime__mysql_store *)store;
  assert(s && s->magic == CHIME__MYSQL_STORE_MAGIC);
  return s;
}

/* A statement of tx waited a whole lock wait timeout for a row another
 * session holds (a DBA's SELECT ... FOR UPDATE, a stuck client): logged at
 * WARN with the rows it waited for (stmt.c) and counted (the engine's
 * CHIME_METRIC_LOCK_WAITS).  The loop's claims and scans skip held rows
 * (SKIP LOCKED), so what waits here needs that very row. */
static void lock_waited(chime__mysql_tx *tx, const char *then) {
  chime__mysql_store *s = tx->s;
  chime__mysql_log(
      s, CHIME_LOG_WARN,
      "waited %ld s for a row another session holds (MySQL error %u): %s; %s",
      s->lock_wait_s, (unsigned)ER_LOCK_WAIT_TIMEOUT,
      tx->waited[0] ? tx->waited : "(unknown)", then);
  tx->waited[0] = '\0';
  if (s->on_lock_wait)
    s->on_lock_wait(s->lock_wait_user_data);
}

/*
 * The store's clock is the database's: every measurement (each check-in,
 * and at open) reads the server's NOW(3) and keeps its offset from this
 * node's monotonic clock, which never steps; the wall clock is not read
 * at all, so an operator or NTP stepping it changes nothing.  A monotonic
 * clock that jumps as well (libfaketime moves both; a suspended VM) shows
 * as a measurement older than stale_ms, or a clock earlier than it: the
 * store measures again before answering, and when it cannot (the database
 * is away, the heartbeat connection busy) its clock does not run more than
 * stale_ms past the last measurement, so nothing fires early and no
 * misfire rule is applied on a guess.
 */

/* This node's monotonic clock as the store reads it (skewed in tests). */
static int64_t local_ms(const chime__mysql_store *s) {
  return chime__mono_ms() + atomic_load(&s->test_skew_ms);
}

/* How old a measurement may be before the store measures again: check-ins
 * measure every checkin_interval_ms, so normally never. */
static int64_t stale_ms(const chime__mysql_store *s) {
  return 2 * s->checkin_interval_ms + 1000;
}

static void clock_set(chime__mysql_store *s, int64_t db, int64_t before,
                      int64_t after) {
  int64_t mid = before + (after - before) / 2;
  atomic_store(&s->offset_ms, db - mid);
  atomic_store(&s->measured_mono_ms, mid);
}

/* Measures the clock out of turn on the heartbeat connection, when it is
 * open and free, at most every 200 ms: one statement, no retry. */
static void measure_now(chime__mysql_store *s) {
  int64_t m = chime__mono_ms(), tried = atomic_load(&s->measure_tried_ms);
  if (m - tried < 200 && m >= tried)
    return;
  atomic_store(&s->measure_tried_ms, m);
  if (pthread_mutex_trylock(&s->beat_lock) != 0)
    return;
  MYSQL *db = s->beat.db;
  int64_t before = local_ms(s);
  chime__mysql_rows rows;
  if (db && chime__mysql_db_run(db, s->prefix, CHIME__Q_DB_NOW, &rows) == 0) {
    if (rows.nrows == 1 && rows.ncols == 1 &&
        !chime__mysql_rows_is_null(&rows, 0, 0))
      clock_set(s, chime__mysql_rows_int64(&rows, 0, 0), before, local_ms(s));
    chime__mysql_rows_free(&rows);
  }
  pthread_mutex_unlock(&s->beat_lock);
}

int64_t chime__mysql_now(chime_store *store) {
  chime__mysql_store *s = chime__mysql_store_of(store);
  int64_t m = local_ms(s), at = atomic_load(&s->measured_mono_ms);
  if (m < at || m - at > stale_ms(s)) {
    measure_now(s);
    m = local_ms(s);
    at = atomic_load(&s->measured_mono_ms);
    if (m < at)
      m = at; /* the clock went back: hold it until measured */
    else if (m - at > stale_ms(s))
      m = at + stale_ms(s);
  }
  return m + atomic_load(&s->offset_ms);
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
  if (!chime__mysql_rows_is_null(ret, 0, 0))
    clock_set(tx->s, chime__mysql_rows_int64(ret, 0, 0), before, after);
  return 0;
}

int chime__mysql_clock_measure(chime__mysql_tx *tx) {
  chime__mysql_rows rows;
  int r = chime__mysql_clock_query(tx, CHIME__Q_DB_NOW, NULL, 0, &rows);
  chime__mysql_rows_free(&rows);
  return r;
}

/* ------------------------------------------------------------------ pool */

/* A free pool connection; waits for one, until the monotonic deadline
 * (0: for ever).  Returns NULL when the deadline passed. */
static chime__mysql_conn *pool_get(chime__mysql_store *s, int64_t deadline) {
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
    if (!deadline) {
      pthread_cond_wait(&s->freed, &s->lock);
      continue;
    }
    int64_t left = deadline - chime__mono_ms();
    if (left <= 0) {
      pthread_mutex_unlock(&s->lock);
      return NULL;
    }
    /* s->freed waits on the monotonic clock (store.c). */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(left / 1000);
    ts.tv_nsec += (long)(left % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    (void)pthread_cond_timedwait(&s->freed, &s->lock, &ts);
  }
}

/* A connection still open on a member the store left (another connection
 * found it failed) is closed: it reopens on the current member, rather
 * than hang or fail there first.  Thread: the one holding c. */
static void follow_member(chime__mysql_store *s, chime__mysql_conn *c) {
  if (c->db && s->url->nhosts > 1 && c->member != atomic_load(&s->member))
    chime__mysql_conn_reset(c, true);
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
  chime__mysql_conn *c = pool_get(s, 0);
  follow_member(s, c);
  return c;
}

void chime__mysql_pool_give(chime__mysql_store *s, chime__mysql_conn *c) {
  pool_put(s, c);
}

/* A connection registers itself as one of this node's sessions as it
 * opens (sessions.c says why: a survivor KILLs a dead node's sessions
 * before its recovery).  Kept here with the opening rather than in
 * sessions.c, which runs its statements through this file's transactions:
 * so the two do not call each other.  Runs on the thread opening the
 * connection (it owns it). */
void chime__mysql_session_register(chime__mysql_store *s, MYSQL *db,
                                   bool autocommit) {
  assert(s && db);
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init_db(&b, db, s->prefix);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SESSION_REGISTER);
  chime__mysql_sqlbuf_at(&b, "sched");
  chime__mysql_sqlbuf_text(&b, s->sched);
  chime__mysql_sqlbuf_at(&b, "node");
  chime__mysql_sqlbuf_text(&b, s->node);
  int r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
  if (r == 0 && !autocommit)
    r = chime__mysql_db_run(db, s->prefix, CHIME__Q_COMMIT, NULL);
  if (r < 0 && r != CHIME_ENOMEM) {
    /* Before the schema exists (the first connection of a new database)
     * there is no table yet: the store registers that connection again
     * once the schema is settled. */
    unsigned e = mysql_errno(db);
    chime__mysql_log(
        s, e == ER_NO_SUCH_TABLE ? CHIME_LOG_DEBUG : CHIME_LOG_WARN,
        "cannot register a session of node %s: %s", s->node, mysql_error(db));
    if (!autocommit)
      (void)chime__mysql_db_run(db, s->prefix, CHIME__Q_ROLLBACK, NULL);
  }
}

/* Sets up a session just opened on db: statement id, its one slot (if
 * any) filled with v.  Returns: 0; CHIME_ESTORE or CHIME_ENOMEM, closing
 * db (errbuf says why). */
static int session_set(chime__mysql_store *s, MYSQL *db,
                       chime__mysql_stmt_id id, const char *slot, int64_t v,
                       char *errbuf, size_t len) {
  int r = chime__mysql_db_run_int(db, s->prefix, id, slot, v, NULL);
  if (r == 0)
    return 0;
  if (errbuf && len)
    snprintf(errbuf, len, "cannot set up the session: %s",
             r == CHIME_ENOMEM ? "out of memory" : mysql_error(db));
  mysql_close(db);
  return r == CHIME_ENOMEM ? r : CHIME_ESTORE;
}

int chime__mysql_conn_open(chime__mysql_store *s, chime__mysql_conn *c,
                           char *errbuf, size_t len) {
  assert(s && c && !c->db);
  MYSQL *db = NULL;
  chime__mysql_member_info info;
  size_t was = atomic_load(&s->member);
  int r = chime__mysql_connect_member(s->url, was, CONNECT_TIMEOUT_S,
                                      s->io_timeout_s, &db, &info, errbuf, len);
  if (r < 0)
    return r;
  c->member = info.member;
  c->galera = info.galera;
  if (info.member != was)
    atomic_compare_exchange_strong(&s->member, &was, info.member);
  if (atomic_exchange(&s->announced, info.member) != info.member)
    chime__mysql_log(s, CHIME_LOG_WARN, "moved to database member %s:%u",
                     chime__mysql_url_host(s->url, info.member),
                     chime__mysql_url_port(s->url, info.member));
  /* A member found read-only takes writes again (connect_member checked):
   * the next time it turns read-only is a new fail-over, logged again. */
  size_t warned = info.member + 1;
  atomic_compare_exchange_strong(&s->read_only_warned, &warned, 0);
  /* Every session: UTC, READ COMMITTED, the store's lock waits. */
  if ((r = session_set(s, db, CHIME__Q_SESSION_TIME_ZONE, NULL, 0, errbuf,
                       len)) < 0 ||
      (r = session_set(s, db, CHIME__Q_SESSION_ISOLATION, NULL, 0, errbuf,
                       len)) < 0 ||
      (r = session_set(s, db, CHIME__Q_SESSION_LOCK_WAIT, "seconds",
                       s->lock_wait_s, errbuf, len)) < 0 ||
      (c->galera && s->sync_wait >= 0 &&
       (r = session_set(s, db, CHIME__Q_SESSION_SYNC_WAIT, "level",
                        s->sync_wait, errbuf, len)) < 0))
    return r;
  /* Registered while autocommit is still on: one statement that commits
   * by itself, so a node frozen here holds no lock a survivor meets. */
  chime__mysql_session_register(s, db, true);
  /* Pool connections: every statement opens a transaction that COMMIT or
   * ROLLBACK ends, one round trip fewer than START TRANSACTION. */
  if (!c->autocommit && (r = session_set(s, db, CHIME__Q_SESSION_AUTOCOMMIT_OFF,
                                         NULL, 0, errbuf, len)) < 0)
    return r;
  c->db = db;
  c->was_open = true;
  return 0;
}

/* A lost connection; (ER_UNKNOWN_COM_ERROR, "WSREP has not yet prepared
 * node for application use") a Galera member that left the primary
 * component; or a server that turned read-only (a primary demoted by a
 * fail-over: 1290, 1792): each time the connection is closed and the
 * next one opens on the next member that answers and takes writes. */
static bool lost(unsigned e) {
  return e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST ||
         e == CR_CONNECTION_ERROR || e == CR_CONN_HOST_ERROR ||
         e == ER_CONNECTION_KILLED || e == CR_SERVER_LOST_EXTENDED ||
         e == ER_SERVER_SHUTDOWN || e == ER_UNKNOWN_COM_ERROR ||
         chime__mysql_read_only_error(e);
}

/* c's member failed it: new connections start from the next member
 * (unless another connection moved them already). */
static void leave_member(chime__mysql_store *s, const chime__mysql_conn *c) {
  size_t was = c->member;
  if (s->url->nhosts > 1)
    atomic_compare_exchange_strong(&s->member, &was,
                                   (c->member + 1) % s->url->nhosts);
}

void chime__mysql_leave_read_only(chime__mysql_store *s,
                                  const chime__mysql_conn *c, unsigned e) {
  assert(s && c && chime__mysql_read_only_error(e));
  size_t m = c->member;
  if (atomic_exchange(&s->read_only_warned, m + 1) != m + 1)
    chime__mysql_log(
        s, CHIME_LOG_WARN,
        "database member %s:%u is read-only (MySQL error %u): %s",
        chime__mysql_url_host(s->url, m), chime__mysql_url_port(s->url, m), e,
        s->url->nhosts > 1 ? "moving to the next member that takes writes"
                           : "reconnecting until it takes writes");
  else
    chime__mysql_log(
        s, CHIME_LOG_DEBUG, "closed a connection to read-only member %s:%u",
        chime__mysql_url_host(s->url, m), chime__mysql_url_port(s->url, m));
  leave_member(s, c);
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
  tx->commit_sent = r == 0;
  if (r == 0)
    r = chime__mysql_exec_plain(tx, CHIME__Q_COMMIT);
  if (r == 0 && atomic_load(&tx->s->test_lost_commits) > 0 &&
      atomic_fetch_sub(&tx->s->test_lost_commits, 1) > 0) {
    /* Tests: the COMMIT happened, and its reply is lost with the
     * connection, as a proxy cutting it at the wrong moment would. */
    chime__mysql_conn_reset(tx->c, true);
    tx->last_errno = CR_SERVER_LOST;
    return CHIME_ECONNECT;
  }
  if (r < 0 && tx->c->db) {
    unsigned e = tx->last_errno;
    (void)chime__mysql_db_run(tx->c->db, tx->s->prefix, CHIME__Q_ROLLBACK,
                              NULL);
    tx->last_errno = e;
  }
  return r;
}

/* Runs fn on connection c until it succeeds or fails for good (see
 * chime__mysql_tx_run). */
static int run_on(chime__mysql_store *s, chime__mysql_conn *c,
                  chime__mysql_tx_fn fn, chime__mysql_reset_fn reset, void *arg,
                  char *errbuf, size_t errbuf_len, int64_t budget_ms,
                  int64_t lock_budget_ms) {
  /* A pool connection is this thread's (busy); the heartbeat connection
   * is used under beat_lock (held: trylock fails). */
  assert(c->autocommit ? pthread_mutex_trylock(&s->beat_lock) == EBUSY
                       : c->busy);
  follow_member(s, c);
  chime__mysql_tx tx = {
      .s = s, .c = c, .errbuf = errbuf, .errbuf_len = errbuf_len};
  int64_t start = chime__mono_ms(), deadline = start + budget_ms;
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
          /* WARN: the call fails with CHIME_ECONNECT, and the outage is
           * said at ERROR once (the engine's "store outage began").  DEBUG
           * for a budget shorter than the store's (the loop's, every tick
           * of an outage; a caller that must not wait): its caller says
           * the failure. */
          chime__mysql_log(s,
                           budget_ms < RECONNECT_BUDGET_MS ? CHIME_LOG_DEBUG
                                                           : CHIME_LOG_WARN,
                           "giving up reconnecting: %s", why);
          chime__record_err(errbuf, errbuf_len, CHIME_ECONNECT, "%s", why);
          r = CHIME_ECONNECT;
          break;
        }
        int64_t pause = backoff(s, conn_tries++, 50, 2000);
        int64_t left = deadline - chime__mono_ms();
        chime__sleep_ms(pause < left ? pause : left);
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
    if (tx.commit_lost && (r == CHIME_EEXISTS || r == CHIME_ENOTFOUND)) {
      /* The earlier attempt's COMMIT happened after all: this attempt
       * found its effect (the row it added, or the row it removed gone).
       * That is the caller's success, not a failure. */
      chime__mysql_log(s, CHIME_LOG_INFO,
                       "the COMMIT whose reply was lost had happened");
      if (errbuf && errbuf_len)
        errbuf[0] = '\0';
      r = 0;
      break;
    }
    unsigned e = tx.last_errno;
    /* On Galera, a COMMIT refused with ER_ERROR_DURING_COMMIT ("not
     * connected to Primary Component") was cut off from the cluster: its
     * fate is the cluster's to tell, as for a COMMIT whose reply is lost. */
    bool cut_off = e == ER_ERROR_DURING_COMMIT && tx.c->galera;
    if (chime__mysql_read_only_error(e)) {
      /* Refused, not lost: nothing of the transaction was written (a
       * refused COMMIT rolls it back), so its retry needs no look-up. */
      chime__mysql_leave_read_only(s, tx.c, e);
      chime__mysql_conn_reset(tx.c, true);
    } else if (lost(e) || cut_off ||
               (tx.c->db && mysql_errno(tx.c->db) != 0 &&
                lost(mysql_errno(tx.c->db)))) {
      if (tx.commit_sent)
        tx.commit_lost = true;
      chime__mysql_log(s, CHIME_LOG_WARN,
                       "lost the database connection "
                       "(error %u): reconnecting",
                       e);
      leave_member(s, tx.c);
      chime__mysql_conn_reset(tx.c, true);
    } else if ((e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT) &&
               lock_budget_ms > 0 &&
               chime__mono_ms() - start >= lock_budget_ms) {
      /* The loop's own work: it must get back to its check-ins rather
       * than wait out another node's locks (it tries again later). */
      if (e == ER_LOCK_WAIT_TIMEOUT)
        lock_waited(&tx, "trying again later");
      else
        chime__mysql_log(s, CHIME_LOG_INFO,
                         "rows locked by another session (MySQL error %u): "
                         "trying again later",
                         e);
      r = CHIME_EBUSY;
      break;
    } else if ((e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT) &&
               ++lock_tries < MAX_LOCK_RETRIES) {
      if (e == ER_LOCK_WAIT_TIMEOUT)
        lock_waited(&tx, "trying again");
      else
        chime__mysql_log(s, CHIME_LOG_DEBUG, "retrying after MySQL error %u",
                         e);
      chime__sleep_ms(backoff(s, lock_tries, 2, 200));
    } else {
      if (e == ER_LOCK_WAIT_TIMEOUT)
        lock_waited(&tx, "giving up");
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
  chime__mysql_conn *c = pool_get(s, 0);
  assert(c->busy && !c->autocommit);
  int r =
      run_on(s, c, fn, reset, arg, errbuf, errbuf_len, RECONNECT_BUDGET_MS, 0);
  pool_put(s, c);
  return r;
}

int chime__mysql_tx_run_hot(chime__mysql_store *s, chime__mysql_tx_fn fn,
                            chime__mysql_reset_fn reset, void *arg) {
  assert(s && fn);
  chime__mysql_conn *c = pool_get(s, 0);
  assert(c->busy && !c->autocommit);
  int64_t budget = s->checkin_interval_ms / 2;
  int r = run_on(s, c, fn, reset, arg, NULL, 0, loop_reconnect_budget_ms(s),
                 budget > 0 ? budget : 1);
  pool_put(s, c);
  return r;
}

int chime__mysql_tx_run_within(chime__mysql_store *s, chime__mysql_tx_fn fn,
                               void *arg, int64_t budget_ms) {
  assert(s && fn && budget_ms > 0);
  chime__mysql_conn *c = pool_get(s, chime__mono_ms() + budget_ms);
  if (!c)
    return CHIME_EBUSY;
  assert(c->busy && !c->autocommit);
  int r = run_on(s, c, fn, NULL, arg, NULL, 0, budget_ms, budget_ms);
  pool_put(s, c);
  return r;
}

int chime__mysql_tx_run_beat(chime__mysql_store *s, chime__mysql_tx_fn fn,
                             void *arg) {
  assert(s && fn && s->beat.autocommit);
  pthread_mutex_lock(&s->beat_lock);
  int r = run_on(s, &s->beat, fn, NULL, arg, NULL, 0,
                 loop_reconnect_budget_ms(s), 0);
  pthread_mutex_unlock(&s->beat_lock);
  return r;
}
