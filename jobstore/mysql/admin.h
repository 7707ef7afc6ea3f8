/*
 * admin.h: what the operators' tools (tools/chimectl, the bench, test
 * helpers) need of the MySQL/MariaDB store beyond the public API: opening
 * a cluster's store as an operator, read-only queries with typed rows
 * (result.h), the table prefix, the database's clock, the node liveness
 * rule as SQL, the trigger rows' decoding, the schema version, and the
 * actions an operator takes (fire now, enqueue, repair, ...) through the
 * store's own operations, so the store's rules apply.  URLs are parsed and
 * redacted by url.h, the store's one parser.  The lists and the
 * pause, delete, cancel and drain actions are chime-admin.h's, public
 * (chime__mysql_admin_lists hands the tools that handle on this store).
 *
 * Tools include this header and chime.h, never the store's private
 * headers.  Every function here is implemented with the store's own
 * pieces (admin.c): a rule written here once is the store's rule.
 *
 * Terms: an *operator's store* is the store opened for a tool, as a node
 * of the cluster that never claims anything (its nodes row is removed
 * again when it is freed).  In SQL handed to chime__mysql_admin_query,
 * {P} stands for the table prefix.
 *
 * Thread: an operator's store is used by one thread at a time.
 */
#ifndef CHIME_JOBSTORE_MYSQL_ADMIN_H
#define CHIME_JOBSTORE_MYSQL_ADMIN_H

#include "chime-admin.h"
#include "chime.h"
#include "jobstore/mysql/result.h"
#include "jobstore/mysql/url.h"

#include <mysql.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct chime__mysql_admin chime__mysql_admin;

/* ------------------------------------------------ plain connections */

/*
 * chime__mysql_admin_connect: a plain connection to the URL's server and
 * database (autocommit, utf8mb4), as the store opens its own, for a tool's
 * own statements: connecting times out after connect_timeout_s (> 0), each
 * read and write after io_timeout_s (0: never).
 * Returns: 0; CHIME_ECONNECT; CHIME_EAUTH; CHIME_ENOTFOUND (no such
 * database); CHIME_ENOMEM; errbuf says why, the password redacted.
 * Ownership: *ret_db is the caller's, closed with mysql_close().
 */
int chime__mysql_admin_connect(const chime__mysql_url *url,
                               unsigned connect_timeout_s,
                               unsigned io_timeout_s, MYSQL **ret_db,
                               char *errbuf, size_t errbuf_len);

/*
 * chime__mysql_admin_schema_version: the schema version in the database a
 * store URL names (0: no schema), read over a plain connection (a database
 * without a schema cannot be opened as a store), and the version this
 * library writes.  Returns: 0; CHIME_EURL; the connection's errors;
 * CHIME_ESTORE; errbuf says why.
 */
int chime__mysql_admin_schema_version(const char *url, long *ret_version,
                                      long *ret_latest, char *errbuf,
                                      size_t errbuf_len);

/*
 * chime__mysql_admin_schema_state: chime__mysql_admin_schema_version, and
 * for a schema newer than this library the oldest version whose nodes can
 * serve it (its compatible_with: docs/operations.md, "Rolling upgrades"),
 * 0 otherwise.  Returns: as chime__mysql_admin_schema_version.
 */
int chime__mysql_admin_schema_state(const char *url, long *ret_version,
                                    long *ret_latest, long *ret_compat,
                                    char *errbuf, size_t errbuf_len);

/* ------------------------------------------------ an operator's store */

/*
 * chime__mysql_admin_open: opens the store of URL url (with extra, e.g.
 * "auto_create=1", appended to its parameters when not NULL) for
 * scheduler sched as node instance_id, with one connection and no log.
 * An operator's url may not say clear=1 (it would delete every row of the
 * cluster at open, a test's or demo's URL pasted into a tool); extra may.
 * Returns: 0; CHIME_EINVAL (clear=1 in url); chime__store_open's errors
 * (CHIME_EURL, CHIME_ECONNECT, CHIME_EAUTH, CHIME_ESCHEMA, ...), errbuf
 * says why.
 * Ownership: *ret is the caller's, freed with chime__mysql_admin_free.
 */
int chime__mysql_admin_open(const char *url, const char *extra,
                            const char *sched, const char *instance_id,
                            chime__mysql_admin **ret, char *errbuf,
                            size_t errbuf_len);

/* Closes the store (its nodes row goes too); a may be NULL. */
void chime__mysql_admin_free(chime__mysql_admin *a);

/* The check-in interval of an operator's store's nodes row: long, so that
 * a tool that checks in on its own timer is never late. */
#define CHIME__MYSQL_ADMIN_CHECKIN_MS 10000

