/*
 * chime-admin.h: what an operator's tool reads of a cluster, without
 * naming a table: the nodes, jobs, triggers, the fires claimed or running
 * and the recorded runs, each as a table of named, typed columns; filtered
 * and paged by a query.  Every store answers in its own way (the MySQL
 * store with its SQL, the memory store from its own records), so a tool
 * written on this header works on both and never learns the schema.
 *
 *   chime_admin *a = NULL;
 *   char err[256];
 *   if (chime_admin_open(url, "chime", &a, err, sizeof err) < 0) ...
 *   chime_admin_query *q = NULL;
 *   chime_admin_query_new(CHIME_ADMIN_HISTORY, &q);
 *   chime_admin_query_set_page(q, 0, 20);
 *   chime_admin_table *t = NULL;
 *   if (chime_admin_list(a, q, &t) == 0)
 *     for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++)
 *       printf("%s %s\n", chime_admin_table_get_text(t, i, "job_name"),
 *              chime_admin_table_get_text(t, i, "outcome"));
 *   chime_admin_table_free(t);
 *   chime_admin_query_free(q);
 *   chime_admin_free(a);
 *
 * Columns are named (docs/man/chime-admin.3.scd lists each list's): a
 * tool asks for a cell by its column's name, so a column added later
 * changes nothing for it.  Times are epoch milliseconds by the store's
 * clock (the database's for MySQL); a time that is not there (no next
 * fire) is a null cell.
 */
#ifndef CHIME_ADMIN_H
#define CHIME_ADMIN_H

#include "chime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An operator's view of one cluster (one scheduler name in one store). */
typedef struct chime_admin chime_admin;
/* What to list, filtered and paged. */
typedef struct chime_admin_query chime_admin_query;
/* One answer: rows of named, typed cells. */
typedef struct chime_admin_table chime_admin_table;

/* The lists.  Values are stable: new lists are added at the end. */
typedef enum chime_admin_kind {
  CHIME_ADMIN_NODES = 1,    /* the cluster's nodes, by id */
  CHIME_ADMIN_JOBS = 2,     /* the jobs, by group and name */
  CHIME_ADMIN_TRIGGERS = 3, /* the triggers, by group and name */
  CHIME_ADMIN_FIRES = 4,    /* the fires claimed or running now, by id */
  CHIME_ADMIN_HISTORY = 5,  /* the recorded runs, newest first */
  CHIME_ADMIN_LEASES = 6,   /* the named leases (chime_lease_*), by name */
  CHIME_ADMIN_AUDIT = 7,    /* the operators' actions recorded, newest first */
  CHIME_ADMIN_LIMITS = 8, /* the limited job types, each then its partitions */
  CHIME_ADMIN_STUCK = 9,  /* the stuck states chime_admin_repair fixes */
  CHIME_ADMIN_JOB_STATS = 10, /* per job: its runs' figures, by job */
  /* The cluster's figures (chimectl metrics). */
  CHIME_ADMIN_RUN_COUNTS = 11, /* the recorded runs counted by job, outcome */
  CHIME_ADMIN_LATENESS = 12,   /* the scheduled runs' lateness, by bucket */
  CHIME_ADMIN_TRIGGER_STATES = 13, /* the triggers counted by state */
  CHIME_ADMIN_FIRE_STATES = 14,    /* the fires claimed, counted by state */
  CHIME_ADMIN_DRAINS = 15,         /* the nodes asked to drain, by node */
  /* Why a trigger does not fire (chimectl explain). */
  CHIME_ADMIN_PAUSED_GROUPS = 16, /* the group pauses, by match and pattern */
  /* The cluster's activity (chimectl running's pages, chimectl events). */
  CHIME_ADMIN_ACTIVITY = 17, /* the runs started, minute by minute */
  CHIME_ADMIN_EVENTS = 18,   /* the nodes' starts and lost runs, newest first */
  /* A fire's detail (chime-web's fire page). */
  CHIME_ADMIN_RETRIES = 19, /* the retries' runs and the fires they retried */
  CHIME_ADMIN_SHARDS = 20,  /* a sharded fire's shard runs, by shard */
  /* What the store holds (chime-bench --soak's samples). */
  CHIME_ADMIN_STORAGE = 21, /* the store's tables: rows and bytes, by table */
  CHIME_ADMIN_SESSIONS = 22 /* each node's live database sessions, by node */
} chime_admin_kind;

