/*
 * tx.h: the MySQL/MariaDB store's handle and its transactions.  tx.c holds
 * the log, the connection pool, transactions with retries and the database
 * clock; store.c opens the handle and assembles the ops table (ops.h).
 *
 * Every operation runs as one transaction through chime__mysql_tx_run,
 * which takes a connection from the pool, retries deadlocks and lock-wait
 * timeouts with jittered back-off and re-establishes lost connections
 * (bounded), rolling back on any error.  A transaction body must therefore
 * be re-runnable: it keeps its results in its argument and the reset
 * callback clears them before a retry.
 *
 * Threads and locks (the whole store follows this):
 *   - Any thread may call the store's ops.  A pool connection belongs to
 *     the thread that took it (pool_get) until it gives it back; the
 *     heartbeat connection to the thread holding beat_lock.  A connection
 *     is never used by two threads at once.
 *   - lock guards the pool (every conns[i].busy) and the back-off jitter.
 *     beat_lock serialises the heartbeat connection.  done_mu guards the
 *     completion queue (complete.c).
 *   - Lock order: beat_lock, then lock (a heartbeat retry's back-off takes
 *     lock under beat_lock); done_mu is never held with either (the
 *     completion writer releases it before running its transaction).  No
 *     lock is held across a database round trip except beat_lock, whose
 *     round trips are the heartbeat's own.
 *   - offset_ms, measured_mono_ms, measure_tried_ms and test_skew_ms are
 *     atomic: any thread reads the clock without a lock.  So are member
 *     and announced (the member of a multi-host URL connections go to):
 *     a thread that finds its member failed moves them on by a
 *     compare-and-swap, so many connections failing at once move once.
 *   - The rest of the handle is set at open and read-only afterwards, but
 *     for checkin_next_due and node_lost (the engine's loop thread only,
 *     through checkin), node_claimed (open and free) and retain.c's
 *     atomics (any thread that completes or checks in).
 */
#ifndef CHIME_JOBSTORE_MYSQL_TX_H
#define CHIME_JOBSTORE_MYSQL_TX_H

#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/url.h"
#include "jobstore/store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A completion waiting to be written (complete.c). */
typedef struct chime__mysql_completion chime__mysql_completion;

/* The misfire threshold when the store options give none. */
#define CHIME__MYSQL_MISFIRE_THRESHOLD_MS 60000

/* The magic of a live chime__mysql_store ("CHMY"). */
#define CHIME__MYSQL_STORE_MAGIC 0x43484d59u