/* Checks the operator's store in as a node does, so that a long-lived
 * tool (chime-web) is not judged dead by the cluster (which would end its
 * database sessions).  Call it every CHIME__MYSQL_ADMIN_CHECKIN_MS / 4.
 * Returns: 0; the store's errors. */
int chime__mysql_admin_checkin(chime__mysql_admin *a);

/* The operators' lists of chime-admin.h over a's store (a's own node left
 * out of the nodes), made on first use: the tools' listings read them
 * through the public API, on the connection of their operator's store.
 * Returns: the handle, borrowed from a (freed with it); NULL: out of
 * memory. */
chime_admin *chime__mysql_admin_lists(chime__mysql_admin *a);

/* The table prefix.  Borrowed from a. */
const char *chime__mysql_admin_prefix(const chime__mysql_admin *a);

/* The database's clock now, in epoch milliseconds. */
int64_t chime__mysql_admin_now(chime__mysql_admin *a);

/* The misfire threshold a node has unless configured otherwise (the
 * nodes' own settings are not in the database). */
int64_t chime__mysql_admin_misfire_threshold_ms(void);

/*
 * chime__mysql_admin_node_live_sql: the store's liveness rule as an SQL
 * condition on a nodes row aliased n: true while the node's lease
 * (jobstore/store.h: CHIME__LEASE_FACTOR check-in intervals, no grace)
 * has not run out by the database's clock.  The store judges nodes dead by
 * the same text.  Borrowed, static.
 */
const char *chime__mysql_admin_node_live_sql(void);

/* Whether group matches a group matcher, by the stores' rule (also for
 * the matchers remembered in the paused_groups table). */
bool chime__mysql_admin_group_matches(chime_match match, const char *pattern,
                                      const char *group);

/*
 * chime__mysql_admin_query: runs sql, a SELECT ({P} for the table prefix)
 * with nargs text arguments (NULL: SQL NULL), in a transaction of its
 * own; *ret gets the rows.
 * Returns: 0; CHIME_EINVAL (not a SELECT); the store's errors, errbuf
 * says why.  Ownership: *ret is the caller's (chime__mysql_rows_free),
 * empty on error.
 */
int chime__mysql_admin_query(chime__mysql_admin *a, const char *sql,
                             const char *const *args, size_t nargs,
                             chime__mysql_rows *ret, char *errbuf,
                             size_t errbuf_len);

/* Like chime__mysql_admin_query for "SELECT <the trigger columns> FROM
 * {P}triggers WHERE " where: rows to decode with
 * chime__mysql_admin_trigger_decode. */
int chime__mysql_admin_trigger_query(chime__mysql_admin *a, const char *where,
                                     const char *const *args, size_t nargs,
                                     chime__mysql_rows *ret, char *errbuf,
                                     size_t errbuf_len);

/* A trigger row as a tool reads it: its definition, its fire state and
 * its claim.  Strings are borrowed from the rows it was decoded from and
 * from the view itself (until chime__mysql_admin_trigger_clear). */
typedef struct chime__mysql_admin_trigger {
  const char *group, *name, *job_group, *job_name, *job_type;
  const char *description;   /* NULL: none */
  const char *calendar_name; /* NULL: none */
  const char *zone_name;     /* NULL: UTC or none */
  chime_trigger_kind kind;
  const char *cron_text;  /* cron */
  const chime_cron *cron; /* cron: compiled */
  chime_misfire misfire;
  int priority;
  int64_t start_ms, end_ms;
  int64_t interval_ms;                 /* simple */
  int32_t repeat_count;                /* simple, daily: as defined */
  int32_t interval;                    /* calendar-interval, daily */
  chime_interval_unit unit;            /* calendar-interval, daily */
  bool preserve_hour_of_day;           /* calendar-interval */
  int32_t day_start_s, day_end_s;      /* daily: the window */
  unsigned days_of_week;               /* daily: bit 0 Sunday ... bit 6 */
  int64_t jitter_ms, jitter_offset_ms; /* the window, the key's offset */
  int64_t next_fire_ms, prev_fire_ms;  /* CHIME_NO_FIRE_MS: none */
  int32_t state_repeat_count;          /* fire state: repeats so far */
  const char *state;                   /* "WAITING", "PAUSED", ... */
  const char *owner;                   /* the claiming node, NULL: none */
  int64_t claim_fire_id;               /* 0: none */
  int64_t timeout_ms;                  /* 0: the job's */
  int64_t starting_deadline_ms;        /* 0: the job's */
  chime_trigger *record;               /* private: the strings' owner */
} chime__mysql_admin_trigger;

/* Decodes row i of a chime__mysql_admin_trigger_query result.
 * Returns: 0; CHIME_EFORMAT (a bad row); CHIME_ENOMEM. */
int chime__mysql_admin_trigger_decode(const chime__mysql_rows *rows, size_t i,
                                      chime__mysql_admin_trigger *ret);
