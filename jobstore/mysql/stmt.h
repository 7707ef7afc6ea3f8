/*
 * stmt.h: the statements of the MySQL store.
 *
 *   - queries/NAME.sql: the text of each statement, embedded at build time
 *     (queries/embed.py); sql.c substitutes the table prefix ({P}) once
 *     per store; the lease rule in SQL; LIKE patterns for group matchers.
 *   - stmt.c: preparing a statement once per connection, binding typed
 *     arguments, running it and materialising its rows (result.h).
 *   - text.c: statements built for one batch (IN lists, multi-row
 *     INSERTs) and sent in the text protocol.
 *
 * Every function here runs inside a transaction (tx.h) and uses its
 * connection, which belongs to the calling thread for the transaction's
 * length, but the connection-level statements (chime__mysql_sqlbuf_init_db),
 * which run on a bare connection the caller owns: nothing here takes a
 * lock.  Errors are the tx's: the server's
 * error number is kept in tx->last_errno, its message goes to tx's errbuf
 * and the log, and the chime code is returned.
 */
#ifndef CHIME_JOBSTORE_MYSQL_STMT_H
#define CHIME_JOBSTORE_MYSQL_STMT_H

#include "jobstore/mysql/result.h"
#include "jobstore/store.h"

#include <mysql.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct chime__mysql_store chime__mysql_store;
typedef struct chime__mysql_tx chime__mysql_tx;