/* A column's type: text, a 64-bit integer (times, counts, flags), or
 * bytes (a run's data: any bytes, chime_admin_table_get_bytes). */
typedef enum chime_admin_type {
  CHIME_ADMIN_TEXT = 1,
  CHIME_ADMIN_INT64 = 2,
  CHIME_ADMIN_BYTES = 3
} chime_admin_type;

/* The most rows one chime_admin_list call returns (and its default). */
#define CHIME_ADMIN_MAX_LIMIT 1000000

/*
 * chime_admin_open: opens the cluster scheduler_name (NULL: "chime") of
 * the store url as an operator: a MySQL/MariaDB URL (the nodes' own; it
 * may not say clear=1), opened with one connection, as a node that never
 * claims anything and is not listed among the nodes.  The memory store
 * lives in its scheduler's process: open it with
 * chime_admin_open_scheduler.
 * Returns: 0; CHIME_EINVAL (NULL url or ret, clear=1 in url);
 * CHIME_EUNSUPPORTED (a memory: URL, a store not built in); CHIME_EURL;
 * CHIME_ECONNECT; CHIME_EAUTH; CHIME_ESCHEMA; CHIME_ENOMEM; errbuf (may be
 * NULL) says why, the password never included.
 * Ownership: *ret is the caller's, freed with chime_admin_free().
 * Thread: any; a chime_admin is used by one thread at a time.
 */
CHIME_EXTERN int chime_admin_open(const char *url, const char *scheduler_name,
                                  chime_admin **ret, char *errbuf,
                                  size_t errbuf_len);

/*
 * chime_admin_open_scheduler: an operator's view of the store scheduler
 * runs on (either store), through scheduler's own store: what an
 * in-process console or a test reads.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENOMEM.
 * Ownership: *ret is the caller's, freed with chime_admin_free() before
 * scheduler is freed.
 * Thread: any; a chime_admin is used by one thread at a time.
 */
CHIME_EXTERN int chime_admin_open_scheduler(chime_scheduler *scheduler,
                                            chime_admin **ret);

/*
 * chime_admin_errmsg: why admin's last failed call failed ("" when none).
 * Returns: the message; "" for NULL.
 * Ownership: borrowed until admin's next call or chime_admin_free.
 * Thread: the thread using admin.
 */
CHIME_EXTERN const char *chime_admin_errmsg(const chime_admin *admin);

/*
 * chime_admin_free: closes admin (an opened store's connection goes).
 * NULL is allowed.
 * Returns: nothing.
 * Ownership: takes admin.
 * Thread: the thread using admin.
 */
CHIME_EXTERN void chime_admin_free(chime_admin *admin);