struct chime__mysql_store {
  chime_store base; /* first: a chime_store * is a chime__mysql_store * */
  unsigned magic;   /* CHIME__MYSQL_STORE_MAGIC while open */
  chime__mysql_url *url;
  char prefix[CHIME__MYSQL_PREFIX_MAX + 1];
  char *sql[CHIME__Q_COUNT]; /* the statements with the prefix substituted */
  char *sched;               /* scheduler name */
  char *node;                /* instance id */
  int64_t threshold_ms;
  int64_t checkin_interval_ms;
  int64_t history_retention_ms;
  int64_t history_max_rows; /* 0: no bound by count */
  int64_t audit_retention_ms;
  int64_t audit_max_rows; /* 0: no bound by count */
  long lock_wait_s;       /* innodb_lock_wait_timeout */
  /* Read and write timeouts of every connection (0: none; the default
   * with several hosts, so a member that hangs is left: docs/galera.md). */
  unsigned io_timeout_s;
  long sync_wait; /* wsrep_sync_wait for every session on Galera; -1: as is */
  /* The member of the URL's host list new connections try first: the one
   * the last connection opened on; moved on when a member is lost. */
  _Atomic size_t member;
  _Atomic size_t announced; /* the member last logged as moved to */
  /* 1 + the member last logged as found read-only (0: none): one WARN per
   * fail-over, however many connections meet it; cleared when a
   * connection opens on that member again (it takes writes again). */
  _Atomic size_t read_only_warned;
  /* Tests only: moves both of this node's clocks as the store reads them
   * (a step at run time is a step of the node's clocks, as libfaketime
   * makes one). */
  _Atomic int64_t test_skew_ms;
  /* Tests only: this many COMMITs lose their reply (the connection drops
   * right after the COMMIT is done). */
  _Atomic int test_lost_commits;
  chime_log_fn log;
  void *log_user_data;
  chime_log_level log_level;
  chime_recovery_fn on_recovery; /* recover.c; may be NULL */
  void *recovery_user_data;
  char *tags;                          /* this node's (options.tags), or NULL */
  chime_shards_done_fn on_shards_done; /* shards.c; may be NULL */
  void *shards_user_data;
  chime_lock_wait_fn on_lock_wait; /* tx.c: counts a lock wait; may be NULL */
  void *lock_wait_user_data;
  pthread_mutex_t lock; /* the pool and the back-off jitter */
  pthread_cond_t freed; /* a pool connection was given back */
  chime__mysql_conn *conns;
  size_t nconns;
  /* The heartbeat connection (check-ins, next_due: in autocommit, so an
   * idle node's few statements are not doubled by COMMITs). */
  chime__mysql_conn beat;
  pthread_mutex_t beat_lock;
  /* retain.c: one maintenance step at a time per store (retain_busy);
   * when the last step ran and the last sweep of the other tables
   * (monotonic ms), and whether history has rows past its bounds left. */
  atomic_bool retain_busy;
  _Atomic int64_t retained_mono_ms;
  _Atomic int64_t swept_mono_ms;
  atomic_bool history_backlog;
  int64_t checkin_next_due; /* the last check-in's earliest WAITING fire */
  /* This node's drain request as the last check-in read it (drain.c):
   * CHIME_NODE_ACTIVE (none), DRAINING or DRAINED, and whether its
   * timeout has passed (by the database's clock). */
  int checkin_drain_state;
  bool checkin_drain_overdue;
  /* The fires this node holds EXECUTING (held.c), reported with each
   * check-in; under held_mu. */
  pthread_mutex_t held_mu;
  int64_t *held;
  size_t nheld, held_cap;
  /* The database clock - this node's monotonic clock (+ skew), and the
   * monotonic time of that measurement (tx.c: the store's clock). */
  _Atomic int64_t offset_ms;
  _Atomic int64_t measured_mono_ms;
  _Atomic int64_t measure_tried_ms; /* the last out-of-turn measurement */
  /* The distance between the ids of one multi-row INSERT; 0 when they
   * may interleave with other inserts' (innodb_autoinc_lock_mode 2). */
  int64_t id_step;
  /* Whether this node keeps runs in trigger rows (runs.c): every other
   * live node reads them, as its claim of the id and its last check-in
   * found. */
  atomic_bool runs_in_triggers;
  uint64_t jitter;   /* back-off jitter state, under lock */
  bool node_claimed; /* the nodes row is ours (node.c) */
  /* Whom this store's nodes row names (node.c: set by the claim; the
   * check-in and the leave act only on a row that still names it), and
   * whether the last check-in found the row naming another process. */
  char node_host[256];
  int64_t node_pid;
  int64_t node_started_ms;
  bool node_lost;
  /* When (monotonic ms) an unblock last passed over a trigger row another
   * session held, 0: never.  The misfire scan looks for triggers left
   * BLOCKED from then until it found none for a minute (tables.c). */
  _Atomic int64_t unblock_held_ms;
  /* Completions queue up here and are written in batches by one of the
   * waiting threads at a time (complete.c), under done_mu. */
  pthread_mutex_t done_mu;
  chime__mysql_completion *done_head, *done_tail;
  bool done_busy;     /* a thread is writing a batch */
  size_t done_queued; /* completions on the queue (tests watch it) */
  /* limit.c: the job types that have a limit as this node last read them
   * (the loop thread's: its claims and misfire scans), when (monotonic
   * ms; 0: read again at the next claim), and limit_wait_ms's answer. */
  char **limited;
  size_t nlimited;
  _Atomic int64_t limited_read_ms;
  _Atomic int64_t limit_wait;
};

/* The handle of a MySQL store (asserted by its magic: tests may wrap the
 * ops table, so the table is not the mark). */
chime__mysql_store *chime__mysql_store_of(chime_store *store);

/* A transaction in progress: one thread, one connection. */
struct chime__mysql_tx {
  chime__mysql_store *s;
  chime__mysql_conn *c;
  unsigned last_errno; /* the server's error number of the failure */
  bool commit_sent;    /* this attempt sent its COMMIT */
  /* An earlier attempt lost its connection after sending COMMIT, so it
   * may have committed: a retry that finds its effect (CHIME_EEXISTS,
   * CHIME_ENOTFOUND) reports success (tx.c); a completion that finds its
   * fired row gone asks the history whether its COMMIT or another node
   * ended the fire (complete.c). */
  bool commit_lost;
  char *errbuf; /* where messages go, may be NULL */
  size_t errbuf_len;
  /* The rows the last lock wait timeout waited for: the table, the
   * statement's WHERE and its arguments (stmt.c), for the warning. */
  char waited[320];
};