/* The statements of the store: CHIME__Q_NAME's text is the file
 * jobstore/mysql/queries/name.sql (CONTRIBUTING.md, "Adding a
 * statement").  A prepared one is prepared once per connection. */
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
  CHIME__Q_JOB_DURABLE_READ,
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
  CHIME__Q_TRIG_OF_ZONE,
  CHIME__Q_TRIG_OF_CAL_BATCH,
  CHIME__Q_CAL_LIST,
  CHIME__Q_PAUSE_KEY,
  CHIME__Q_PAUSE_JOB,
  CHIME__Q_PAUSE_LIKE,
  CHIME__Q_RESUME_KEY,
  CHIME__Q_RESUME_JOB,
  CHIME__Q_RESUME_LIKE,
  CHIME__Q_JOBS_BLOCKED_IDLE,
  CHIME__Q_JOB_EXECUTING,
  CHIME__Q_JOB_HAS_FIRES,
  CHIME__Q_PG_LIST,
  CHIME__Q_PG_INSERT,
  CHIME__Q_PG_DELETE,
  CHIME__Q_PG_CLEAR,
  CHIME__Q_JOBS_UNPAUSE,
  CHIME__Q_CAL_GET,
  CHIME__Q_CAL_READ,
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
  CHIME__Q_NODE_INSERT,
  CHIME__Q_NODE_TAKE,
  CHIME__Q_NODE_STAMP,
  CHIME__Q_NODE_LOCK,
  CHIME__Q_NODE_HOLDER,
  CHIME__Q_NODE_LEAVE,
  CHIME__Q_NODES_LEASE,
  CHIME__Q_NODES_DEAD,
  CHIME__Q_NODE_DEAD_LOCK,
  CHIME__Q_NODE_DELETE,
  CHIME__Q_DB_NOW,
  CHIME__Q_LEASE_TAKE,
  CHIME__Q_LEASE_GET,
  CHIME__Q_LEASE_EXTEND,
  CHIME__Q_LEASE_RELEASE,
  CHIME__Q_LEASE_HELD,
  CHIME__Q_LEASE_EXPIRE,
  CHIME__Q_LEASE_LIST,
  CHIME__Q_AUDIT_LIST,
  CHIME__Q_HISTORY_RUN_COUNTS,
  CHIME__Q_HISTORY_LATENESS,
  CHIME__Q_TRIGGER_STATE_COUNTS,
  CHIME__Q_FIRED_STATE_COUNTS,
  CHIME__Q_DRAIN_LIST,
  CHIME__Q_HISTORY_ACTIVITY,
  CHIME__Q_NODE_EVENTS,
  CHIME__Q_RETRY_LINKS,
  CHIME__Q_RETRY_LINKS_OF,
  CHIME__Q_SHARD_LIST,
  CHIME__Q_TRIG_LIST_LATE,
  CHIME__Q_ADMIN_NODES,
  CHIME__Q_ADMIN_JOBS,
  CHIME__Q_ADMIN_TRIGGERS,
  CHIME__Q_ADMIN_FIRES,
  CHIME__Q_CHECKPOINT_SET,
  CHIME__Q_CHECKPOINT_GET,
  CHIME__Q_ADMIN_STORAGE,
  CHIME__Q_ADMIN_SESSIONS,
  /* Text statements (chime__mysql_sqlbuf_stmt), never prepared. */
  CHIME__Q_CLAIM_DUE,
  CHIME__Q_CLAIM_JOB_LOCK,
  CHIME__Q_CLAIM_MARK,
  CHIME__Q_COMPLETE_HISTORY_CHECK,
  CHIME__Q_COMPLETE_LOCK_FIRED,
  CHIME__Q_COMPLETE_DELETE_FIRED,
  CHIME__Q_COMPLETE_HISTORY_INSERT,
  CHIME__Q_COMPLETE_DROP_CHECKPOINTS,
  CHIME__Q_TRIG_GET_LOCK_MANY,
  CHIME__Q_TRIG_DELETE_MANY,
  CHIME__Q_FIRED_INSERT,
  CHIME__Q_FIRED_READ_IDS,
  CHIME__Q_TRIGGERS_WRITE,
  CHIME__Q_FIRE_LOCK_BATCH,
  CHIME__Q_FIRE_WRITE_EXECUTING,
  CHIME__Q_SESSIONS_OF_NODE,
  CHIME__Q_SESSIONS_FORGET,
  CHIME__Q_REPAIR_BLOCKED_COUNT,
  CHIME__Q_FIRE_TX_LOCK,
  CHIME__Q_SERVER_ID_SETTINGS,
  CHIME__Q_INTERRUPT_FLAG,
  CHIME__Q_INTERRUPT_LIST,
  CHIME__Q_AUDIT_INSERT,
  CHIME__Q_NEXT_DUE,
  CHIME__Q_MISFIRED_UNLIMITED,
  CHIME__Q_DRAIN_KNOWN,
  CHIME__Q_DRAIN_REQUEST,
  CHIME__Q_DRAIN_CANCEL,
  CHIME__Q_DRAIN_STATE,
  CHIME__Q_DRAIN_DONE,
  CHIME__Q_SKIP_HISTORY_INSERT,
  CHIME__Q_SKIP_CANDIDATES,
  CHIME__Q_RETAIN_HISTORY_IDS,
  CHIME__Q_RETAIN_HISTORY_TRIM_AGE,
  CHIME__Q_RETAIN_HISTORY_TRIM_COUNT,
  CHIME__Q_RETAIN_SWEEP_SESSIONS,
  CHIME__Q_RETAIN_SWEEP_LEASES,
  CHIME__Q_RETAIN_SWEEP_CHECKPOINTS,
  CHIME__Q_RETAIN_SWEEP_TRIGGERS,
  CHIME__Q_RETAIN_SWEEP_AUDIT_AGE,
  CHIME__Q_RETAIN_AUDIT_CUT,
  CHIME__Q_RETAIN_SWEEP_AUDIT_COUNT,
  CHIME__Q_SHARD_LIVE_COUNT,
  CHIME__Q_SHARD_SPLIT,
  CHIME__Q_SHARD_ROOM,
  CHIME__Q_SHARD_ENDED,
  CHIME__Q_SHARDS_OF_REMOVED,
  CHIME__Q_JOB_BLOCK_LOCK,
  CHIME__Q_JOB_BLOCK_SET,
  CHIME__Q_JOB_UNBLOCK_LOCK,
  CHIME__Q_JOB_UNBLOCK_SET,
  CHIME__Q_JOB_UNBLOCK_HELD,
  CHIME__Q_LIMITS_TYPES,
  CHIME__Q_LIMIT_COUNT_RUNNING,
  CHIME__Q_LIMIT_LOCK,
  CHIME__Q_LIMIT_EXISTS,
  CHIME__Q_LIMIT_WRITE_TAT,
  CHIME__Q_LIMIT_SET,
  CHIME__Q_LIMIT_CLEAR,
  CHIME__Q_LIMIT_GET,
  CHIME__Q_LIMIT_STATS,
  CHIME__Q_LIMIT_KEY_TAT,
  CHIME__Q_LIMIT_KEYS_WRITE,
  CHIME__Q_LIMIT_KEYS_EXPIRE,
  CHIME__Q_LIMIT_KEYS_DELETE,
  CHIME__Q_LIMIT_PARTITION_FIELD,
  CHIME__Q_ENQUEUE_EXISTING,
  CHIME__Q_ENQUEUE_INSERT,
  CHIME__Q_ENQUEUE_HELD_OVER,
  CHIME__Q_RETAIN_SWEEP_HELD_KEYS,
  CHIME__Q_TRIG_HOLD_KEY,
  CHIME__Q_TRIG_TAKE_OVER,
  CHIME__Q_SESSION_SYNC_WAIT,
  CHIME__Q_ADMIN_HISTORY,
  CHIME__Q_HISTORY_LIST,
  CHIME__Q_STUCK_BLOCKED, /* the stuck states (admin_repair.c) */
  CHIME__Q_STUCK_LOST,
  CHIME__Q_STUCK_ERROR,
  CHIME__Q_STUCK_ORPHAN,
  CHIME__Q_STUCK_LEASE,
  CHIME__Q_JOB_STATS, /* admin_list.c (list_job_stats) */
  CHIME__Q_RUNS_FIND, /* runs kept in trigger rows (runs.c) */
  CHIME__Q_RUNS_SPILL_LOCK,
  CHIME__Q_RUNS_SPILL_INSERT,
  CHIME__Q_RUNS_SPILL_CLEAR,
  CHIME__Q_RUNS_RESERVE,
  CHIME__Q_RUNS_RESERVE_END,
  CHIME__Q_RUNS_RESERVE_DROP,
  CHIME__Q_COMPLETE_LOCK_RUNS,
  CHIME__Q_RUN_TX_LOCK,
  CHIME__Q_NODES_WITHOUT_RUNS,
  /* Connection-level statements (chime__mysql_sqlbuf_init_db). */
  CHIME__Q_COMMIT,
  CHIME__Q_ROLLBACK,
  CHIME__Q_SESSION_TIME_ZONE,
  CHIME__Q_SESSION_ISOLATION,
  CHIME__Q_SESSION_AUTOCOMMIT_OFF,
  CHIME__Q_SESSION_LOCK_WAIT,
  CHIME__Q_SESSION_REGISTER,
  CHIME__Q_SESSION_KILL,
  CHIME__Q_MEMBER_READ_ONLY,
  CHIME__Q_MEMBER_GALERA,
  CHIME__Q_SCHEMA_VERSION,
  CHIME__Q_SCHEMA_COMPAT_COLUMN,
  CHIME__Q_SCHEMA_COMPAT,
  CHIME__Q_SCHEMA_LOCK_WAIT,
  CHIME__Q_SCHEMA_LOCK_WAIT_RESET,
  CHIME__Q_SCHEMA_VERSION_INSERT,
  CHIME__Q_SCHEMA_LOCK_TAKE,
  CHIME__Q_SCHEMA_LOCK_RELEASE,
  CHIME__Q_SCHEMA_TABLE_CHECK,
  CHIME__Q_SCHEMA_CLEAR,
  CHIME__Q_COUNT
} chime__mysql_stmt_id;