/*
 * chime_admin_query_new: a query of list kind with no filter and the
 * first page of CHIME_ADMIN_MAX_LIMIT rows.
 * Returns: 0; CHIME_EINVAL (NULL ret, an unknown kind); CHIME_ENOMEM.
 * Ownership: *ret is the caller's, freed with chime_admin_query_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_admin_query_new(chime_admin_kind kind,
                                       chime_admin_query **ret);

/*
 * chime_admin_query_set_group: only the rows whose group (the job's for
 * CHIME_ADMIN_JOBS, the trigger's for CHIME_ADMIN_TRIGGERS) matches
 * pattern: exact, "abc*" (starts with), "*" or NULL (any).
 * Returns: 0; CHIME_EINVAL (NULL query, a pattern too long).
 * Ownership: pattern is copied.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_group(chime_admin_query *query,
                                             const char *pattern);

/*
 * chime_admin_query_set_job, chime_admin_query_set_trigger: only the rows
 * of job (group, name) or of trigger (group, name) (history, fires,
 * triggers; the group pauses covering the trigger); both NULL: any.
 * Returns: 0; CHIME_EINVAL (NULL query, a half key).
 * Ownership: the names are copied.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_job(chime_admin_query *query,
                                           const char *group, const char *name);
CHIME_EXTERN int chime_admin_query_set_trigger(chime_admin_query *query,
                                               const char *group,
                                               const char *name);

/*
 * chime_admin_query_set_node: only the rows of node (an instance id:
 * history, fires); NULL: any.
 * Returns: 0; CHIME_EINVAL (NULL query).
 * Ownership: node is copied.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_node(chime_admin_query *query,
                                            const char *node);

/*
 * chime_admin_query_set_fire: only the rows of fire fire_id (history,
 * fires); 0: any.
 * Returns: 0; CHIME_EINVAL (NULL query, a negative id).
 * Ownership: none.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_fire(chime_admin_query *query,
                                            int64_t fire_id);

/*
 * chime_admin_query_set_outcome: only the runs (history) with outcome
 * (the word of the "outcome" column, any case: "ok", "failed", ...;
 * NULL: any), or, when failed_only, those whose outcome is not OK.
 * Returns: 0; CHIME_EINVAL (NULL query, an outcome too long).
 * Ownership: outcome is copied.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_outcome(chime_admin_query *query,
                                               const char *outcome,
                                               bool failed_only);

/*
 * chime_admin_query_set_started: only the runs (history) started in
 * [from_ms, to_ms), epoch milliseconds, or the actions (audit) recorded
 * in it; 0 leaves that end open.
 * Returns: 0; CHIME_EINVAL (NULL query, a negative time).
 * Ownership: none.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_started(chime_admin_query *query,
                                               int64_t from_ms, int64_t to_ms);

/*
 * chime_admin_query_set_audit: only the actions (CHIME_ADMIN_AUDIT)
 * recorded as done by who and of action (the "action" column's words:
 * "pause", "drain", ...), each exact; NULL: any.  The times of
 * chime_admin_query_set_started are an action's at_ms.
 * Returns: 0; CHIME_EINVAL (NULL query, a value too long).
 * Ownership: who and action are copied.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_audit(chime_admin_query *query,
                                             const char *who,
                                             const char *action);

/*
 * chime_admin_query_set_ids: only the runs (history) with after_id < id <=
 * upto_id (upto_id 0: no upper end), oldest first instead of newest first:
 * a watcher reads the runs recorded since its last read in the order they
 * were recorded, a page at a time (the next page after the last id read).
 * Returns: 0; CHIME_EINVAL (NULL query, a negative id, upto_id not above
 * after_id).
 * Ownership: none.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_ids(chime_admin_query *query,
                                           int64_t after_id, int64_t upto_id);

/*
 * chime_admin_query_set_late: only the triggers (CHIME_ADMIN_TRIGGERS)
 * waiting to fire whose next fire was due before before_ms and that a node
 * should have fired by now: not misfire CHIME_MISFIRE_IGNORE, not a
 * backfill's (CHIME_BACKFILL_GROUP); earliest due first (0: any trigger,
 * by group and name).
 * Returns: 0; CHIME_EINVAL (NULL query, a negative time).
 * Ownership: none.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_late(chime_admin_query *query,
                                            int64_t before_ms);

/*
 * chime_admin_query_set_page: skips offset rows and returns at most limit
 * (1 to CHIME_ADMIN_MAX_LIMIT; 0: CHIME_ADMIN_MAX_LIMIT).
 * Returns: 0; CHIME_EINVAL (NULL query, limit above the maximum).
 * Ownership: none.
 * Thread: the query's user.
 */
