/*
 * mysql.h: the inside of the MySQL/MariaDB store (tx.c: the connection
 * pool, transactions and the clock; store.c: opening and the ops table;
 * stmt.c: prepared statements; schema.c: the schema; rows.c: records to
 * and from rows; defs.c, trig.c, pause.c: jobs, triggers, calendars,
 * pausing; acquire.c, fire.c, batch.c, complete.c, maint.c, recover.c,
 * node.c: claiming, firing, completing, maintenance and recovery of dead
 * nodes).  docs/schema.md
 * describes the tables and the protocol.
 *
 * Every operation runs as one transaction through chime__my_run, which
 * takes a connection from the pool, retries deadlocks and lock-wait
 * timeouts with jittered back-off and re-establishes lost connections
 * (bounded), rolling back on any error.  A transaction body must therefore
 * be re-runnable: it keeps its results in its argument and the reset
 * callback clears them before a retry.
 */
#ifndef CHIME_JOBSTORE_MYSQL_MYSQL_H
#define CHIME_JOBSTORE_MYSQL_MYSQL_H

#include "jobstore/mysql/conn.h"
#include "jobstore/store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The schema version this library writes (sql/NNN_*.sql). */
extern const char *const *const chime__mysql_migrations[];
extern const size_t chime__mysql_migration_count;

/* The statements prepared once per connection (mysql/stmt.c's table). */
typedef enum my_stmt_id {
  Q_JOB_LOCK,
  Q_JOB_GET,
  Q_JOB_GET_LOCK,
  Q_JOB_FOR_TRIGGER,
  Q_JOB_INSERT,
  Q_JOB_UPDATE,
  Q_JOB_DELETE,
  Q_JOB_SET_TYPE,
  Q_JOB_SET_DATA,
  Q_JOB_SET_PAUSED,
  Q_JOB_HAS_TRIGGERS,
  Q_JOB_LIST,
  Q_TRIG_GET,
  Q_TRIG_GET_LOCK,
  Q_TRIG_INSERT,
  Q_TRIG_DELETE,
  Q_TRIG_DELETE_OF_JOB,
  Q_TRIG_LIST,
  Q_TRIG_LIST_OF_JOB,
  Q_TRIG_STATUS,
  Q_TRIG_OF_CALENDAR,
  Q_TRIG_CALENDAR_USED,
  Q_PAUSE_KEY,
  Q_PAUSE_JOB,
  Q_PAUSE_LIKE,
  Q_RESUME_KEY,
  Q_RESUME_JOB,
  Q_RESUME_LIKE,
  Q_BLOCK_JOB,
  Q_UNBLOCK_JOB,
  Q_JOB_EXECUTING,
  Q_JOB_HAS_FIRES,
  Q_PG_LIST,
  Q_PG_INSERT,
  Q_PG_DELETE,
  Q_PG_CLEAR,
  Q_JOBS_UNPAUSE,
  Q_CAL_GET,
  Q_CAL_GET_LOCK,
  Q_CAL_INSERT,
  Q_CAL_UPDATE,
  Q_CAL_DELETE,
  Q_FIRED_GET,
  Q_FIRED_DELETE,
  Q_FIRED_OWNED,
  Q_FIRED_OF_NODE,
  Q_TRIG_UNCLAIM,
  Q_MISFIRED,
  Q_TRIG_SET_FIRE_STATE,
  Q_HISTORY_INSERT,
  Q_HISTORY_TRIM,
  Q_NODE_UPSERT,
  Q_NODES_LEASE,
  Q_NODES_DEAD,
  Q_NODE_LOCK,
  Q_NODE_DELETE,
  Q_DB_NOW,
  Q_COUNT
} my_stmt_id;

/* One pooled connection and its prepared statements. */
typedef struct my_conn {
  MYSQL *db; /* NULL when lost: reconnected on next use */
  MYSQL_STMT *stmts[Q_COUNT];
  bool busy;
  bool autocommit; /* the heartbeat connection: each statement commits */
} my_conn;

/* A completion waiting to be written (mysql/complete.c). */
typedef struct my_done my_done;