/* One connection and the statements prepared on it.  busy belongs to the
 * pool (tx.c, under the store's lock); the rest to the thread that holds
 * the connection. */
typedef struct chime__mysql_conn {
  MYSQL *db; /* NULL when lost: reconnected on next use */
  MYSQL_STMT *stmts[CHIME__Q_COUNT];
  bool busy;
  bool autocommit; /* the heartbeat connection: each statement commits */
  bool was_open;   /* opened before: a new open is a reconnect (logs) */
  bool galera;     /* its member runs Galera (conn.c) */
  size_t member;   /* its member's index in the URL's host list */
  /* A job's completion transaction holds it (fire_tx.c): its session's
   * server id, else 0.  Guarded by the store's lock: a stopping node's
   * hand-over ends such sessions of jobs past their deadline (recover.c). */
  unsigned long job_session;
} chime__mysql_conn;

/* ---------------------------------------------------------- SQL texts */

/* The text of each statement, {P} not substituted (generated from
 * queries/NAME.sql by queries/embed.py). */
extern const char *const chime__mysql_sql_text[CHIME__Q_COUNT];

/* CHIME_NO_FIRE in SQL (the snippet {no_fire} of the .sql files). */
#define CHIME__MYSQL_NO_FIRE_SQL "-9223372036854775808"