CHIME_EXTERN int chime_admin_query_set_page(chime_admin_query *query,
                                            size_t offset, size_t limit);

/*
 * chime_admin_query_free: frees a query.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes query.
 * Thread: the query's user.
 */
CHIME_EXTERN void chime_admin_query_free(chime_admin_query *query);

/*
 * chime_admin_list: the rows query asks for, by the store's clock and
 * rules (a node is live by the same rule the nodes judge each other by).
 * A filter a list has no column for is ignored.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_EUNSUPPORTED (the store
 * cannot list this); the store's errors (CHIME_ECONNECT, CHIME_ESTORE,
 * ...); CHIME_ENOMEM; chime_admin_errmsg says why.
 * Ownership: *ret is the caller's, freed with chime_admin_table_free().
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_list(chime_admin *admin,
                                  const chime_admin_query *query,
                                  chime_admin_table **ret);

/*
 * chime_admin_table_get_row_count, chime_admin_table_get_column_count:
 * how many rows and columns table has.
 * Returns: the count; 0 for NULL.
 * Ownership: none.
 * Thread: any (a table is immutable).
 */
CHIME_EXTERN size_t
chime_admin_table_get_row_count(const chime_admin_table *table);
CHIME_EXTERN size_t
chime_admin_table_get_column_count(const chime_admin_table *table);

/*
 * chime_admin_table_get_column_name, chime_admin_table_get_column_type:
 * column col's name and type (columns in the documented order).
 * Returns: the name (NULL) and type (0) for NULL table or col out of
 * range.
 * Ownership: the name is borrowed until chime_admin_table_free.
 * Thread: any.
 */
CHIME_EXTERN const char *
chime_admin_table_get_column_name(const chime_admin_table *table, size_t col);
CHIME_EXTERN chime_admin_type
chime_admin_table_get_column_type(const chime_admin_table *table, size_t col);

/*
 * chime_admin_table_get_column_index: the index of the column named name.
 * Returns: the index (>= 0); CHIME_ENOTFOUND (no such column);
 * CHIME_EINVAL (NULL argument).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int
chime_admin_table_get_column_index(const chime_admin_table *table,
                                   const char *name);

/*
 * chime_admin_table_is_null: whether row's cell in column name is null
 * (no value: a trigger with no next fire, a run without a message).
 * Returns: true for a null cell, and for NULL table, row out of range or
 * no such column.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN bool chime_admin_table_is_null(const chime_admin_table *table,
                                            size_t row, const char *column);

/*
 * chime_admin_table_get_text: row's cell in column name as text (an
 * integer in decimal).
 * Returns: the text; NULL for a null cell, a bytes column, NULL table, row
 * out of range or no such column.
 * Ownership: borrowed until chime_admin_table_free.
 * Thread: any.
 */
CHIME_EXTERN const char *
chime_admin_table_get_text(const chime_admin_table *table, size_t row,
                           const char *column);

/*
 * chime_admin_table_get_int64: row's cell in an integer column.
 * Returns: the value; 0 for a null cell, a column of another type, NULL table,
 * row out of range or no such column (ask chime_admin_table_is_null).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int64_t chime_admin_table_get_int64(const chime_admin_table *table,
                                                 size_t row,
                                                 const char *column);

/*
 * chime_admin_table_get_bytes: row's cell in a bytes column; *ret_len
 * (may be NULL) receives its length (0 when there is none).
 * Returns: the bytes; NULL for a null cell, a column of another type, NULL
 * table, row out of range or no such column.
 * Ownership: borrowed until chime_admin_table_free.
 * Thread: any.
 */
CHIME_EXTERN const void *
chime_admin_table_get_bytes(const chime_admin_table *table, size_t row,
                            const char *column, size_t *ret_len);

/*
 * chime_admin_table_free: frees a table.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes table.
 * Thread: any.
 */
CHIME_EXTERN void chime_admin_table_free(chime_admin_table *table);

/* ------------------------------------------------- operator actions */