void chime__mysql_admin_trigger_clear(chime__mysql_admin_trigger *t);

/* -------------------------------------------------- operator actions */

/* Whether job (group, name) exists.  Returns: 0; CHIME_ENOTFOUND; the
 * store's errors. */
int chime__mysql_admin_job_exists(chime__mysql_admin *a, const char *group,
                                  const char *name);
/* Whether trigger (group, name) exists.  Returns as above. */
int chime__mysql_admin_trigger_exists(chime__mysql_admin *a, const char *group,
                                      const char *name);
/* How many triggers job (group, name) has.  Returns as above. */
int chime__mysql_admin_job_trigger_count(chime__mysql_admin *a,
                                         const char *group, const char *name,
                                         size_t *ret_count);

/* chime__mysql_admin_recompute_zones: the store's recompute_zones with the
 * rules this process reads now (the tool's own host's zoneinfo): the next
 * fire of every unclaimed trigger in the zones named.  *ret_recomputed
 * (may be NULL) counts those that moved.  Returns: 0; the store's
 * errors. */
int chime__mysql_admin_recompute_zones(chime__mysql_admin *a,
                                       const char *const *zones, size_t count,
                                       size_t *ret_recomputed);

/* Deletes a trigger (and a non-durable job left without triggers): chimectl
 * backfill --cancel (chime_admin_delete is the tools' way).  Returns: 0;
 * CHIME_ENOTFOUND; the store's errors. */
int chime__mysql_admin_remove_trigger(chime__mysql_admin *a, const char *group,
                                      const char *name);

/* One row of chime__mysql_admin_limits: a limited job type (partition
 * NULL) or one of its partitions with fires, its figures (0: none), what
 * waits (due, unclaimed) and what runs (docs/queue.md, "Limits"). */
typedef struct chime__mysql_admin_limit {
  char *job_type;
  char *partition;
  int max_running, max_per_partition, rate_count;
  int64_t rate_period_ms;
  int64_t waiting, running;
  /* The per-partition half (chime_scheduler_set_partition_limit): the
   * rate of each partition key (0: none) and the data field ("": none). */
  int key_rate_count;
  int64_t key_rate_period_ms;
  char partition_field[CHIME_MAX_NAME_LEN + 1];
} chime__mysql_admin_limit;

/* Sets the limit of job_type (the figures as chime_scheduler_set_limit's),
 * or clears it when clear.  Returns: 0; CHIME_EINVAL (bad figures, message
 * in errbuf); CHIME_ENOTFOUND (clear: none); the store's errors. */
int chime__mysql_admin_limit_set(chime__mysql_admin *a, const char *job_type,
                                 bool clear, int max_running,
                                 int max_per_partition, int rate_count,
                                 int64_t rate_period_ms, char *errbuf,
                                 size_t errbuf_len);
/* Sets the whole limit of job_type, both halves (chime_scheduler_set_limit's
 * figures, then chime_scheduler_set_partition_limit's: the rate of each
 * partition key and the data field, NULL for none), replacing the earlier
 * one.  Returns: as chime__mysql_admin_limit_set. */
int chime__mysql_admin_limit_put(chime__mysql_admin *a, const char *job_type,
                                 const chime__mysql_admin_limit *figures,
                                 char *errbuf, size_t errbuf_len);
/* Every limited type, each followed by its partitions that have fires, by
 * the database's clock.  Returns: 0; the store's errors.  Ownership: *ret
 * is the caller's (chime__mysql_admin_limits_free). */
int chime__mysql_admin_limits(chime__mysql_admin *a,
                              chime__mysql_admin_limit **ret, size_t *ret_n);
void chime__mysql_admin_limits_free(chime__mysql_admin_limit *v, size_t n);

/* Ends lease name now for an operator, whoever holds it and whatever its
 * at_least (the holder's extend and release are refused from then on; the
 * next acquisition's token is greater).  Returns: 0; CHIME_ENOTFOUND (no
 * such lease is held); the store's errors. */
int chime__mysql_admin_lease_release(chime__mysql_admin *a, const char *name);

/*
 * chime__mysql_admin_fire_now: fires job (group, name) once, now, with
 * data (len bytes, may be NULL) as the fire's data: the one-off trigger
 * the scheduler adds to trigger a job now (jobstore/store.h: one helper),
 * claimed by whichever node runs the job's type.  ret_key (key_len bytes)
 * gets the trigger's key "GROUP.NAME", *ret_due_ms when it is due.
 * Returns: 0; CHIME_ENOTFOUND; CHIME_EINVAL; the store's errors, errbuf
 * says why.
 */
int chime__mysql_admin_fire_now(chime__mysql_admin *a, const char *group,
                                const char *name, const void *data, size_t len,
                                const char *tag, char *ret_key, size_t key_len,
                                int64_t *ret_due_ms, char *errbuf,
                                size_t errbuf_len);

