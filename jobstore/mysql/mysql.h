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
 * Every operation runs as one transaction through chime__mysql_tx_run, which
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
typedef enum chime__mysql_stmt_id {
  CHIME__Q_JOB_LOCK,
  CHIME__Q_JOB_GET,
  CHIME__Q_JOB_GET_LOCK,
  CHIME__Q_JOB_FOR_TRIGGER,
  CHIME__Q_JOB_INSERT,
  CHIME__Q_JOB_UPDATE,
  CHIME__Q_JOB_DELETE,
  CHIME__Q_JOB_SET_TYPE,
  CHIME__Q_JOB_SET_DATA,
  CHIME__Q_JOB_SET_PAUSED,
  CHIME__Q_JOB_HAS_TRIGGERS,
  CHIME__Q_JOB_LIST,
  CHIME__Q_TRIG_GET,
  CHIME__Q_TRIG_GET_LOCK,
  CHIME__Q_TRIG_INSERT,
  CHIME__Q_TRIG_DELETE,
  CHIME__Q_TRIG_DELETE_OF_JOB,
  CHIME__Q_TRIG_LIST,
  CHIME__Q_TRIG_LIST_OF_JOB,
  CHIME__Q_TRIG_STATUS,
  CHIME__Q_TRIG_OF_CALENDAR,
  CHIME__Q_TRIG_CALENDAR_USED,
  CHIME__Q_PAUSE_KEY,
  CHIME__Q_PAUSE_JOB,
  CHIME__Q_PAUSE_LIKE,
  CHIME__Q_RESUME_KEY,
  CHIME__Q_RESUME_JOB,
  CHIME__Q_RESUME_LIKE,
  CHIME__Q_BLOCK_JOB,
  CHIME__Q_UNBLOCK_JOB,
  CHIME__Q_JOB_EXECUTING,
  CHIME__Q_JOB_HAS_FIRES,
  CHIME__Q_PG_LIST,
  CHIME__Q_PG_INSERT,
  CHIME__Q_PG_DELETE,
  CHIME__Q_PG_CLEAR,
  CHIME__Q_JOBS_UNPAUSE,
  CHIME__Q_CAL_GET,
  CHIME__Q_CAL_GET_LOCK,
  CHIME__Q_CAL_INSERT,
  CHIME__Q_CAL_UPDATE,
  CHIME__Q_CAL_DELETE,
  CHIME__Q_FIRED_GET,
  CHIME__Q_FIRED_DELETE,
  CHIME__Q_FIRED_OWNED,
  CHIME__Q_FIRED_OF_NODE,
  CHIME__Q_TRIG_UNCLAIM,
  CHIME__Q_MISFIRED,
  CHIME__Q_TRIG_SET_FIRE_STATE,
  CHIME__Q_HISTORY_INSERT,
  CHIME__Q_HISTORY_TRIM,
  CHIME__Q_NODE_UPSERT,
  CHIME__Q_NODES_LEASE,
  CHIME__Q_NODES_DEAD,
  CHIME__Q_NODE_LOCK,
  CHIME__Q_NODE_DELETE,
  CHIME__Q_DB_NOW,
  CHIME__Q_COUNT
} chime__mysql_stmt_id;

/* One pooled connection and its prepared statements. */
typedef struct chime__mysql_conn {
  MYSQL *db; /* NULL when lost: reconnected on next use */
  MYSQL_STMT *stmts[CHIME__Q_COUNT];
  bool busy;
  bool autocommit; /* the heartbeat connection: each statement commits */
} chime__mysql_conn;

/* A completion waiting to be written (mysql/complete.c). */
typedef struct chime__mysql_completion chime__mysql_completion;

typedef struct chime__mysql_store {
  chime_store base;
  chime__mysql_url *url;
  char prefix[33];
  char *sql[CHIME__Q_COUNT]; /* the statements with the prefix substituted */
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
  chime__mysql_conn *conns;
  size_t nconns;
  /* The heartbeat connection (check-ins, in autocommit: an idle node's
   * few statements are not doubled by COMMITs), used under beat_lock. */
  chime__mysql_conn beat;
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
  chime__mysql_completion *done_head, *done_tail;
  bool done_busy; /* a thread is writing a batch */
} chime__mysql_store;