/* What an operator's action acts on. */
typedef enum chime_admin_target {
  CHIME_ADMIN_TARGET_TRIGGER = 1, /* one trigger: group and name */
  CHIME_ADMIN_TARGET_JOB = 2,     /* one job: group and name */
  CHIME_ADMIN_TARGET_GROUP = 3,   /* the groups matching a pattern */
  CHIME_ADMIN_TARGET_ALL = 4      /* everything */
} chime_admin_target;

/*
 * chime_admin_set_paused: pauses (paused true) or resumes a trigger or a
 * job (group, name), the trigger and job groups matching pattern group
 * (exact, "abc*" or "*"; name NULL) or all (both NULL), by the store's
 * own operations, as chime_scheduler_pause_trigger and its kin do.  The
 * nodes notice at their next check-in.
 * Returns: 0; CHIME_EINVAL (NULL admin, an unknown target, a missing or
 * half key); CHIME_ENOTFOUND (no such trigger or job); the store's
 * errors; chime_admin_errmsg says why.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_set_paused(chime_admin *admin,
                                        chime_admin_target target,
                                        const char *group, const char *name,
                                        bool paused);

/*
 * chime_admin_delete: deletes a trigger (and its job when it is not
 * durable and has no trigger left) or a job with its triggers
 * (CHIME_ADMIN_TARGET_TRIGGER or _JOB, group and name).
 * Returns: 0; CHIME_EINVAL (NULL admin, another target, a half key);
 * CHIME_ENOTFOUND; the store's errors; chime_admin_errmsg says why.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_delete(chime_admin *admin,
                                    chime_admin_target target,
                                    const char *group, const char *name);

/*
 * chime_admin_cancel: asks the running fires of job (group, name), or the
 * one fire fire_id (> 0; group and name NULL), to stop, on whichever node
 * runs them (it tells the run at its next check-in; the run is recorded
 * CANCELLED when it returns).  *ret_count (may be NULL): how many were
 * asked (0 is no error).
 * Returns: 0; CHIME_EINVAL (NULL admin, both or neither of a job and a
 * fire); CHIME_ENOTFOUND (no such job); the store's errors.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_cancel(chime_admin *admin, const char *group,
                                    const char *name, int64_t fire_id,
                                    size_t *ret_count);

/*
 * chime_admin_set_drain: asks node to drain (drain true: it claims
 * nothing more and its runs get timeout_ms, 0 for no limit, to finish) or
 * ends its drain, as chime_scheduler_drain does; the MySQL store records it
 * in its audit trail as who (may be NULL) from origin (may be NULL).
 * Returns: 0; CHIME_EINVAL (NULL admin or node, a negative timeout);
 * CHIME_ENOTFOUND (no such node; undrain: not drained); the store's
 * errors.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_set_drain(chime_admin *admin, const char *node,
                                       bool drain, int64_t timeout_ms,
                                       const char *who, const char *origin);

/* --------------------- runs handed in, limits, zones and leases (t2) */