typedef struct my_store {
  chime_store base;
  chime_mysql_url *url;
  char prefix[33];
  char *sql[Q_COUNT]; /* the statements with the prefix substituted */
  char *sched;        /* scheduler name */
  char *node;         /* instance id */
  int64_t threshold_ms;
  int64_t checkin_interval_ms;
  int64_t history_retention_ms;
  long lock_wait_s; /* innodb_lock_wait_timeout */
  int64_t test_skew_ms;
  chime_log_fn log;
  void *log_user_data;
  chime_log_level log_level;
  pthread_mutex_t lock; /* guards the pool and the back-off jitter */
  pthread_cond_t freed;
  my_conn *conns;
  size_t nconns;
  /* The heartbeat connection (check-ins, in autocommit: an idle node's
   * few statements are not doubled by COMMITs), used under beat_lock. */
  my_conn beat;
  pthread_mutex_t beat_lock;
  int64_t trimmed_ms; /* when history was last trimmed (local clock) */
  _Atomic int64_t offset_ms; /* database clock - (local clock + skew) */
  /* The distance between the ids of one multi-row INSERT; 0 when they
   * may interleave with other inserts' (innodb_autoinc_lock_mode 2). */
  int64_t id_step;
  uint64_t jitter;   /* back-off jitter state */
  bool node_claimed; /* the nodes row is ours (mysql/node.c) */
  /* Completions queue up here and are written in batches by one of the
   * waiting threads at a time (mysql/complete.c). */
  pthread_mutex_t done_mu;
  my_done *done_head, *done_tail;
  bool done_busy; /* a thread is writing a batch */
} my_store;

/* A transaction in progress. */
typedef struct my_tx {
  my_store *s;
  my_conn *c;
  unsigned last_errno; /* the server's error number of the failure */
  char *errbuf;        /* where messages go, may be NULL */
  size_t errbuf_len;
} my_tx;

/* --------------------------------------------------------- parameters */

typedef enum my_arg_kind { A_NULL, A_INT, A_TEXT, A_BYTES } my_arg_kind;

typedef struct my_arg {
  my_arg_kind kind;
  int64_t i;
  const void *p;
  size_t len;
} my_arg;

my_arg chime__my_int(int64_t v);
my_arg chime__my_text(const char *s); /* NULL: SQL NULL */
my_arg chime__my_bytes(const void *p, size_t len);

/* A materialised result: rows * cols cells. */
typedef struct my_cell {
  char *v; /* NUL-terminated copy; NULL for SQL NULL */
  size_t len;
} my_cell;

typedef struct my_rows {
  size_t nrows, ncols;
  my_cell *cells;
} my_rows;

/* Cell accessors. */
const char *chime__my_s(const my_rows *r, size_t row, size_t col);
int64_t chime__my_i(const my_rows *r, size_t row, size_t col);
size_t chime__my_len(const my_rows *r, size_t row, size_t col);
void chime__my_rows_free(my_rows *r);

/*
 * chime__my_exec: runs statement id (or, when sql is not NULL, that text
 * prepared for this call) with args.  *ret_affected and *ret_insert_id may
 * be NULL.  Returns: 0; CHIME_EEXISTS (duplicate key); the mapped error
 * (tx->last_errno says which, errbuf the server's message).
 */
int chime__my_exec(my_tx *tx, my_stmt_id id, const char *sql,
                   const my_arg *args, size_t nargs, uint64_t *ret_affected,
                   uint64_t *ret_insert_id);

/* chime__my_query: like chime__my_exec, materialising the result rows in
 * *ret (freed with chime__my_rows_free). */
int chime__my_query(my_tx *tx, my_stmt_id id, const char *sql,
                    const my_arg *args, size_t nargs, my_rows *ret);

/* Records a failed statement (the error number in tx, the message in the
 * errbuf and the log) and returns its chime error. */
int chime__my_fail(my_tx *tx, unsigned err, const char *msg, const char *sql);

/* A statement built for one batch, run in the text protocol (mysql/text.c):
 * {P} is replaced by the table prefix, strings are escaped.  Out of memory
 * is remembered and reported by chime__my_buf_run. */
typedef struct my_buf {
  my_tx *tx;
  char *p;
  size_t len, cap;
  bool oom;
} my_buf;
void chime__my_buf_init(my_buf *b, my_tx *tx);
void chime__my_buf_free(my_buf *b);
void chime__my_buf_sql(my_buf *b, const char *text);
void chime__my_buf_int(my_buf *b, int64_t v);
void chime__my_buf_str(my_buf *b, const char *s); /* NULL: SQL NULL */
/* " AND job_type IN (...)" of types; nothing when types is NULL (all). */
void chime__my_buf_types(my_buf *b, const chime_type_set *types);
/* "(id, id, ...)" of the fires' ids. */
void chime__my_buf_ids(my_buf *b, chime_fire *const *fires, size_t n);
/* Runs the statement; *ret (may be NULL) gets its rows, *ret_affected (may
 * be NULL) the affected rows.  Returns as chime__my_exec. */