/*
 * chime__mysql_admin_enqueue: hands in one run of job (group, name) with
 * opts (NULL: defaults), as chime_scheduler_enqueue does (the same
 * trigger, stored with the store's trigger_add_many).  ret_key (key_len
 * bytes) gets the run's trigger key "CHIME_QUEUE.NAME", *ret_existed
 * whether a run with its unique key existed (nothing stored), *ret_due_ms
 * (may be NULL) when it is due (the options' time, or the store's now).
 * Returns: 0; CHIME_ENOTFOUND; CHIME_EINVAL; CHIME_ELIMIT; the store's
 * errors, errbuf says why.
 */
int chime__mysql_admin_enqueue(chime__mysql_admin *a, const char *group,
                               const char *name, const chime_enqueue *opts,
                               char *ret_key, size_t key_len, bool *ret_existed,
                               int64_t *ret_due_ms, char *errbuf,
                               size_t errbuf_len);

/* chime__mysql_admin_interrupt: asks the running fires of job (group,
 * name), or the one fire fire_id (> 0; group and name NULL), to stop, on
 * whichever node runs them (chime_scheduler_interrupt's store step: the
 * node notices at its next check-in).  *ret_count: how many were asked.
 * Returns: 0; CHIME_EINVAL; the store's errors. */
int chime__mysql_admin_interrupt(chime__mysql_admin *a, const char *group,
                                 const char *name, int64_t fire_id,
                                 size_t *ret_count);

/* Stores job (replacing one of its key) and, when trigger is not NULL,
 * trigger (replacing one of its key), as the scheduler would: for test
 * helpers that fill a schema.  Returns: 0; the store's errors. */
int chime__mysql_admin_schedule(chime__mysql_admin *a, const chime_job *job,
                                const chime_trigger *trigger, char *errbuf,
                                size_t errbuf_len);

/* Adds trigger (for a stored job) unless a trigger has its key: chimectl
 * backfill.  Returns: 0 (added); 1 (its key existed: left as it is); the
 * store's errors, errbuf says why. */
int chime__mysql_admin_add_trigger_if_absent(chime__mysql_admin *a,
                                             const chime_trigger *trigger,
                                             char *errbuf, size_t errbuf_len);

/* -------------------------------------------------- audit and drains */

/*
 * chime__mysql_admin_audit: records an operator's action in the audit
 * table (sql/014), stamped with the database's clock: who acted (chimectl:
 * the OS user@host; chime-web: the signed-in user or token name), origin
 * (where from: "chimectl", the console's client address), action (a verb:
 * "pause", "drain", "repair", ...), target (what it acted on: "trigger
 * G.N", "node n1"; may be "") and details (free text, NULL: none).  Texts
 * longer than their columns are cut.  Every tool action that changes the
 * cluster calls it once it succeeded (tools/query/chimectl.h: ctl_audit).
 * Returns: 0; CHIME_EINVAL (NULL action); the store's errors, errbuf says
 * why.
 */
int chime__mysql_admin_audit(chime__mysql_admin *a, const char *who,
                             const char *origin, const char *action,
                             const char *target, const char *details,
                             char *errbuf, size_t errbuf_len);

/*
 * chime__mysql_admin_repair: fixes one stuck state that `chimectl repair`
 * found, in one transaction that checks again, under the rows' locks, that
 * it is still stuck, fixes it with the store's own step and records it in
 * the audit table as who from origin (jobstore/mysql/repair.c says each
 * fix): BLOCKED names the job (group, name), LOST the fire (fire_id) and
 * the live node that has no run of it, ERROR and ORPHAN the trigger.
 * *ret_fixed: whether it was still stuck and is fixed now.
 * Returns: 0; CHIME_EINVAL; the store's errors, errbuf says why.
 */
typedef enum chime__mysql_repair_kind {
  CHIME__REPAIR_BLOCKED, /* a FORBID job's triggers blocked with no run */
  CHIME__REPAIR_LOST,    /* a fire EXECUTING on a live node without a run */
  CHIME__REPAIR_ERROR,   /* a trigger in ERROR */
  CHIME__REPAIR_ORPHAN,  /* a shard, retry or recovery trigger orphaned */
  CHIME__REPAIR_LEASE    /* a lease held by a node that is gone (name) */
} chime__mysql_repair_kind;
int chime__mysql_admin_repair(chime__mysql_admin *a,
                              chime__mysql_repair_kind kind, const char *group,
                              const char *name, int64_t fire_id,
                              const char *node, const char *who,
                              const char *origin, bool *ret_fixed, char *errbuf,
                              size_t errbuf_len);

#endif /* CHIME_JOBSTORE_MYSQL_ADMIN_H */