/*
 * chime_admin_fire_now: fires job (group, name) once, now, as
 * chime_scheduler_run_job does: a one-off trigger due at once, with
 * data (len bytes; NULL when len is 0) as the fire's data, that whichever
 * node runs the job's type claims.  tag (may be NULL) ends the trigger's
 * name (where it came from: "ctl").  ret_trigger (trigger_len bytes, may
 * be NULL) receives the trigger's key "GROUP.NAME", *ret_due_ms (may be
 * NULL) when it is due.
 * Returns: 0; CHIME_EINVAL (NULL admin, a half key, data without len);
 * CHIME_ENOTFOUND (no such job); the store's errors; chime_admin_errmsg
 * says why.
 * Ownership: data and tag are copied.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_fire_now(chime_admin *admin, const char *group,
                                      const char *name, const void *data,
                                      size_t len, const char *tag,
                                      char *ret_trigger, size_t trigger_len,
                                      int64_t *ret_due_ms);

/*
 * chime_admin_enqueue: hands in one run of job (group, name) with opts
 * (NULL: the defaults), as chime_scheduler_enqueue does.  ret_trigger
 * (trigger_len bytes, may be NULL) receives the run's trigger key,
 * *ret_existed (may be NULL) whether a run with opts' unique key was
 * waiting or running (then nothing is stored and ret_trigger names it),
 * *ret_due_ms (may be NULL) when the run is due (opts' time, else the
 * store's now).
 * Returns: 0; CHIME_EINVAL (NULL admin, a half key, refused options);
 * CHIME_ENOTFOUND (no such job); CHIME_ELIMIT; the store's errors;
 * chime_admin_errmsg says why.
 * Ownership: opts stays the caller's.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_enqueue(chime_admin *admin, const char *group,
                                     const char *name,
                                     const chime_enqueue *opts,
                                     char *ret_trigger, size_t trigger_len,
                                     bool *ret_existed, int64_t *ret_due_ms);

/*
 * chime_admin_set_limit: sets the whole limit of job type job_type, both
 * halves, replacing the one it had: chime_scheduler_set_limit's figures
 * (max_running, max_per_partition, rate_count per rate_period_ms) and
 * chime_scheduler_set_partition_limit's (key_rate_count per
 * key_rate_period_ms for each partition key, partition_field the data
 * field a partition key is read from, NULL or "" for none); 0 is "none"
 * for each figure.  Every node applies it at its next claim.
 * Returns: 0; CHIME_EINVAL (NULL admin or job_type, figures refused as
 * chime_scheduler_set_limit refuses them); the store's errors;
 * chime_admin_errmsg says why.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_set_limit(chime_admin *admin, const char *job_type,
                                       int max_running, int max_per_partition,
                                       int rate_count, int64_t rate_period_ms,
                                       int key_rate_count,
                                       int64_t key_rate_period_ms,
                                       const char *partition_field);

/*
 * chime_admin_clear_limit: removes the limit of job_type (both halves),
 * as chime_scheduler_clear_limit does.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENOTFOUND (job_type has
 * no limit); the store's errors; chime_admin_errmsg says why.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_clear_limit(chime_admin *admin,
                                         const char *job_type);

/*
 * chime_admin_recompute_zones: the next fire of every unclaimed trigger
 * reading time in one of the count zones named (their own zone or their
 * calendar's), recomputed with the zone rules this process reads now
 * (after a tzdata update), as chime_scheduler_reload_zones does for the
 * zones whose rules changed.
 * *ret_recomputed (may be NULL): how many moved.
 * Returns: 0; CHIME_EINVAL (NULL admin, NULL zones with a count);
 * CHIME_EUNSUPPORTED (the store keeps no trigger across a reload); the
 * store's errors; chime_admin_errmsg says why.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_recompute_zones(chime_admin *admin,
                                             const char *const *zones,
                                             size_t count,
                                             size_t *ret_recomputed);

/*
 * chime_admin_release_lease: ends the named lease (chime_lease_*) now,
 * whoever holds it and whatever its at_least: its holder's extend and
 * release are refused from then on, and the next acquisition's token is
 * greater.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENOTFOUND (name is not
 * held); the store's errors; chime_admin_errmsg says why.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_release_lease(chime_admin *admin,
                                           const char *name);

/* ------------------------------------------- repair (chimectl repair) */