/* The database's clock in SQL, as BIGINT epoch milliseconds. */
#define CHIME__MYSQL_NOW_MS_SQL "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"

#define CHIME__MYSQL_STR_(x) #x
#define CHIME__MYSQL_STR(x) CHIME__MYSQL_STR_(x)

/* Triggers recomputed per transaction after a zone reload (zones.c). */
#define CHIME__MYSQL_ZONE_BATCH 200
/*
 * The lease rule of jobstore/store.h in SQL, for the nodes row whose
 * columns are prefixed with a (e.g. "d." or ""): the instant its lease
 * runs out, CHIME__LEASE_FACTOR check-in intervals after its last
 * check-in.  A node is live while this is >= the database's now, dead once
 * it is earlier.  Every statement that judges a node uses this macro.
 */
#define CHIME__MYSQL_LEASE_END_SQL(a)                                          \
  "(" a "last_checkin_ms + " a                                                 \
  "checkin_interval_ms * " CHIME__MYSQL_STR(CHIME__LEASE_FACTOR) ")"
#define CHIME__MYSQL_NODE_LIVE_SQL(a)                                          \
  "(" CHIME__MYSQL_LEASE_END_SQL(a) " >= " CHIME__MYSQL_NOW_MS_SQL ")"

/* Builds the statement texts for s->prefix into s->sql.  Returns: 0;
 * CHIME_ENOMEM. */
int chime__mysql_sql_init(chime__mysql_store *s);

/* text with every {P} replaced by prefix; malloc'd, NULL on ENOMEM. */
char *chime__mysql_subst_prefix(const char *text, const char *prefix);

/* Builds the LIKE pattern (escape '!') of a group matcher into buf (len
 * bytes).  Returns: 0; CHIME_EINVAL (a bad matcher or pattern);
 * CHIME_ELIMIT (buf too short). */
int chime__mysql_like_pattern(chime_match match, const char *pattern, char *buf,
                              size_t len);

/* ------------------------------------------------ prepared statements */

typedef enum chime__mysql_arg_kind {
  CHIME__MYSQL_ARG_NULL,
  CHIME__MYSQL_ARG_INT,
  CHIME__MYSQL_ARG_TEXT,
  CHIME__MYSQL_ARG_BYTES
} chime__mysql_arg_kind;

/* One statement argument; p is borrowed until the statement ran. */
typedef struct chime__mysql_arg {
  chime__mysql_arg_kind kind;
  int64_t i;
  const void *p;
  size_t len;
} chime__mysql_arg;

chime__mysql_arg chime__mysql_arg_int(int64_t v);
/* A text argument; NULL is SQL NULL. */
chime__mysql_arg chime__mysql_arg_text(const char *s);
/* A binary argument; (NULL, 0) is SQL NULL. */
chime__mysql_arg chime__mysql_arg_bytes(const void *p, size_t len);

/*
 * chime__mysql_exec: runs statement id with args (exactly as many as the
 * statement has parameters).  *ret_affected and *ret_insert_id may be
 * NULL.  Returns: 0; CHIME_EEXISTS (duplicate key); the mapped error.
 */
int chime__mysql_exec(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                      const chime__mysql_arg *args, size_t nargs,
                      uint64_t *ret_affected, uint64_t *ret_insert_id);

/* chime__mysql_query: like chime__mysql_exec, materialising the result in
 * *ret (the caller frees it with chime__mysql_rows_free, also on error:
 * it is then empty). */
int chime__mysql_query(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                       const chime__mysql_arg *args, size_t nargs,
                       chime__mysql_rows *ret);

/* Runs text statement id, which has no slot, in the text protocol,
 * discarding any result (COMMIT).  Returns as chime__mysql_exec. */
int chime__mysql_exec_plain(chime__mysql_tx *tx, chime__mysql_stmt_id id);

/* Records a failed statement (err in tx->last_errno, the message in the
 * errbuf and the log) and returns its chime error. */
int chime__mysql_fail(chime__mysql_tx *tx, unsigned err, const char *msg,
                      const char *sql);

/* Copies text into dst (dst_len > 0 bytes, cut short to fit) on one line:
 * each run of whitespace one space, none at the ends (a statement of a
 * .sql file, broken over lines, in a log line).  Returns its length. */