/* A transaction in progress. */
typedef struct chime__mysql_tx {
  chime__mysql_store *s;
  chime__mysql_conn *c;
  unsigned last_errno; /* the server's error number of the failure */
  char *errbuf;        /* where messages go, may be NULL */
  size_t errbuf_len;
} chime__mysql_tx;

/* --------------------------------------------------------- parameters */

typedef enum chime__mysql_arg_kind { CHIME__MYSQL_ARG_NULL, CHIME__MYSQL_ARG_INT, CHIME__MYSQL_ARG_TEXT, CHIME__MYSQL_ARG_BYTES } chime__mysql_arg_kind;

typedef struct chime__mysql_arg {
  chime__mysql_arg_kind kind;
  int64_t i;
  const void *p;
  size_t len;
} chime__mysql_arg;

chime__mysql_arg chime__mysql_arg_int(int64_t v);
chime__mysql_arg chime__mysql_arg_text(const char *s); /* NULL: SQL NULL */
chime__mysql_arg chime__mysql_arg_bytes(const void *p, size_t len);

/* A materialised result: rows * cols cells. */
typedef struct chime__mysql_cell {
  char *v; /* NUL-terminated copy; NULL for SQL NULL */
  size_t len;
} chime__mysql_cell;

typedef struct chime__mysql_rows {
  size_t nrows, ncols;
  chime__mysql_cell *cells;
} chime__mysql_rows;

/* Cell accessors. */
const char *chime__mysql_rows_text(const chime__mysql_rows *r, size_t row, size_t col);
int64_t chime__mysql_rows_int64(const chime__mysql_rows *r, size_t row, size_t col);
size_t chime__mysql_rows_len(const chime__mysql_rows *r, size_t row, size_t col);
void chime__mysql_rows_free(chime__mysql_rows *r);

/*
 * chime__mysql_exec: runs statement id (or, when sql is not NULL, that text
 * prepared for this call) with args.  *ret_affected and *ret_insert_id may
 * be NULL.  Returns: 0; CHIME_EEXISTS (duplicate key); the mapped error
 * (tx->last_errno says which, errbuf the server's message).
 */
int chime__mysql_exec(chime__mysql_tx *tx, chime__mysql_stmt_id id, const char *sql,
                   const chime__mysql_arg *args, size_t nargs, uint64_t *ret_affected,
                   uint64_t *ret_insert_id);

/* chime__mysql_query: like chime__mysql_exec, materialising the result rows in
 * *ret (freed with chime__mysql_rows_free). */
int chime__mysql_query(chime__mysql_tx *tx, chime__mysql_stmt_id id, const char *sql,
                    const chime__mysql_arg *args, size_t nargs, chime__mysql_rows *ret);

/* Records a failed statement (the error number in tx, the message in the
 * errbuf and the log) and returns its chime error. */
int chime__mysql_fail(chime__mysql_tx *tx, unsigned err, const char *msg, const char *sql);

/* A statement built for one batch, run in the text protocol (mysql/text.c):
 * {P} is replaced by the table prefix, strings are escaped.  Out of memory
 * is remembered and reported by chime__mysql_sqlbuf_run. */