/*
 * chime_admin_get_schema_state: the schema version of the store url
 * holds (0: none, an empty database), the newest this library writes, and,
 * for a schema newer than this library, the oldest library version whose
 * nodes can serve it (its compatible_with: docs/operations.md, "Rolling
 * upgrades"; 0 otherwise).  Read over a plain connection: a database
 * without a schema, or with one too new, cannot be opened as a store.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_EUNSUPPORTED (a memory:
 * URL, which has no schema; a store not built in); CHIME_EURL;
 * CHIME_ECONNECT; CHIME_EAUTH; CHIME_ESTORE; errbuf (may be NULL) says why,
 * the password never included.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_admin_get_schema_state(const char *url,
                                              long *ret_version,
                                              long *ret_latest,
                                              long *ret_compatible_with,
                                              char *errbuf, size_t errbuf_len);

/*
 * chime_admin_audit: records in the store's audit trail (CHIME_ADMIN_AUDIT)
 * an action an operator's tool did by other means (a fire now, a limit
 * set, a lease released, ...): done by who from origin (each may be NULL),
 * action a verb ("pause"), target what it acted on ("trigger G.N"), details
 * NULL or free text; texts too long for the trail are cut.  The memory
 * store keeps no audit trail: CHIME_EUNSUPPORTED.
 * Returns: 0; CHIME_EINVAL (NULL admin, no action); CHIME_EUNSUPPORTED;
 * the store's errors; chime_admin_errmsg says why.
 * Ownership: the texts are copied.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_audit(chime_admin *admin, const char *who,
                                   const char *origin, const char *action,
                                   const char *target, const char *details);

/*
 * chime_admin_get_now_ms: the store's clock now, in epoch milliseconds:
 * the database's for MySQL (as the store last measured its offset, so no
 * query), the process's for memory: the clock the lists' times are by.
 * Returns: 0; CHIME_EINVAL (NULL argument).
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_get_now_ms(chime_admin *admin,
                                        int64_t *ret_now_ms);

/*
 * chime_admin_check_in: an operator's store opened by chime_admin_open is
 * a node of the cluster that claims nothing, and checks in seldom (every
 * 10 s) and only when asked: a tool that lives long (a web console, a
 * watcher) calls this often enough that the cluster never judges it
 * dead (which would end its database sessions): every
 * CHIME_ADMIN_CHECK_IN_MS.  A scheduler's store
 * (chime_admin_open_scheduler) checks in on its own: nothing is done.
 * Returns: 0; CHIME_EINVAL (NULL admin); the store's errors.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_check_in(chime_admin *admin);
/* How often a long-lived tool calls chime_admin_check_in (a quarter of an
 * operator's store's check-in interval: never late). */
#define CHIME_ADMIN_CHECK_IN_MS 2500

/*
 * chime_admin_repair: fixes one stuck state a CHIME_ADMIN_STUCK row names
 * (docs/man/chime-admin.3.scd), in one step of the store that checks
 * again, under the rows' locks, that it is still stuck, fixes it by the
 * store's own rule and records it in the audit trail as who from origin
 * (each may be NULL).  kind is the row's "kind" word and the row's cells
 * say what it acts on: "blocked" the job (group, name): its triggers
 * unblocked; "lost" the fire fire_id on node: ended as a dead node's fire
 * (run again when its job requests recovery, else FAILED); "error" the
 * trigger (group, name): given the state it would be added in; "orphan"
 * the trigger (group, name): deleted; "lease" the lease name (group NULL):
 * released.  *ret_fixed (may be NULL): whether it was still stuck and is
 * fixed now (false is no error: it came unstuck meanwhile).  The memory
 * store is never left in these states by a process that went away (it
 * lives in its one process): it answers CHIME_EUNSUPPORTED, as its
 * CHIME_ADMIN_STUCK list does.
 * Returns: 0; CHIME_EINVAL (NULL admin, an unknown kind, a missing key,
 * fire or node); CHIME_EUNSUPPORTED (the memory store); the store's
 * errors; chime_admin_errmsg says why.
 * Ownership: none.
 * Thread: the thread using admin.
 */
CHIME_EXTERN int chime_admin_repair(chime_admin *admin, const char *kind,
                                    const char *group, const char *name,
                                    int64_t fire_id, const char *node,
                                    const char *who, const char *origin,
                                    bool *ret_fixed);

#ifdef __cplusplus
}
#endif

#endif /* CHIME_ADMIN_H */