size_t chime__mysql_one_line(char *dst, size_t dst_len, const char *text);

/* Closes a connection's prepared statements, and the connection itself
 * when close_db. */
void chime__mysql_conn_reset(chime__mysql_conn *c, bool close_db);

/* ---------------------------------------------------- text statements */

/* A statement built for one batch, run in the text protocol: {P} in the
 * SQL pieces is replaced by the table prefix, strings are escaped for the
 * connection.  Out of memory is remembered and reported by
 * chime__mysql_sqlbuf_run.
 *
 * A text statement whose text is a file queries/NAME.sql starts with
 * chime__mysql_sqlbuf_stmt and is filled in the order of its file: its
 * slots, where the caller appends values (escaped: _text, _int, ...), and
 * its optional parts (a part may hold parts), kept or left out whole:
 *
 *   ... WHERE sched_name = /+:sched+/ /+[second+/ AND y > /+:min+/ /+]+/
 *
 * and its repeated rows (a multi-row INSERT, an IN list), each written
 * once per row (at least once), its values named by their columns:
 *
 *   INSERT INTO t (a, b) VALUES /+{row+/ (/+:a+/, /+:b+/) /+}+/
 *   ... WHERE id IN (/+{ids+/ /+:id+/ /+}+/)
 *
 * (with '*' for '+'): chime__mysql_sqlbuf_at(b, "sched") copies the text
 * up to that slot, chime__mysql_sqlbuf_part(b, "second", on) up to that
 * part and, when !on, past its end; chime__mysql_sqlbuf_row(b, "row")
 * starts the first row, or ends the row before and starts the next (rows
 * are separated by commas, or by the word the end names: "/+}OR+/").
 * chime__mysql_sqlbuf_run copies what is left.  Slots, parts and rows are
 * met in order: a name out of order is a bug (asserted). */
typedef struct chime__mysql_sqlbuf {
  chime__mysql_tx *tx; /* NULL on a bare connection (_init_db) */
  MYSQL *db;           /* the bare connection, and its table prefix */
  const char *prefix;
  char *own; /* the statement's text with the prefix, on a bare one */
  char *p;
  size_t len, cap;
  bool oom;
  const char *stmt;     /* the rest of the statement's text still to copy */
  const char *row;      /* the start of the repeated row being written */
  const char *row_name; /* that row's name */
} chime__mysql_sqlbuf;

void chime__mysql_sqlbuf_init(chime__mysql_sqlbuf *b, chime__mysql_tx *tx);
/*
 * Connection-level statements: the builder on a bare connection db, for
 * tables prefixed with prefix, outside any transaction of tx.h: on the
 * connection opening the store, before its statement texts exist
 * (schema.c), on a member probed as it connects (conn.c), as a
 * connection's session is set up (tx.c), or where the caller judges the
 * server's error itself (a KILL of a session already gone).  {P} is
 * substituted for the one statement.  chime__mysql_sqlbuf_run returns
 * CHIME_ESTORE on a server error, left in mysql_errno(db) and
 * mysql_error(db) for the caller to report: nothing is logged or recorded.
 */
void chime__mysql_sqlbuf_init_db(chime__mysql_sqlbuf *b, MYSQL *db,
                                 const char *prefix);
/* Runs connection-level statement id, which has no slot (or, for
 * _db_run_int, the one slot slot, filled with v), on db: the builder of
 * chime__mysql_sqlbuf_init_db in one call.  *ret (may be NULL) gets its
 * rows.  Returns as chime__mysql_sqlbuf_run there. */
int chime__mysql_db_run(MYSQL *db, const char *prefix, chime__mysql_stmt_id id,
                        chime__mysql_rows *ret);
int chime__mysql_db_run_int(MYSQL *db, const char *prefix,
                            chime__mysql_stmt_id id, const char *slot,
                            int64_t v, chime__mysql_rows *ret);
void chime__mysql_sqlbuf_free(chime__mysql_sqlbuf *b);
/* Starts b (empty) on text statement id (its slots and parts above). */
void chime__mysql_sqlbuf_stmt(chime__mysql_sqlbuf *b, chime__mysql_stmt_id id);
/* Copies the statement's text up to its slot name. */
void chime__mysql_sqlbuf_at(chime__mysql_sqlbuf *b, const char *slot);
/* Copies the statement's text up to its optional part name, and skips
 * that part when !on. */