typedef struct chime__mysql_sqlbuf {
  chime__mysql_tx *tx;
  char *p;
  size_t len, cap;
  bool oom;
} chime__mysql_sqlbuf;
void chime__mysql_sqlbuf_init(chime__mysql_sqlbuf *b, chime__mysql_tx *tx);
void chime__mysql_sqlbuf_free(chime__mysql_sqlbuf *b);
void chime__mysql_sqlbuf_sql(chime__mysql_sqlbuf *b, const char *text);
void chime__mysql_sqlbuf_int(chime__mysql_sqlbuf *b, int64_t v);
void chime__mysql_sqlbuf_text(chime__mysql_sqlbuf *b, const char *s); /* NULL: SQL NULL */
/* " AND job_type IN (...)" of types; nothing when types is NULL (all). */
void chime__mysql_sqlbuf_types(chime__mysql_sqlbuf *b, const chime_type_set *types);
/* "(id, id, ...)" of the fires' ids. */
void chime__mysql_sqlbuf_fire_ids(chime__mysql_sqlbuf *b, chime_fire *const *fires, size_t n);
/* Runs the statement; *ret (may be NULL) gets its rows, *ret_affected (may
 * be NULL) the affected rows.  Returns as chime__mysql_exec. */
int chime__mysql_sqlbuf_run(chime__mysql_sqlbuf *b, chime__mysql_rows *ret, uint64_t *ret_affected);

/* Runs a plain text statement (no result).  Returns as chime__mysql_exec. */
int chime__mysql_exec_plain(chime__mysql_tx *tx, const char *sql);

/* Closes a connection's statements (and the connection when close_db). */
void chime__mysql_conn_reset(chime__mysql_conn *c, bool close_db);

/* ------------------------------------------------------- transactions */

typedef int (*chime__mysql_tx_fn)(chime__mysql_tx *tx, void *arg);
typedef void (*chime__mysql_reset_fn)(void *arg);

/*
 * chime__mysql_tx_run: runs fn(tx, arg) in one transaction (committed when fn
 * returns 0, rolled back otherwise), retrying deadlocks, lock-wait
 * timeouts and lost connections; reset(arg) (may be NULL) runs before each
 * retry.  Returns fn's result or the transaction's error.
 */
int chime__mysql_tx_run(chime__mysql_store *s, chime__mysql_tx_fn fn, chime__mysql_reset_fn reset, void *arg,
                  char *errbuf, size_t errbuf_len);
/* Like chime__mysql_tx_run on the heartbeat connection: each statement of fn
 * commits by itself, so fn must need no transaction. */
int chime__mysql_tx_run_beat(chime__mysql_store *s, chime__mysql_tx_fn fn, void *arg);
/* Opens c's connection with the session settings of the pool.  Returns:
 * 0; chime__mysql_connect's errors; CHIME_ESTORE (a setting refused). */
int chime__mysql_conn_open(chime__mysql_store *s, chime__mysql_conn *c, char *errbuf, size_t len);

/* chime__mysql_node_claim: claims this store's instance id in the nodes
 * table.  Returns: 0; CHIME_EDUPNODE (a live node of another process has
 * it, errbuf says which); a transaction error. */
int chime__mysql_node_claim(chime__mysql_store *s, char *errbuf, size_t errbuf_len);
/* chime__mysql_node_leave: removes this node's row when it holds no fires
 * (a clean close); failures are logged. */
void chime__mysql_node_leave(chime__mysql_store *s);