int chime__my_buf_run(my_buf *b, my_rows *ret, uint64_t *ret_affected);

/* Runs a plain text statement (no result).  Returns as chime__my_exec. */
int chime__my_simple(my_tx *tx, const char *sql);

/* Closes a connection's statements (and the connection when close_db). */
void chime__my_conn_reset(my_conn *c, bool close_db);

/* ------------------------------------------------------- transactions */

typedef int (*my_tx_fn)(my_tx *tx, void *arg);
typedef void (*my_reset_fn)(void *arg);

/*
 * chime__my_run: runs fn(tx, arg) in one transaction (committed when fn
 * returns 0, rolled back otherwise), retrying deadlocks, lock-wait
 * timeouts and lost connections; reset(arg) (may be NULL) runs before each
 * retry.  Returns fn's result or the transaction's error.
 */
int chime__my_run(my_store *s, my_tx_fn fn, my_reset_fn reset, void *arg,
                  char *errbuf, size_t errbuf_len);
/* Like chime__my_run on the heartbeat connection: each statement of fn
 * commits by itself, so fn must need no transaction. */
int chime__my_run_beat(my_store *s, my_tx_fn fn, void *arg);
/* Opens c's connection with the session settings of the pool.  Returns:
 * 0; chime__mysql_connect's errors; CHIME_ESTORE (a setting refused). */
int chime__my_conn_open(my_store *s, my_conn *c, char *errbuf, size_t len);

/* chime__my_node_claim: claims this store's instance id in the nodes
 * table.  Returns: 0; CHIME_EDUPNODE (a live node of another process has
 * it, errbuf says which); a transaction error. */
int chime__my_node_claim(my_store *s, char *errbuf, size_t errbuf_len);
/* chime__my_node_leave: removes this node's row when it holds no fires
 * (a clean close); failures are logged. */
void chime__my_node_leave(my_store *s);