typedef int (*chime__mysql_tx_fn)(chime__mysql_tx *tx, void *arg);
typedef void (*chime__mysql_reset_fn)(void *arg);

/*
 * chime__mysql_tx_run: runs fn(tx, arg) in one transaction on a pool
 * connection (committed when fn returns 0, rolled back otherwise),
 * retrying deadlocks, lock-wait timeouts and lost connections; reset(arg)
 * (may be NULL) runs before each retry.  Waits for a free connection.
 * Returns fn's result or the transaction's error.  Thread: any; takes
 * lock (briefly) and none other.
 */
int chime__mysql_tx_run(chime__mysql_store *s, chime__mysql_tx_fn fn,
                        chime__mysql_reset_fn reset, void *arg, char *errbuf,
                        size_t errbuf_len);

/* Like chime__mysql_tx_run for the engine loop's own work (claims, fires,
 * the misfire scan, recovery): rows another session keeps locked make it
 * give up after half a check-in interval with CHIME_EBUSY, and a lost
 * connection after one check-in interval of reconnecting with
 * CHIME_ECONNECT, so that the loop gets back to its check-ins.  Thread:
 * any. */
int chime__mysql_tx_run_hot(chime__mysql_store *s, chime__mysql_tx_fn fn,
                            chime__mysql_reset_fn reset, void *arg);

/*
 * chime__mysql_tx_run_within: chime__mysql_tx_run for a caller that must
 * not wait long (fn must need no reset): it waits for a free connection and
 * reconnects for at most budget_ms in all (a round trip under way is not
 * cut short).  Returns fn's result; CHIME_EBUSY (no connection came free
 * in time); CHIME_ECONNECT (the database stayed unreachable); the
 * transaction's error.  Thread: any.
 */
int chime__mysql_tx_run_within(chime__mysql_store *s, chime__mysql_tx_fn fn,
                               void *arg, int64_t budget_ms);

/* A pool connection for a transaction the caller runs itself (the job's
 * completion transaction, fire_tx.c): waits for a free one; its db may be
 * NULL (not connected yet, or lost).  chime__mysql_pool_give returns it.
 * Thread: any; takes lock briefly. */
chime__mysql_conn *chime__mysql_pool_take(chime__mysql_store *s);
void chime__mysql_pool_give(chime__mysql_store *s, chime__mysql_conn *c);

/* Whether a MySQL error number means the connection is lost, or its
 * server is read-only (chime__mysql_read_only_error): either way the
 * connection is closed and the next one opens on the next member. */
bool chime__mysql_lost(unsigned mysql_errno);

/* c's member refused a statement as read-only (error e): logs it at WARN
 * once per member and fail-over, and makes new connections start from
 * the next member of the URL.  The caller closes c.  Thread: the one
 * holding c. */
void chime__mysql_leave_read_only(chime__mysql_store *s,
                                  const chime__mysql_conn *c, unsigned e);

/* Like chime__mysql_tx_run on the heartbeat connection, under beat_lock:
 * each statement of fn commits by itself, so fn must need no transaction.
 * Reconnects for one check-in interval (then CHIME_ECONNECT): a check-in
 * that cannot reach the database says so in time for the loop to fence
 * the node when its lease runs out.  Thread: any. */
int chime__mysql_tx_run_beat(chime__mysql_store *s, chime__mysql_tx_fn fn,
                             void *arg);

/* Opens c's connection with the pool's session settings.  Returns: 0;
 * chime__mysql_connect's errors; CHIME_ESTORE (a setting refused).
 * Thread: the one holding c. */
int chime__mysql_conn_open(chime__mysql_store *s, chime__mysql_conn *c,
                           char *errbuf, size_t len);

/* Logs through the store options' log callback at level.  Thread: any. */
void chime__mysql_log(chime__mysql_store *s, chime_log_level level,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The database clock (store.h's now): this node's monotonic clock + the
 * offset last measured, measured again first when that is stale or the
 * clock jumped (tx.c); never the wall clock, which may step.  Thread: any;
 * may take beat_lock (trylock) for one round trip. */
int64_t chime__mysql_now(chime_store *store);

/* Measures the offset on tx's connection.  Returns: 0; an error. */
int chime__mysql_clock_measure(chime__mysql_tx *tx);

/* Runs statement id, whose single row starts with the database's clock
 * (CHIME__MYSQL_NOW_MS_SQL), and measures the offset from it; *ret is the
 * caller's to free. */
int chime__mysql_clock_query(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                             const chime__mysql_arg *args, size_t nargs,
                             chime__mysql_rows *ret);

#endif /* CHIME_JOBSTORE_MYSQL_TX_H */