/* Logs through options->log at level. */
void chime__mysql_log(chime__mysql_store *s, chime_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The database clock (local + skew + measured offset). */
int64_t chime__mysql_now(chime_store *store);
/* Measures the offset on tx's connection.  Returns: 0; an error. */
int chime__mysql_clock_measure(chime__mysql_tx *tx);
/* Runs query id, whose one row starts with the database's clock, and
 * measures the offset from it; *ret is the caller's. */
int chime__mysql_clock_query(chime__mysql_tx *tx, chime__mysql_stmt_id id, const chime__mysql_arg *args,
                          size_t nargs, chime__mysql_rows *ret);

/* Builds the statement texts for s->prefix.  Returns: 0; CHIME_ENOMEM. */
int chime__mysql_sql_init(chime__mysql_store *s);
/* Text with {P} replaced by prefix (malloc'd), NULL on ENOMEM. */
char *chime__mysql_subst_prefix(const char *text, const char *prefix);

/* Creates, migrates or checks the schema per the URL (mysql/schema.c). */
int chime__mysql_schema_settle(chime__mysql_store *s, MYSQL *db, char *errbuf, size_t errbuf_len);
/* Deletes every row of this scheduler (URL parameter clear=1). */
int chime__mysql_schema_clear(chime__mysql_store *s, char *errbuf, size_t errbuf_len);

/* ---------------------------------------------------------- rows */

/* The trigger columns every trigger SELECT returns, in this order. */
#define CHIME__MYSQL_TRIGGER_COLS_SQL                                                       \
  "trigger_group, trigger_name, job_group, job_name, kind, description, "     \
  "calendar_name, data, zone_name, cron_text, start_set, start_ms, end_ms, "  \
  "misfire, priority, interval_ms, repeat_count, interval_n, interval_unit, " \
  "preserve_hour, skip_day, day_start_s, day_end_s, days_of_week, "           \
  "next_fire_ms, prev_fire_ms, times_triggered, state_start_ms, "             \
  "state_repeat_count, state, owner, claim_fire_id, recovering, "             \
  "recover_scheduled_ms, job_type"
#define CHIME__TRIG_COL_COUNT 35
#define CHIME__TRIG_COL_STATE 29
#define CHIME__TRIG_COL_OWNER 30
#define CHIME__TRIG_COL_CLAIM_FIRE_ID 31
#define CHIME__TRIG_COL_RECOVERING 32
#define CHIME__TRIG_COL_RECOVER_SCHEDULED_MS 33
#define CHIME__TRIG_COL_JOB_TYPE 34
/* Values for CHIME__Q_TRIG_INSERT (after sched_name): CHIME__TRIG_COL_COUNT of them. */
#define CHIME__MYSQL_TRIGGER_INSERT_ARGS (CHIME__TRIG_COL_COUNT + 1)

/* The job columns of CHIME__Q_JOB_GET. */
#define CHIME__MYSQL_JOB_COLS_SQL                                                           \
  "job_group, job_name, job_type, description, data, durable, "              \
  "requests_recovery, concurrency, persist_data, paused"

const char *chime__mysql_state_name(chime_store_state state);
chime_store_state chime__mysql_state_parse(const char *name);

/* A trigger from row i of a CHIME__MYSQL_TRIGGER_COLS_SQL result (calendar NULL).
 * Returns: 0; CHIME_EFORMAT (a bad row); CHIME_ENOMEM. */
int chime__mysql_trigger_from_row(const chime__mysql_rows *r, size_t i, chime_trigger **ret);
/* A job from row i of a CHIME__MYSQL_JOB_COLS_SQL result.  *ret_paused may be NULL. */
int chime__mysql_job_from_row(const chime__mysql_rows *r, size_t i, chime_job **ret,
                      bool *ret_paused);
/* Fills args[0 .. CHIME__MYSQL_TRIGGER_INSERT_ARGS) for CHIME__Q_TRIG_INSERT. */
void chime__mysql_trigger_to_args(const chime__mysql_store *s, const chime_trigger *t,
                            const char *job_type, chime__mysql_arg *args);

/* Loads a job (locked when lock).  Returns: 0; CHIME_ENOTFOUND; errors. */
int chime__mysql_job_load(chime__mysql_tx *tx, const char *group, const char *name,
                       bool lock, chime_job **ret, bool *ret_paused);
/* Loads calendar name (NULL when name is NULL).  Returns: 0;
 * CHIME_ENOTFOUND; errors. */
int chime__mysql_calendar_load(chime__mysql_tx *tx, const char *name, bool lock,
                            chime_calendar **ret);
/* The columns of CHIME__Q_FIRED_GET (a fired row). */
enum { CHIME__FIRED_COL_ID, CHIME__FIRED_COL_TRIGGER_GROUP, CHIME__FIRED_COL_TRIGGER_NAME, CHIME__FIRED_COL_JOB_GROUP, CHIME__FIRED_COL_JOB_NAME, CHIME__FIRED_COL_SCHEDULED_MS, CHIME__FIRED_COL_NODE, CHIME__FIRED_COL_STATE,
       CHIME__FIRED_COL_FORBID, CHIME__FIRED_COL_REQUESTS_RECOVERY, CHIME__FIRED_COL_RECOVERING, CHIME__FIRED_COL_PRIORITY };
/* The fired row of fire id, locked; nrows 0 when absent. */
int chime__mysql_fired_get(chime__mysql_tx *tx, int64_t id, chime__mysql_rows *rows);
/* Removes trigger (group, name) (and a non-durable job left without
 * triggers) when, checked under its lock, it is COMPLETE. */
int chime__mysql_trigger_remove_if_complete(chime__mysql_tx *tx, const char *group,
                                 const char *name);
/* Loads trigger (group, name) (locked when lock); *ret NULL when absent. */
int chime__mysql_trigger_load(chime__mysql_tx *tx, const char *group, const char *name,
                           bool lock, chime_trigger **ret);
/* Writes a trigger's fire state and store state, dropping any claim. */
int chime__mysql_trigger_save_state(chime__mysql_tx *tx, const chime_trigger *t);
/* Deletes a trigger; when cascade, a non-durable job left without
 * triggers too. */
int chime__mysql_trigger_delete(chime__mysql_tx *tx, const char *group, const char *name,
                             const char *job_group, const char *job_name,
                             bool cascade);
/* Removes a non-durable job left without triggers. */
int chime__mysql_job_gc(chime__mysql_tx *tx, const char *job_group, const char *job_name);
/* Inserts (exists false) or updates a job row. */
int chime__mysql_job_write(chime__mysql_tx *tx, const chime_job *job, bool exists);
/* Unblocks a FORBID job's triggers when none of its fires executes. */
int chime__mysql_job_unblock(chime__mysql_tx *tx, const char *group, const char *name);
/* Ends fired row i of fr (columns FC_*): deletes it, unblocks its job when
 * FORBID, removes its trigger when COMPLETE (mysql/maint.c). */
int chime__mysql_fire_end(chime__mysql_tx *tx, const chime__mysql_rows *fr, size_t i);
/* ------------------------------------------------ batches (mysql/batch.c) */

/* Inserts the fired rows of fires (ACQUIRED, or EXECUTING when executing)
 * in one statement and sets their fire ids. */
int chime__mysql_fired_insert(chime__mysql_tx *tx, chime_fire **fires, size_t n,
                           int64_t now, bool executing);
/* Stores the fire state and store state of triggers ts (locked by tx; the
 * job of ts[i] is jobs[i]), dropping their claims, in one statement. */
int chime__mysql_triggers_write(chime__mysql_tx *tx, chime_trigger *const *ts,
                             const chime_job *const *jobs, size_t n);
/* Blocks the triggers of each FORBID job among jobs (once per job). */
int chime__mysql_jobs_block(chime__mysql_tx *tx, const chime_job *const *jobs, size_t n);

/* The jobs and calendars of one batch, each loaded once. */
typedef struct chime__mysql_cache {
  chime_job **jobs;
  size_t njobs;
  char **cal_names;
  chime_calendar **cals;
  size_t ncals;
} chime__mysql_cache;
void chime__mysql_cache_clear(chime__mysql_cache *c);
/* The job (group, name), borrowed from the cache; a FORBID job's row is
 * locked.  Returns: 0; CHIME_ENOTFOUND; errors. */
int chime__mysql_cache_job(chime__mysql_tx *tx, chime__mysql_cache *c, const char *group,
                        const char *name, const chime_job **ret);
/* Quartz's triggered() on t (with its calendar, when it still exists) and
 * the store state that follows for a trigger of job. */
int chime__mysql_fire_bookkeeping(chime__mysql_tx *tx, chime__mysql_cache *c, chime_trigger *t,
                               const chime_job *job);

/* Builds a LIKE pattern for a group matcher (escape '!').  Returns: 0;
 * CHIME_EINVAL; CHIME_ELIMIT. */
int chime__mysql_like_pattern(chime_match match, const char *pattern, char *buf,
                   size_t len);

/* The ops of the other files. */
int chime__mysql_job_add(chime_store *store, const chime_job *job, bool replace);
int chime__mysql_job_remove(chime_store *store, const char *group,
                         const char *name);
int chime__mysql_job_get(chime_store *store, const char *group, const char *name,
                      chime_job **ret_job);
int chime__mysql_job_list(chime_store *store, chime_match match,
                       const char *pattern, chime_key **ret_keys,
                       size_t *ret_count);
int chime__mysql_trigger_add(chime_store *store, const chime_job *job,
                          const chime_trigger *trigger, bool replace,
                          int64_t *ret_first_fire_ms, char *errbuf,
                          size_t errbuf_len);
int chime__mysql_trigger_remove(chime_store *store, const char *group,
                             const char *name);
int chime__mysql_trigger_replace(chime_store *store, const char *group,
                              const char *name, const chime_trigger *trigger,
                              int64_t *ret_first_fire_ms, char *errbuf,
                              size_t errbuf_len);
int chime__mysql_trigger_get(chime_store *store, const char *group,
                          const char *name, chime_trigger **ret_trigger);
int chime__mysql_trigger_list(chime_store *store, chime_match match,
                           const char *pattern, chime_key **ret_keys,
                           size_t *ret_count);
int chime__mysql_trigger_list_for_job(chime_store *store, const char *job_group,
                                   const char *job_name, chime_key **ret_keys,
                                   size_t *ret_count);
int chime__mysql_trigger_status(chime_store *store, const char *group,
                             const char *name,
                             chime_trigger_status *ret_status);
int chime__mysql_calendar_add(chime_store *store, const char *name,
                           const chime_calendar *calendar, bool replace,
                           bool update_triggers);
int chime__mysql_calendar_remove(chime_store *store, const char *name);
int chime__mysql_calendar_get(chime_store *store, const char *name,
                           chime_calendar **ret_calendar);
int chime__mysql_pause_trigger(chime_store *store, const char *group,
                            const char *name);
int chime__mysql_resume_trigger(chime_store *store, const char *group,
                             const char *name);
int chime__mysql_pause_job(chime_store *store, const char *group,
                        const char *name);
int chime__mysql_resume_job(chime_store *store, const char *group,
                         const char *name);
int chime__mysql_pause_group(chime_store *store, chime_match match,
                          const char *pattern);
int chime__mysql_resume_group(chime_store *store, chime_match match,
                           const char *pattern);
int chime__mysql_pause_all(chime_store *store);
int chime__mysql_resume_all(chime_store *store);
int chime__mysql_group_paused(chime__mysql_tx *tx, const char *group, bool *ret);
int chime__mysql_acquire(chime_store *store, int64_t now_ms,
                      int64_t no_later_than_ms, size_t max,
                      const chime_type_set *types, chime_fire ***ret_fires,
                      size_t *ret_count);
int chime__mysql_fire(chime_store *store, chime_fire **fires, size_t count,
                   int64_t now_ms);
int chime__mysql_acquire_due(chime_store *store, int64_t now_ms, size_t max,
                          const chime_type_set *types,
                          chime_fire ***ret_fires, size_t *ret_count);
int chime__mysql_complete(chime_store *store, const chime_fire *fire,
                       const chime_outcome *outcome);
int chime__mysql_release(chime_store *store, chime_fire **fires, size_t count);
int chime__mysql_still_owned(chime_store *store, int64_t fire_id,
                          bool *ret_owned);
int chime__mysql_next_due(chime_store *store, const chime_type_set *types,
                       int64_t *ret_ms);
int chime__mysql_scan_misfires(chime_store *store, int64_t now_ms, size_t max,
                            chime_misfire_fn on_misfire, void *user_data,
                            size_t *ret_handled, bool *ret_more);
int chime__mysql_checkin(chime_store *store, int64_t now_ms,
                      int64_t *ret_recover_in_ms);
int chime__mysql_recover_dead_nodes(chime_store *store, int64_t now_ms,
                      size_t *ret_recovered);



#endif /* CHIME_JOBSTORE_MYSQL_MYSQL_H */