void chime__mysql_sqlbuf_part(chime__mysql_sqlbuf *b, const char *part,
                              bool on);
/* Starts the statement's repeated row name: its first, or, after the
 * first, the next (the row before ended, a comma). */
void chime__mysql_sqlbuf_row(chime__mysql_sqlbuf *b, const char *row);
void chime__mysql_sqlbuf_int(chime__mysql_sqlbuf *b, int64_t v);
/* Appends the store's table name (one of its own tables: lower-case
 * letters and '_'), its prefix included, quoted as an identifier. */
void chime__mysql_sqlbuf_table(chime__mysql_sqlbuf *b, const char *name);
/* Appends a quoted, escaped string; NULL appends SQL NULL. */
void chime__mysql_sqlbuf_text(chime__mysql_sqlbuf *b, const char *s);
/* Fills the slots of a trigger's or job's key, in that order: "sched"
 * (the scheduler's name), "group" and "name". */
void chime__mysql_sqlbuf_key(chime__mysql_sqlbuf *b, const char *sched,
                             const char *group, const char *name);
/* Appends one statement argument as a literal: NULL, a number, a quoted
 * escaped string, or X'hex' for bytes (a multi-row INSERT too wide to
 * prepare: enqueue.c). */
void chime__mysql_sqlbuf_arg(chime__mysql_sqlbuf *b, const chime__mysql_arg *a);
/* Appends len bytes at data as a hex literal (X'...', twice their length:
 * a caller bounds what one statement carries); NULL or len 0 appends SQL
 * NULL. */
void chime__mysql_sqlbuf_bytes(chime__mysql_sqlbuf *b, const void *data,
                               size_t len);
/* Fills the optional part types, "/+[types+/ ... IN (/+{types+/ /+:type+/
 * /+}+/) ... /+]+/" ('*' for '+'): a row per type, or the part left out
 * when types is NULL (all). */
void chime__mysql_sqlbuf_types(chime__mysql_sqlbuf *b,
                               const chime_type_set *types);
/* Fills the rows fire_ids, "/+{fire_ids+/ /+:id+/ /+}+/" ('*' for '+'),
 * with the fires' ids (n >= 1). */
void chime__mysql_sqlbuf_fire_ids(chime__mysql_sqlbuf *b,
                                  chime_fire *const *fires, size_t n);
/* Fills the rows named row, "/+{row+/ /+:id+/ /+}+/" ('*' for '+'), with
 * ids[0 .. n) (n >= 1, each > 0) in ascending order, the order a primary
 * key locks them in: ids is sorted in place. */
void chime__mysql_sqlbuf_sorted_ids(chime__mysql_sqlbuf *b, const char *row,
                                    int64_t *ids, size_t n);
/* Fills the rows named row of _triggers_by_keys.sql, "/+{row+/ /+:key+/
 * /+}+/" ('*' for '+'), inside a JSON array in an SQL string literal, with
 * the trigger keys (groups[i], names[i]) for i < n (n >= 1) as JSON
 * arrays ["group","name"], each once, in ascending byte order
 * (utf8mb4_nopad_bin's, the order the primary key locks them in).  The
 * strings stay the caller's. */
void chime__mysql_sqlbuf_json_keys(chime__mysql_sqlbuf *b, const char *row,
                                   const char *const *groups,
                                   const char *const *names, size_t n);
/* Fills the fired rows of ids[0 .. n) (n >= 1) of _fired_by_ids.sql: its
 * parts ids (the rows fire_ids, in ascending order, the order the primary
 * key locks them in: ids is sorted in place) and ids_on for two ids or
 * more, then the statement's part one ("WHERE f.fire_id = /+:one+/",
 * '*' for '+') for one. */
void chime__mysql_sqlbuf_fired_by_ids(chime__mysql_sqlbuf *b, int64_t *ids,
                                      size_t n);
/* Runs the statement (the rest of a statement's text first: no slot may
 * be left) and frees b; *ret (may be NULL) gets its rows,
 * *ret_affected (may be NULL) the affected rows.  Returns as
 * chime__mysql_exec. */
int chime__mysql_sqlbuf_run(chime__mysql_sqlbuf *b, chime__mysql_rows *ret,
                            uint64_t *ret_affected);

#endif /* CHIME_JOBSTORE_MYSQL_STMT_H */