/* Logs through options->log at level. */
void chime__my_log(my_store *s, chime_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The database clock (local + skew + measured offset). */
int64_t chime__my_now(chime_store *store);
/* Measures the offset on tx's connection.  Returns: 0; an error. */
int chime__my_measure_clock(my_tx *tx);
/* Runs query id, whose one row starts with the database's clock, and
 * measures the offset from it; *ret is the caller's. */
int chime__my_clock_query(my_tx *tx, my_stmt_id id, const my_arg *args,
                          size_t nargs, my_rows *ret);

/* Builds the statement texts for s->prefix.  Returns: 0; CHIME_ENOMEM. */
int chime__my_sql_init(my_store *s);
/* Text with {P} replaced by prefix (malloc'd), NULL on ENOMEM. */
char *chime__my_subst(const char *text, const char *prefix);

/* Creates, migrates or checks the schema per the URL (mysql/schema.c). */
int chime__my_schema(my_store *s, MYSQL *db, char *errbuf, size_t errbuf_len);
/* Deletes every row of this scheduler (URL parameter clear=1). */
int chime__my_clear(my_store *s, char *errbuf, size_t errbuf_len);

/* ---------------------------------------------------------- rows */

/* The trigger columns every trigger SELECT returns, in this order. */
#define MY_TRIGGER_COLS                                                       \
  "trigger_group, trigger_name, job_group, job_name, kind, description, "     \
  "calendar_name, data, zone_name, cron_text, start_set, start_ms, end_ms, "  \
  "misfire, priority, interval_ms, repeat_count, interval_n, interval_unit, " \
  "preserve_hour, skip_day, day_start_s, day_end_s, days_of_week, "           \
  "next_fire_ms, prev_fire_ms, times_triggered, state_start_ms, "             \
  "state_repeat_count, state, owner, claim_fire_id, recovering, "             \
  "recover_scheduled_ms, job_type"
#define MY_TRIGGER_NCOLS 35
#define MY_TC_STATE 29
#define MY_TC_OWNER 30
#define MY_TC_CLAIM 31
#define MY_TC_RECOVERING 32
#define MY_TC_RECOVER_MS 33
#define MY_TC_JOB_TYPE 34
/* Values for Q_TRIG_INSERT (after sched_name): MY_TRIGGER_NCOLS of them. */
#define MY_TRIGGER_INSERT_ARGS (MY_TRIGGER_NCOLS + 1)

/* The job columns of Q_JOB_GET. */
#define MY_JOB_COLS                                                           \
  "job_group, job_name, job_type, description, data, durable, "              \
  "requests_recovery, concurrency, persist_data, paused"

const char *chime__my_state_name(chime_store_state state);
chime_store_state chime__my_state_parse(const char *name);

/* A trigger from row i of a MY_TRIGGER_COLS result (calendar NULL).
 * Returns: 0; CHIME_EFORMAT (a bad row); CHIME_ENOMEM. */
int chime__my_row_trigger(const my_rows *r, size_t i, chime_trigger **ret);
/* A job from row i of a MY_JOB_COLS result.  *ret_paused may be NULL. */
int chime__my_row_job(const my_rows *r, size_t i, chime_job **ret,
                      bool *ret_paused);
/* Fills args[0 .. MY_TRIGGER_INSERT_ARGS) for Q_TRIG_INSERT. */
void chime__my_trigger_args(const my_store *s, const chime_trigger *t,
                            const char *job_type, my_arg *args);

/* Loads a job (locked when lock).  Returns: 0; CHIME_ENOTFOUND; errors. */
int chime__my_job_load(my_tx *tx, const char *group, const char *name,
                       bool lock, chime_job **ret, bool *ret_paused);
/* Loads calendar name (NULL when name is NULL).  Returns: 0;
 * CHIME_ENOTFOUND; errors. */
int chime__my_calendar_load(my_tx *tx, const char *name, bool lock,
                            chime_calendar **ret);
/* The columns of Q_FIRED_GET (a fired row). */
enum { FC_ID, FC_TG, FC_TN, FC_JG, FC_JN, FC_SCHED, FC_NODE, FC_STATE,
       FC_FORBID, FC_RR, FC_RECOVERING, FC_PRIORITY };
/* The fired row of fire id, locked; nrows 0 when absent. */
int chime__my_fired_get(my_tx *tx, int64_t id, my_rows *rows);
/* Removes trigger (group, name) (and a non-durable job left without
 * triggers) when, checked under its lock, it is COMPLETE. */
int chime__my_remove_if_complete(my_tx *tx, const char *group,
                                 const char *name);
/* Loads trigger (group, name) (locked when lock); *ret NULL when absent. */
int chime__my_trigger_load(my_tx *tx, const char *group, const char *name,
                           bool lock, chime_trigger **ret);
/* Writes a trigger's fire state and store state, dropping any claim. */
int chime__my_trigger_save_state(my_tx *tx, const chime_trigger *t);
/* Deletes a trigger; when cascade, a non-durable job left without
 * triggers too. */
int chime__my_trigger_delete(my_tx *tx, const char *group, const char *name,
                             const char *job_group, const char *job_name,
                             bool cascade);
/* Removes a non-durable job left without triggers. */
int chime__my_job_gc(my_tx *tx, const char *job_group, const char *job_name);
/* Inserts (exists false) or updates a job row. */
int chime__my_job_write(my_tx *tx, const chime_job *job, bool exists);
/* Unblocks a FORBID job's triggers when none of its fires executes. */
int chime__my_unblock_job(my_tx *tx, const char *group, const char *name);
/* Ends fired row i of fr (columns FC_*): deletes it, unblocks its job when
 * FORBID, removes its trigger when COMPLETE (mysql/maint.c). */
int chime__my_end_fire(my_tx *tx, const my_rows *fr, size_t i);
/* ------------------------------------------------ batches (mysql/batch.c) */

/* Inserts the fired rows of fires (ACQUIRED, or EXECUTING when executing)
 * in one statement and sets their fire ids. */
int chime__my_fired_insert(my_tx *tx, chime_fire **fires, size_t n,
                           int64_t now, bool executing);
/* Stores the fire state and store state of triggers ts (locked by tx; the
 * job of ts[i] is jobs[i]), dropping their claims, in one statement. */
int chime__my_triggers_write(my_tx *tx, chime_trigger *const *ts,
                             const chime_job *const *jobs, size_t n);
/* Blocks the triggers of each FORBID job among jobs (once per job). */
int chime__my_block_jobs(my_tx *tx, const chime_job *const *jobs, size_t n);

/* The jobs and calendars of one batch, each loaded once. */
typedef struct my_cache {
  chime_job **jobs;
  size_t njobs;
  char **cal_names;
  chime_calendar **cals;
  size_t ncals;
} my_cache;
void chime__my_cache_clear(my_cache *c);
/* The job (group, name), borrowed from the cache; a FORBID job's row is
 * locked.  Returns: 0; CHIME_ENOTFOUND; errors. */
int chime__my_cache_job(my_tx *tx, my_cache *c, const char *group,
                        const char *name, const chime_job **ret);
/* Quartz's triggered() on t (with its calendar, when it still exists) and
 * the store state that follows for a trigger of job. */
int chime__my_fire_bookkeeping(my_tx *tx, my_cache *c, chime_trigger *t,
                               const chime_job *job);

/* Builds a LIKE pattern for a group matcher (escape '!').  Returns: 0;
 * CHIME_EINVAL; CHIME_ELIMIT. */
int chime__my_like(chime_match match, const char *pattern, char *buf,
                   size_t len);

/* The ops of the other files. */
int chime__my_job_add(chime_store *store, const chime_job *job, bool replace);
int chime__my_job_remove(chime_store *store, const char *group,
                         const char *name);
int chime__my_job_get(chime_store *store, const char *group, const char *name,
                      chime_job **ret_job);
int chime__my_job_list(chime_store *store, chime_match match,
                       const char *pattern, chime_key **ret_keys,
                       size_t *ret_count);
int chime__my_trigger_add(chime_store *store, const chime_job *job,
                          const chime_trigger *trigger, bool replace,
                          int64_t *ret_first_fire_ms, char *errbuf,
                          size_t errbuf_len);
int chime__my_trigger_remove(chime_store *store, const char *group,
                             const char *name);
int chime__my_trigger_replace(chime_store *store, const char *group,
                              const char *name, const chime_trigger *trigger,
                              int64_t *ret_first_fire_ms, char *errbuf,
                              size_t errbuf_len);
int chime__my_trigger_get(chime_store *store, const char *group,
                          const char *name, chime_trigger **ret_trigger);
int chime__my_trigger_list(chime_store *store, chime_match match,
                           const char *pattern, chime_key **ret_keys,
                           size_t *ret_count);
int chime__my_trigger_list_for_job(chime_store *store, const char *job_group,
                                   const char *job_name, chime_key **ret_keys,
                                   size_t *ret_count);
int chime__my_trigger_status(chime_store *store, const char *group,
                             const char *name,
                             chime_trigger_status *ret_status);
int chime__my_calendar_add(chime_store *store, const char *name,
                           const chime_calendar *calendar, bool replace,
                           bool update_triggers);
int chime__my_calendar_remove(chime_store *store, const char *name);
int chime__my_calendar_get(chime_store *store, const char *name,
                           chime_calendar **ret_calendar);
int chime__my_pause_trigger(chime_store *store, const char *group,
                            const char *name);
int chime__my_resume_trigger(chime_store *store, const char *group,
                             const char *name);
int chime__my_pause_job(chime_store *store, const char *group,
                        const char *name);
int chime__my_resume_job(chime_store *store, const char *group,
                         const char *name);
int chime__my_pause_group(chime_store *store, chime_match match,
                          const char *pattern);
int chime__my_resume_group(chime_store *store, chime_match match,
                           const char *pattern);
int chime__my_pause_all(chime_store *store);
int chime__my_resume_all(chime_store *store);
int chime__my_group_paused(my_tx *tx, const char *group, bool *ret);
int chime__my_acquire(chime_store *store, int64_t now_ms,
                      int64_t no_later_than_ms, size_t max,
                      const chime_type_set *types, chime_fire ***ret_fires,
                      size_t *ret_count);
int chime__my_fire(chime_store *store, chime_fire **fires, size_t count,
                   int64_t now_ms);
int chime__my_acquire_due(chime_store *store, int64_t now_ms, size_t max,
                          const chime_type_set *types,
                          chime_fire ***ret_fires, size_t *ret_count);
int chime__my_complete(chime_store *store, const chime_fire *fire,
                       const chime_outcome *outcome);
int chime__my_release(chime_store *store, chime_fire **fires, size_t count);
int chime__my_still_owned(chime_store *store, int64_t fire_id,
                          bool *ret_owned);
int chime__my_next_due(chime_store *store, const chime_type_set *types,
                       int64_t *ret_ms);
int chime__my_scan_misfires(chime_store *store, int64_t now_ms, size_t max,
                            chime_misfire_fn on_misfire, void *user_data,
                            size_t *ret_handled, bool *ret_more);
int chime__my_checkin(chime_store *store, int64_t now_ms,
                      int64_t *ret_recover_in_ms);
int chime__my_recover(chime_store *store, int64_t now_ms,
                      size_t *ret_recovered);



#endif /* CHIME_JOBSTORE_MYSQL_MYSQL_H */
